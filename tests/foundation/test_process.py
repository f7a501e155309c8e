"""The process runner: closed stdin, bounded capture, and a deadline that kills the whole group."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

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
