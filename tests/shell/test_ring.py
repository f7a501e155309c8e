"""The background-process output ring: absolute offsets, what is pushed out, UTF-8-safe reads."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import examples
from wslmcp.shell.ring import OutputRing, read


def test_offsets_are_absolute_and_old_output_is_pushed_out_and_counted() -> None:
    ring = OutputRing(10)
    ring.append(b"0123456")
    ring.append(b"789abc")
    assert (ring.start, ring.end, ring.dropped) == (3, 13, 3)
    assert ring.slice(0, 100) == b"3456789abc"  # an offset before the ring starts where it starts
    assert ring.slice(5, 4) == b"5678"
    assert ring.tail(2) == b"bc"
    ring.append(b"X" * 25)  # bigger than the ring: only its tail stays
    assert (ring.start, ring.end, ring.slice(0, 100)) == (28, 38, b"X" * 10)


def test_a_read_says_what_it_skipped_and_where_to_go_on() -> None:
    ring = OutputRing(8)
    ring.append(b"abcdefghij")
    r = read(ring, 0, 3, final=False)
    assert (r.data, r.offset, r.next_offset, r.skipped) == (b"cde", 2, 5, 2)
    r = read(ring, r.next_offset, 100, final=False)
    assert (r.data, r.offset, r.next_offset, r.skipped) == (b"fghij", 5, 10, 0)
    last = read(ring, -4, 100, final=False)
    assert (last.data, last.offset) == (b"ghij", 6)
    past = read(ring, 99, 100, final=False)
    assert (past.data, past.offset, past.next_offset) == (b"", 10, 10)


def test_reads_are_cut_at_character_boundaries() -> None:
    ring = OutputRing(100)
    text = "añ€😀z".encode()  # 1, 2, 3, 4 and 1 bytes
    ring.append(text)
    r = read(ring, 0, 5, final=False)  # "añ€" is 6 bytes: stop before the euro sign
    assert r.data == "añ".encode() and r.next_offset == 3
    assert read(ring, -6, 100, final=False).data == "😀z".encode()  # -6 lands inside the euro sign
    ring2 = OutputRing(100)
    ring2.append("ab€".encode()[:-1])  # the euro sign is still being written
    assert read(ring2, 0, 100, final=False).data == b"ab"
    assert read(ring2, 0, 100, final=True).data == "ab€".encode()[:-1]  # it ended: nothing more comes
    tiny = read(ring, 3, 1, final=False)  # max_bytes below one character still moves on
    assert tiny.data == "€".encode()[:1] and tiny.next_offset == 4


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.text(max_size=30), max_size=30), st.integers(1, 64), st.integers(4, 40))
def test_reading_on_from_next_offset_gives_back_the_text_that_was_held(
    parts: list[str], capacity: int, step: int
) -> None:
    ring = OutputRing(capacity)
    for part in parts:
        ring.append(part.encode())
    out = bytearray()
    offset = 0
    while True:
        r = read(ring, offset, step, final=True)
        if not r.data:
            break
        assert len(r.data) <= step
        out += r.data
        offset = r.next_offset
    held = ring.slice(0, capacity)
    assert bytes(out) in held and held.endswith(bytes(out))
    if ring.dropped == 0:
        assert out.decode() == "".join(parts)


@settings(max_examples=examples(100), deadline=None)
@given(st.binary(max_size=40), st.binary(max_size=40), st.lists(st.integers(1, 20), max_size=12))
def test_the_exit_marker_is_taken_out_however_the_output_is_cut(
    before: bytes, after: bytes, cuts: list[int]
) -> None:
    from wslmcp.shell.processes import ExitMarker

    token = "00000000000000ab"
    stream = before + f"\0WSLMCP_EXIT_{token}:17\0".encode() + after
    reader = ExitMarker(token)
    out = bytearray()
    at = 0
    for n in [*cuts, len(stream)]:
        out += reader.feed(stream[at : at + n])
        at += n
    out += reader.flush()
    if f"\0WSLMCP_EXIT_{token}:".encode() not in before:  # the first marker is the one that counts
        assert reader.code == 17 and bytes(out) == before + after


async def test_progress_is_sent_at_most_once_per_second_of_the_injected_clock() -> None:
    from wslmcp.fakes.clock import FakeClock
    from wslmcp.shell.progress import Throttle, latest_line

    clock = FakeClock()
    sent: list[tuple[float, float | None, str | None]] = []

    async def send(progress: float, total: float | None, message: str | None) -> None:
        sent.append((progress, total, message))

    throttle = Throttle(send, clock)
    assert await throttle(0, 10, "a")
    clock.advance(0.999)
    assert not await throttle(999, 10, "b")
    clock.advance(0.001)
    assert await throttle(1000, 10, "c")
    assert sent == [(0, 10, "a"), (1000, 10, "c")]
    assert not await Throttle(None, clock)(0, None, "nobody asked")
    assert latest_line(b"one\ntwo\r\n\n  \n") == "two" and latest_line(b"\n\n") is None
    assert latest_line(b"progress 10%\rprogress 50%\r") == "progress 50%"  # a progress bar's last state
