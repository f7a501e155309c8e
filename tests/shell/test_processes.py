"""Background processes through the service, with a real bash on both transports (the local one,
and the wsl.exe transport driving the stand-in, whose Linux side runs in its own session as inside
a distro), on the machine's clock. What is left running is read through /proc."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from tests.shell.conftest import Built, build, processes_with, survivors
from tests.shell.standin import transport_of
from wslmcp.boundaries.clock import SystemClock
from wslmcp.boundaries.shell_transport import ShellTransport
from wslmcp.shell import results


@pytest.fixture(params=["local", "wsl.exe-standin"])
def transport(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> ShellTransport:
    return transport_of(request.param, tmp_path, monkeypatch)


Make = Callable[..., Built]


@pytest.fixture
async def started(transport: ShellTransport) -> AsyncIterator[Make]:
    """Services on ``transport`` and the machine's clock, each shut down after the test (a failing
    test leaves nothing running)."""
    built: list[Built] = []

    def make(env: dict[str, str] | None = None) -> Built:
        b = build({"WSL_NAME": "box", **(env or {})}, transport=transport, clock=SystemClock())
        built.append(b)
        return b

    yield make
    for b in built:
        await b.raw.shutdown()


def sleeps(marker: str) -> list[str]:
    """Live ``sleep`` processes whose argument starts with ``marker``."""
    return [
        found for found in processes_with(f"sleep {marker}") if found.split(" ", 1)[1].startswith("sleep ")
    ]


async def output(b: Built, tool: str, *args: object, **kwargs: object) -> results.ProcessOutput:
    result = await getattr(b.raw, tool)(*args, **kwargs)
    assert isinstance(result, results.ProcessOutput), result
    return result


async def test_a_process_that_fails_at_once_keeps_its_stderr_merged_in_order(
    started: Make, tmp_path: Path
) -> None:
    b = started()
    r = await output(
        b,
        "start",
        "echo out1; echo err1 >&2; echo out2; echo oops >&2; exit 3",
        cwd=str(tmp_path),
        wait_ms=30_000,
    )
    assert (r.process.id, r.process.state, r.process.exit_code) == ("box#p1", "exited", 3)
    assert r.read.text == "out1\nerr1\nout2\noops\n"
    assert (r.read.offset, r.read.next_offset, r.more) == (0, 20, 0)
    reply = await b.service.start("exit 0", cwd=str(tmp_path), wait_ms=30_000)
    assert reply.text.startswith("box#p2 exited with code 0") and "(no new output)" in reply.text


async def test_output_of_an_ended_process_reads_back_from_any_offset(started: Make, tmp_path: Path) -> None:
    b = started()
    r = await output(b, "start", "printf 'line %s\\n' 1 2 3 4 5", cwd=str(tmp_path), wait_ms=30_000)
    assert r.process.state == "exited" and r.read.text == "line 1\nline 2\nline 3\nline 4\nline 5\n"
    again = await output(b, "read_output", "box#p1", offset=0, max_bytes=14)
    assert (again.read.text, again.read.next_offset, again.more) == ("line 1\nline 2\n", 14, 21)
    cont = await output(b, "read_output", "box#p1")  # default: where the previous read ended
    assert cont.read.text == "line 3\nline 4\nline 5\n" and cont.more == 0
    last = await output(b, "read_output", "box#p1", offset=-7)
    assert (last.read.text, last.read.offset) == ("line 5\n", 28)


async def test_a_wait_ends_on_new_output_and_another_on_exit(started: Make, tmp_path: Path) -> None:
    b = started()
    first = await output(
        b, "start", "echo begun; read -r go; echo later; read -r x; exit 5", cwd=str(tmp_path), wait_ms=0
    )
    assert first.process.state == "running"
    begun = await output(b, "read_output", "box#p1", wait_ms=60_000)  # ends on its first output
    assert begun.read.text == "begun\n" and begun.process.state == "running"
    sent = await output(b, "send_input", "box#p1", "go\n", wait_ms=60_000)  # ends on what the input printed
    assert (sent.read.text, sent.sent, sent.process.state) == ("later\n", 3, "running")
    await output(b, "send_input", "box#p1", "", close_stdin=True, wait_ms=0)
    ended = await output(b, "read_output", "box#p1", wait_ms=60_000)  # ends on its exit
    assert (ended.process.state, ended.process.exit_code, ended.read.text) == ("exited", 5, "")


async def test_the_ring_drops_old_output_and_says_so(started: Make, tmp_path: Path) -> None:
    b = started({"WSL_PROCESS_OUTPUT_BYTES": "1000"})
    r = await output(
        b, "start", "for i in $(seq 1000 1999); do echo $i; done", cwd=str(tmp_path), wait_ms=30_000
    )
    assert r.process.state == "exited" and r.process.output_bytes == 5000
    assert r.process.dropped_bytes == 4000 and r.read.skipped == 4000 and r.read.offset == 4000
    assert r.read.text.startswith("1800\n") and r.read.text.endswith("1999\n")
    reply = await b.service.read_output("box#p1", offset=10)
    assert "3990 bytes before byte 4000 were pushed out" in reply.text


async def test_input_is_screened_by_the_guard_as_the_process_stdin(started: Make, tmp_path: Path) -> None:
    b = started()
    await output(b, "start", "bash", cwd=str(tmp_path), wait_ms=0)
    refused = await b.service.send_input("box#p1", "rm -rf /\n")
    assert refused.is_error and "Refused by this profile's guard policy" in refused.text
    split = await b.service.send_input("box#p1", "x=rm\n", wait_ms=0)  # harmless alone ...
    assert not split.is_error
    assert (await b.service.send_input("box#p1", "$x -rf /\n")).is_error  # ... judged with what came before
    fine = await output(b, "send_input", "box#p1", "echo hi from $PWD\n", wait_ms=60_000)
    assert fine.read.text == f"hi from {tmp_path}\n"
    await output(b, "start", f"cd {tmp_path} && bash", cwd=str(tmp_path), wait_ms=0)  # the shell is not first
    assert (await b.service.send_input("box#p2", "rm -rf /\n")).is_error


async def test_stop_ends_the_whole_tree_inside_the_distro(started: Make, tmp_path: Path) -> None:
    b = started()
    marker = "31.7171"
    await output(
        b,
        "start",
        f"sleep {marker}1 & setsid sleep {marker}2 & echo up; sleep {marker}3",
        cwd=str(tmp_path),
        wait_ms=0,
    )
    r = await output(b, "read_output", "box#p1", wait_ms=30_000)
    assert r.process.state == "running" and r.read.text == "up\n"
    assert len(sleeps(marker)) == 3
    stopped = await b.raw.stop("box#p1")
    assert isinstance(stopped, results.Stopped) and stopped.process.state == "killed"
    assert stopped.process.stopped_by == "wsl_stop" and stopped.ending.sweep_error is None
    assert await survivors(f"sleep {marker}") == []
    reply = await b.service.read_output("box#p1")  # read after the stop: not an error
    assert not reply.is_error and reply.text.startswith("box#p1 killed by wsl_stop")


async def test_term_is_followed_by_kill_for_a_process_that_ignores_it(started: Make, tmp_path: Path) -> None:
    b = started()
    marker = "32.7181"
    await output(b, "start", f"trap '' TERM; echo ready; sleep {marker}", cwd=str(tmp_path), wait_ms=0)
    assert (
        await output(b, "read_output", "box#p1", wait_ms=30_000)
    ).read.text == "ready\n"  # the trap is set
    stopped = await b.raw.stop("box#p1", signal="TERM")
    assert isinstance(stopped, results.Stopped) and stopped.process.state == "killed"
    assert await survivors(f"sleep {marker}") == []
    int_ended = await output(b, "start", "sleep 33.1; echo never", cwd=str(tmp_path), wait_ms=0)
    stopped = await b.raw.stop(int_ended.process.id, signal="INT")
    assert isinstance(stopped, results.Stopped) and stopped.process.state == "killed"
    assert await survivors("sleep 33.1") == []


async def test_one_more_than_the_limit_is_refused_and_nothing_starts(started: Make, tmp_path: Path) -> None:
    b = started({"WSL_MAX_PROCESSES": "2"})
    for _ in range(2):
        await output(b, "start", "sleep 34.5", cwd=str(tmp_path), wait_ms=0)
    refused = await b.service.start("sleep 34.6", cwd=str(tmp_path), wait_ms=0)
    assert refused.is_error and "2 background processes are running" in refused.text
    assert "box#p1, box#p2" in refused.text and "Nothing was started" in refused.text
    assert processes_with("sleep 34.6") == []
    await b.raw.stop("box#p1", signal="KILL")
    assert not (await b.service.start("echo room", cwd=str(tmp_path), wait_ms=0)).is_error


async def test_the_process_deadline_is_its_own_and_not_the_exec_timeout(
    started: Make, tmp_path: Path
) -> None:
    b = started({"WSL_EXEC_TIMEOUT_MS": "200", "WSL_PROCESS_MAX_MS": "1200"})
    outlives = await output(b, "start", "sleep 0.5; echo done", cwd=str(tmp_path), wait_ms=30_000)
    assert (outlives.process.state, outlives.read.text) == ("exited", "done\n")  # 0.5 s > WSL_EXEC_TIMEOUT_MS
    killed = await output(
        b, "start", "echo going; sleep 35.25", cwd=str(tmp_path), wait_ms=30_000
    )  # ends at 1.2 s
    assert (killed.process.state, killed.process.stopped_by) == ("killed", "WSL_PROCESS_MAX_MS")
    assert await survivors("sleep 35.25") == []


async def test_an_ended_process_is_listed_once_more_after_it_was_read_to_its_end(
    started: Make, tmp_path: Path
) -> None:
    b = started()
    await output(b, "start", "echo a", cwd=str(tmp_path), wait_ms=30_000)  # read to its end by the start
    await output(b, "start", "echo b; exit 2", cwd=str(tmp_path), wait_ms=0)
    await output(b, "read_output", "box#p2", wait_ms=30_000, max_bytes=1)  # ended, but one byte is left
    listed = await b.raw.list_processes()
    assert isinstance(listed, results.Processes)
    assert [(v.id, v.state) for v in listed.rows] == [("box#p1", "exited"), ("box#p2", "exited")]
    assert listed.last == ("box#p1",)
    reply = await b.service.list_processes()
    assert re.search(r"^box#p2 exited with code 2 · [\d.]+s · 2 B · echo b; exit 2$", reply.text, re.M), (
        reply.text
    )
    assert "box#p1" not in reply.text
    gone = await b.service.read_output("box#p1")
    assert gone.is_error and "unknown process 'box#p1' (known: box#p2)" in gone.text


async def test_shutdown_ends_every_started_tree(started: Make, tmp_path: Path) -> None:
    b = started()
    marker = "36.4242"
    for i in range(3):
        await output(b, "start", f"sleep {marker}{i} & sleep {marker}{i}", cwd=str(tmp_path), wait_ms=0)
    await output(
        b, "start", f"(setsid sleep {marker}9 &); echo left", cwd=str(tmp_path), wait_ms=30_000
    )  # exited, left one
    assert len(await _wait_for(marker, 7)) == 7
    await b.raw.shutdown()
    assert await survivors(f"sleep {marker}") == []


async def _wait_for(marker: str, count: int) -> list[str]:
    import asyncio

    for _ in range(500):
        found = sleeps(marker)
        if len(found) >= count:
            return found
        await asyncio.sleep(0.02)
    return sleeps(marker)


async def test_a_process_has_exited_when_its_shell_exits_though_a_child_holds_its_output(
    started: Make, tmp_path: Path
) -> None:
    b = started()
    r = await output(
        b,
        "start",
        "(sleep 0.3; echo from-child; sleep 37.1) & echo parent-done; exit 4",
        cwd=str(tmp_path),
        wait_ms=30_000,
    )
    assert (r.process.state, r.process.exit_code, r.read.text) == ("exited", 4, "parent-done\n")
    later = await output(b, "read_output", "box#p1", wait_ms=30_000)  # what the child writes still arrives
    assert later.read.text == "from-child\n"
    stopped = await b.raw.stop("box#p1")  # ends what it left running
    assert isinstance(stopped, results.Stopped) and stopped.ending.already_ended
    assert any(k.endswith(" sleep") for k in stopped.ending.killed) and stopped.process.state == "exited"
    assert await survivors("sleep 37.1") == []


async def test_a_flood_and_a_process_that_never_reads_still_get_answers(
    started: Make, tmp_path: Path
) -> None:
    b = started({"WSL_PROCESS_OUTPUT_BYTES": "4096"})
    flood = await output(b, "start", "yes flood", cwd=str(tmp_path), wait_ms=300)
    assert flood.process.state == "running" and len(flood.read.data) <= 4096
    again = await output(b, "read_output", "box#p1", wait_ms=1000)
    assert again.read.skipped > 0 and again.process.dropped_bytes > 0 and "flood\nflood\n" in again.read.text
    deaf = await output(b, "start", "sleep 39.25", cwd=str(tmp_path), wait_ms=0)
    chunk = "x" * 40_000  # two fill the pipe it never reads: the sends answer all the same
    replies = [await b.service.send_input(deaf.process.id, chunk, wait_ms=0) for _ in range(3)]
    assert [r.is_error for r in replies] == [False, False, True]
    assert "more than the 100000 the guard screens" in replies[-1].text  # all its input is judged
    for pid in ("box#p1", deaf.process.id):
        stopped = await b.raw.stop(pid, signal="KILL")
        assert isinstance(stopped, results.Stopped) and stopped.process.state == "killed"
    assert await survivors("sleep 39.25") == [] and processes_with("yes flood") == []


async def test_without_a_distro_every_process_tool_says_not_configured() -> None:
    b = build({"WSL_DISTRO": ""})
    for reply in (
        await b.service.start("true"),
        await b.service.read_output("x#p1"),
        await b.service.send_input("x#p1", "y"),
        await b.service.stop("x#p1"),
        await b.service.list_processes(),
        await b.service.search("x", "/tmp"),
        await b.service.edit_file("/tmp/x", []),
    ):
        assert reply.is_error and "not configured" in reply.text
