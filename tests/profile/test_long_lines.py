"""Lines too long to hold: the streamed reader must give the verdicts of the held one.

The held reader's rules (``jsonl.records``) are the oracle: universal-newline split, blank pieces
ignored, ``json.loads`` deciding what is an object and what is a bad line. Tiny thresholds send
small generated lines down the streaming path, fed in random chunks; a real file past the real
threshold checks the whole pipeline, sizes included.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import examples
from wslmcp.boundaries.client_files import LocalClientFiles
from wslmcp.profile.transcripts import claude, jsonl, long_lines
from wslmcp.profile.transcripts.model import PAIRED, utf8_size

FILES = LocalClientFiles()


def held(text: str) -> list[Any]:
    """What the held reader makes of one decoded line: records, None for bad lines."""
    out: list[Any] = []
    for piece in text.replace("\r\n", "\n").split("\r"):
        if not piece.strip():
            continue
        try:
            record = json.loads(piece)
        except (ValueError, RecursionError):
            out.append(None)
            continue
        out.append(record if type(record) is dict else None)
    return out


def view(value: Any) -> Any:
    """What an adapter can take from a value: for strings, their start and their UTF-8 size."""
    if isinstance(value, long_lines.Measured):
        return ("str", value.prefix, value.utf8)
    if isinstance(value, str):
        return ("str", value[: long_lines.PREFIX], utf8_size(value))
    if isinstance(value, dict):
        return [(view(k), view(v)) for k, v in value.items()]
    if isinstance(value, list):
        return [view(v) for v in value]
    return value


def streamed(text: str, cuts: list[int], **thresholds: int) -> list[Any]:
    lexer = long_lines.LongLine(**thresholds)
    out: list[Any] = []
    start = 0
    for cut in sorted(c % (len(text) + 1) for c in cuts):
        out.extend(lexer.feed(text[start:cut]))
        start = max(start, cut)
    out.extend(lexer.feed(text[start:]))
    out.extend(lexer.feed("", final=True))
    return out


FRAGMENTS = st.sampled_from(
    [
        '{"a": "',
        '"',
        "x" * 9,
        "é",
        "😀",
        "\\n",
        "\\u00e9",
        "\\ud83d\\ude00",
        "\\ud800",
        "\\udc00",
        "\\ud800\\u0041",
        "\\\\",
        "ud83d",
        "\\ud83d",
        "\\ude00",
        "\\u00",
        "\\uZZ",
        "\\q",
        "\\",
        "\r",
        "\r\n",
        "\n",
        "\t",
        "\x01",
        " ",
        "\u2028",
        "\x1c",
        "}",
        "{",
        "[",
        "]",
        ",",
        ":",
        "1",
        "NaN",
        "null",
        '"k"',
        '{"k": ["v", "',
        '"}',
        '"]}',
        '{"t": "tool_result", "c": "',
    ]
)


@settings(max_examples=examples(400), deadline=None)
@given(st.lists(FRAGMENTS, max_size=40), st.lists(st.integers(min_value=0, max_value=400), max_size=6))
def test_streamed_verdicts_equal_held_ones(parts: list[str], cuts: list[int]) -> None:
    text = "".join(parts) + "\n"
    assert view(streamed(text, cuts, big_string=4)) == view(held(text))


@settings(max_examples=examples(150), deadline=None)
@given(st.lists(FRAGMENTS, max_size=40), st.lists(st.integers(min_value=0, max_value=400), max_size=6))
def test_long_strings_are_measured_not_kept(parts: list[str], cuts: list[int]) -> None:
    inner = "".join(p for p in parts if p not in ('"', "\\", "\r", "\n", "\x01", "\r\n")) * 3
    text = '{"c": "' + inner + '"}\n'
    expected = held(text)
    got = streamed(text, cuts, big_string=4)
    assert view(got) == view(expected)
    if expected and expected[0] is not None and len(inner) > 4:
        assert isinstance(got[0]["c"], long_lines.Measured)


def test_a_structure_past_the_limit_is_a_bad_line() -> None:
    text = '{"a": [' + "1," * 50 + "1]}\n"
    assert held(text) != [None]
    assert streamed(text, [], max_held=40) == [None]


def test_two_long_strings_are_equal_only_when_their_text_is() -> None:
    a, b, c = streamed(
        '{"x": "' + "a" * 20 + '", "y": "' + "a" * 20 + '", "z": "' + "a" * 19 + 'b"}\n', [], big_string=4
    )[0].values()
    assert a == b and a != c


def write_line(path: Path, lines: list[bytes]) -> None:
    path.write_bytes(b"".join(lines))


def test_a_long_tool_result_line_is_counted_in_bounded_pieces(tmp_path: Path) -> None:
    big = "résultat 😀 \\ " * (long_lines.MAX_HELD_LINE // 10)  # ~10 MiB of JSON text, escapes included
    use = {
        "type": "assistant",
        "version": "2.1.0",
        "timestamp": "2026-01-10T10:00:00Z",
        "message": {"content": [{"type": "tool_use", "id": "t1", "name": "mcp__fs__read"}]},
    }
    res = {
        "type": "user",
        "version": "2.1.0",
        "message": {"content": [{"type": "tool_result", "tool_use_id": "t1", "content": big}]},
    }
    garbage = b'{"half": "' + b"z" * (long_lines.MAX_HELD_LINE + 10) + b"\n"
    path = tmp_path / "long.jsonl"
    filler = [b'{"type": "user", "version": "2.1.0", "message": {"content": "hi"}}\n'] * 10  # under 10% bad
    write_line(path, [json.dumps(use).encode() + b"\n", json.dumps(res).encode() + b"\n", garbage, *filler])
    assert len(json.dumps(res)) > long_lines.MAX_HELD_LINE
    transcript = claude.parse(FILES, str(path), str(tmp_path), ["fs"])
    assert transcript.parsed, transcript.skip_reason
    (call,) = transcript.calls
    assert (call.result_kind, call.result_bytes) == (PAIRED, len(big.encode("utf-8")))
    assert transcript.bad_lines == 1


def test_a_decoding_error_in_a_long_line_reads_as_the_held_reader_says(tmp_path: Path) -> None:
    first = b'{"version": "2.1.0"}\n'
    long = b'{"a": "' + b"y" * (long_lines.MAX_HELD_LINE + 5000) + b"\xff" + b'"}\n'
    path = tmp_path / "bad.jsonl"
    write_line(path, [first, long])
    stats = jsonl.LineStats()
    list(jsonl.records(FILES, str(path), stats))
    assert stats.error == "unreadable: " + jsonl._decode_message(long, len(first))


def test_random_chunking_of_a_real_line_is_stable() -> None:
    rng = random.Random(7)
    text = json.dumps({"c": "é\\u" * 500, "d": ["😀" * 300, {"e": "\r"}]}) + "\r\n  \r" + "{}" + "\n"
    reference = view(held(text))
    for _ in range(50):
        cuts = [rng.randrange(len(text) + 1) for _ in range(rng.randrange(1, 30))]
        assert view(streamed(text, cuts, big_string=16)) == reference
