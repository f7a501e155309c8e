"""The process runner: closed stdin, bounded capture, and a deadline that kills the whole group."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import time
from pathlib import Path

import psutil
import pytest

from wslmcp.boundaries.process import Streams, run_process

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/stat")
    return not (status.exists() and status.read_text().rsplit(")", 1)[1].split()[0] == "Z")


async def test_exit_code_and_streams() -> None:
    ex = await run_process(["bash", "-c", "echo out; echo err >&2; exit 7"])
    assert (ex.stdout, ex.stderr, ex.exit_code, ex.timed_out) == (b"out\n", b"err\n", 7, False)


async def test_stdin_is_closed_so_readers_see_eof_at_once() -> None:
    ex = await run_process(["bash", "-c", 'read -r line; echo "rc=$?"'], Streams(timeout_s=30))
    assert ex.stdout == b"rc=1\n"
    assert not ex.timed_out


async def test_stdin_bytes_arrive_exactly() -> None:
    payload = bytes(range(256)) * 1000
    ex = await run_process(["cat"], Streams(stdin=payload))
    assert ex.stdout == payload


async def test_capture_is_capped_but_counted() -> None:
    ex = await run_process(["bash", "-c", "head -c 1000000 /dev/zero"], Streams(max_output=1000))
    assert len(ex.stdout) == 1000
    assert ex.stdout_total == 1_000_000
    assert ex.truncated


async def test_deadline_kills_the_whole_group(tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    script = f"sleep 300 & echo $! > {pidfile}; wait"
    ex = await run_process(["bash", "-c", script], Streams(timeout_s=0.5))
    assert ex.timed_out and ex.exit_code is None
    assert not alive(int(pidfile.read_text()))


async def test_missing_executable_raises() -> None:
    with pytest.raises(FileNotFoundError):
        await run_process(["/nonexistent/definitely-not-here"])


class _Pieces:
    """A ``ByteStream`` fed by the test: ``receive()`` waits for the next piece; ``b""`` ends it."""

    def __init__(self) -> None:
        import asyncio

        self.queue: asyncio.Queue[bytes] = asyncio.Queue()

    async def receive(self) -> bytes:
        return await self.queue.get()


async def test_a_byte_stream_feeds_stdin_as_pieces_arrive_and_its_end_closes_stdin() -> None:
    import asyncio

    pieces = _Pieces()
    seen = bytearray()
    got_first = asyncio.Event()

    def sink(data: bytes) -> None:
        seen.extend(data)
        got_first.set()

    run = asyncio.ensure_future(
        run_process(
            [
                "bash",
                "-c",
                'read -r a; echo "first=$a"; read -r b; echo "second=$b"; read -r c; echo "rc=$?"',
            ],
            Streams(stdin=pieces, stdout_sink=sink, timeout_s=30),
        )
    )
    pieces.queue.put_nowait(b"one\n")
    await asyncio.wait_for(got_first.wait(), 30)  # answered before any more input was sent
    assert bytes(seen) == b"first=one\n" and not run.done()
    pieces.queue.put_nowait(b"two\n")
    pieces.queue.put_nowait(b"")  # the end: stdin closes, the third read sees end of file
    ex = await run
    assert bytes(seen) == b"first=one\nsecond=two\nrc=1\n" and ex.exit_code == 0


async def test_a_child_that_exits_while_its_byte_stream_waits_still_ends_the_run() -> None:
    ex = await run_process(["bash", "-c", "echo bye; exit 4"], Streams(stdin=_Pieces(), timeout_s=30))
    assert (ex.stdout, ex.exit_code, ex.timed_out) == (b"bye\n", 4, False)


async def test_merged_stderr_arrives_in_stdout_in_the_order_written() -> None:
    script = "for i in 1 2 3; do echo out$i; echo err$i >&2; done"
    ex = await run_process(["bash", "-c", script], Streams(merge_stderr=True))
    assert ex.stdout == b"out1\nerr1\nout2\nerr2\nout3\nerr3\n" and ex.stderr == b""


async def test_a_run_cancelled_while_its_child_starts_ends_the_whole_group(tmp_path: Path) -> None:
    """Cancelled after the fork but before asyncio has connected the child's pipes (a background
    process started and the server shut down at once): asyncio's own cleanup would kill only the
    child and then wait for pipes its own child still holds, for ever. The run ends, and nothing of
    the group survives."""
    pidfile = tmp_path / "grandchild.pid"
    task = asyncio.ensure_future(
        run_process(["bash", "-c", f"sleep 300 & echo $! > {pidfile}; wait"], Streams(timeout_s=None))
    )
    while not _child_running(str(pidfile)):  # turn by turn until it is forked; its pipes connect later
        await asyncio.sleep(0)
    deadline = time.monotonic() + 30  # a hang guard: the grandchild is forked while the loop is held
    while not (pidfile.exists() and pidfile.read_text().strip()) and time.monotonic() < deadline:
        time.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        async with asyncio.timeout(30):  # a hang guard, not a timing assertion
            await task
    grandchild = int(pidfile.read_text())
    gone_by = time.monotonic() + 10  # killed, it may take a moment to die under load; `sleep 300` lives on
    while alive(grandchild) and time.monotonic() < gone_by:
        time.sleep(0.01)
    assert not alive(grandchild)


def _child_running(marker: str) -> bool:
    def argv(child: psutil.Process) -> str:
        with contextlib.suppress(psutil.Error):
            return " ".join(child.cmdline())
        return ""

    return any(marker in argv(child) for child in psutil.Process().children())


def _child_session(terminal: bool) -> tuple[bool, bool]:
    """Run a child with ``run_process`` from a process with (or without) a controlling terminal, in
    a session of its own: is the child its group's leader, and its session's?"""
    import pty
    import subprocess
    import sys

    report = 'read -r _ sid pgid <<< "$(ps -o pid=,sid=,pgid= -p $$)"; echo "$$ $sid $pgid"'
    code = (
        "import asyncio, fcntl, os, sys, termios\n"
        "if sys.argv[1] == 'terminal': fcntl.ioctl(0, termios.TIOCSCTTY, 0)\n"  # the pty becomes its terminal
        "from wslmcp.boundaries.process import run_process\n"
        f"ex = asyncio.run(run_process(['bash', '-c', {report!r}]))\n"
        "pid, sid, pgid = ex.stdout.split()\n"
        "print(pgid == pid, sid == pid)\n"
    )
    leader, follower = pty.openpty()
    try:
        done = subprocess.run(
            [sys.executable, "-c", code, "terminal" if terminal else "none"],
            stdin=follower,
            capture_output=True,
            start_new_session=True,
            timeout=60,
        )
    finally:
        os.close(leader)
        os.close(follower)
    group, session = done.stdout.split()
    return group == b"True", session == b"True"


def test_without_a_terminal_a_child_leads_a_group_of_its_own_in_the_same_session() -> None:
    """A session of its own would give the child nothing but a scheduling autogroup of its own under
    Linux, in which a parallel child (ripgrep) ran ~20 % slower: the deadline kills its group."""
    assert _child_session(terminal=False) == (True, False)


def test_with_a_terminal_a_child_gets_a_session_of_its_own() -> None:
    """A server started from a terminal keeps its children off it (a password prompt fails at once
    instead of stopping the call)."""
    assert _child_session(terminal=True) == (True, True)
