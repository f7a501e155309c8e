"""Running one child process with closed or given stdin, a deadline and bounded output capture.

This is the one place (with the server launcher) that spawns processes; adapters build on it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from asyncio import FIRST_COMPLETED
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any


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


class _Capture:
    """Bytes kept (up to ``limit``) and bytes seen, readable even if the drain is cancelled."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.kept = bytearray()
        self.total = 0


async def _drain(
    stream: asyncio.StreamReader | None, capture: _Capture, on_overflow: Callable[[], None] | None = None
) -> None:
    if stream is None:
        return
    while chunk := await stream.read(65536):
        capture.total += len(chunk)
        room = capture.limit - len(capture.kept)
        if room > 0:
            capture.kept += chunk[:room]
        if capture.total > capture.limit and on_overflow is not None:
            on_overflow()
            on_overflow = None


# After the child is killed, how long its pipes may stay open (held by a descendant that escaped
# the process group) before the capture stops waiting for end-of-file.
PIPE_GRACE_S = 0.5


def _close_pipes(proc: asyncio.subprocess.Process) -> None:
    transport = getattr(proc, "_transport", None)
    if transport is None:
        return
    for fd in (0, 1, 2):
        pipe = transport.get_pipe_transport(fd)
        if pipe is not None:
            pipe.close()


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
    stopped = asyncio.Event()

    def overflow() -> None:
        nonlocal overflowed
        if kill_on_overflow and not overflowed:
            overflowed = True
            _kill_group(proc)
            stopped.set()

    out_cap, err_cap = _Capture(max_output), _Capture(max_output)
    drains = [
        asyncio.ensure_future(_drain(proc.stdout, out_cap, overflow)),
        asyncio.ensure_future(_drain(proc.stderr, err_cap, overflow)),
    ]
    feeder = asyncio.ensure_future(feed())
    finished = asyncio.ensure_future(asyncio.gather(feeder, *drains, proc.wait()))
    stop_wait = asyncio.ensure_future(stopped.wait())

    async def settle() -> None:
        """The child is dead (or dying): give its pipes a short grace, then stop listening to them
        (a descendant that escaped the process group may hold them open indefinitely)."""
        waiter = asyncio.ensure_future(proc.wait())
        tasks: list[asyncio.Future[Any]] = [feeder, *drains, waiter]
        _, pending = await asyncio.wait(tasks, timeout=PIPE_GRACE_S)
        if pending:
            _close_pipes(proc)
            for task in (feeder, *drains):
                task.cancel()
            await asyncio.wait([waiter], timeout=PIPE_GRACE_S)
        await asyncio.gather(feeder, *drains, waiter, return_exceptions=True)
        finished.cancel()
        await asyncio.gather(finished, return_exceptions=True)

    timed_out = False
    try:
        watched: list[asyncio.Future[Any]] = [finished, stop_wait]
        done, _ = await asyncio.wait(watched, timeout=timeout_s, return_when=FIRST_COMPLETED)
        if finished in done:
            finished.result()
            if kill_group_on_exit:
                _kill_group(proc)  # reap anything the child left running in its group
        else:
            if not done:
                timed_out = True
                _kill_group(proc)
            await settle()
    except BaseException:
        _kill_group(proc)
        with contextlib.suppress(BaseException):
            await settle()
        raise
    finally:
        stop_wait.cancel()
    out, out_total = bytes(out_cap.kept), out_cap.total
    err, err_total = bytes(err_cap.kept), err_cap.total
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
