"""Running one child process with closed or given stdin, a deadline and bounded output capture.

This is the one place (with the server launcher) that spawns processes; adapters build on it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Exchange:
    """What one process run produced.

    ``stdout``/``stderr`` hold at most the capture limit; ``*_total`` count every byte the child wrote.
    ``exit_code`` is None when the child was killed at its deadline (``timed_out``) or by a signal
    it did not survive (then it is ``-signum`` as asyncio reports it).
    """

    argv: tuple[str, ...]
    stdout: bytes
    stderr: bytes
    exit_code: int | None
    duration_s: float
    timed_out: bool = False
    stdout_total: int = 0
    stderr_total: int = 0
    overflowed: bool = False  # killed because a stream passed the capture limit (kill_on_overflow)

    @property
    def truncated(self) -> bool:
        return self.stdout_total > len(self.stdout) or self.stderr_total > len(self.stderr)


async def _drain(
    stream: asyncio.StreamReader | None, limit: int, on_overflow: Callable[[], None] | None = None
) -> tuple[bytes, int]:
    if stream is None:
        return b"", 0
    kept = bytearray()
    total = 0
    while chunk := await stream.read(65536):
        total += len(chunk)
        room = limit - len(kept)
        if room > 0:
            kept += chunk[:room]
        if total > limit and on_overflow is not None:
            on_overflow()
            on_overflow = None
    return bytes(kept), total


def _kill_group(proc: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if os.name == "posix":
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.kill()


async def run_process(
    argv: Sequence[str],
    *,
    stdin: bytes | None = None,
    timeout_s: float | None = None,
    max_output: int = 16 * 1024 * 1024,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    kill_on_overflow: bool = False,
    kill_group_on_exit: bool = True,
) -> Exchange:
    """Run ``argv``; stdin is closed unless bytes are given. On the deadline the child's whole
    process group is killed. Raises ``FileNotFoundError`` / ``PermissionError`` if it cannot start.

    ``kill_on_overflow``: kill the process group as soon as either stream passes ``max_output``
    (``overflowed`` is then set), so a runaway writer cannot keep the caller busy until its deadline.
    ``kill_group_on_exit``: after a normal exit, also kill what the child left running in its
    process group (default); False lets deliberately backgrounded jobs outlive the call."""
    started = time.monotonic()
    full_env = None if env is None else {**os.environ, **env}
    proc = await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=full_env,
        cwd=cwd,
        start_new_session=os.name == "posix",
    )

    async def feed() -> None:
        if proc.stdin is None or stdin is None:
            return
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            proc.stdin.write(stdin)
            await proc.stdin.drain()
        proc.stdin.close()

    overflowed = False

    def overflow() -> None:
        nonlocal overflowed
        if kill_on_overflow and not overflowed:
            overflowed = True
            _kill_group(proc)

    async def communicate() -> tuple[tuple[bytes, int], tuple[bytes, int]]:
        _, out, err = await asyncio.gather(
            feed(), _drain(proc.stdout, max_output, overflow), _drain(proc.stderr, max_output, overflow)
        )
        await proc.wait()
        return out, err

    timed_out = False
    task = asyncio.ensure_future(communicate())
    try:
        (out, out_total), (err, err_total) = await asyncio.wait_for(asyncio.shield(task), timeout_s)
    except TimeoutError:
        timed_out = True
        _kill_group(proc)
        (out, out_total), (err, err_total) = await task
    except BaseException:
        _kill_group(proc)
        with contextlib.suppress(BaseException):
            await task
        raise
    else:
        if kill_group_on_exit:
            _kill_group(proc)  # reap anything the child left running in its group
    return Exchange(
        argv=tuple(argv),
        stdout=out,
        stderr=err,
        exit_code=None if timed_out else proc.returncode,
        duration_s=time.monotonic() - started,
        timed_out=timed_out,
        stdout_total=out_total,
        stderr_total=err_total,
        overflowed=overflowed,
    )
