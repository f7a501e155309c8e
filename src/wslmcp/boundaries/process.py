"""Running one child process with closed or given stdin, a deadline and bounded output capture.

This is the one place (with the server launcher) that spawns processes; adapters build on it. The
process group the child leads is ``process_group.Group``, shared with the launcher.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, cast

from wslmcp.boundaries.process_group import Group

if TYPE_CHECKING:  # asyncio is imported where a process runs: a blocking caller never pays for it
    import asyncio


class ByteSource(Protocol):
    """Bytes fed to a child's stdin a piece at a time (a local file, a bounded slice of one)."""

    def read(self, n: int, /) -> bytes: ...


class ByteStream(Protocol):
    """Bytes fed to a child's stdin as they come (a background process's input): ``receive()``
    waits for the next piece; ``b""`` closes stdin. The child may end while it waits."""

    async def receive(self) -> bytes: ...


ByteSink = Callable[[bytes], None]
Stdin = bytes | ByteSource | ByteStream | None


class Looks:
    """The moments a caller reads a live call: one whose stdout it takes through ``stdout_sink``
    while the call runs (a background process). The caller calls ``look()`` each time it is about
    to read what it has been given; the adapter running the call sets ``ended`` to its exchange as it
    returns (the caller sets it when the call fails or is cancelled).

    A recording hooks ``look`` to note, at each look (``count`` is its
    number, from 1), how many stdout bytes had passed and whether ``ended`` was set; a replay hooks it
    to hand over exactly that much (and the end) by the same look, so what the caller reads at each
    look is what it read when recorded. A hook may come after the first looks (the call starts
    asynchronously): ``count`` tells it where it is.
    """

    def __init__(self) -> None:
        self.ended: Exchange | None = None
        self.count = 0
        self._hooks: list[Callable[[], None]] = []

    def hook(self, on_look: Callable[[], None]) -> None:
        self._hooks.append(on_look)

    def look(self) -> None:
        self.count += 1
        for on_look in self._hooks:
            on_look()


FEED_BYTES = 1 << 20
DEFAULT_MAX_OUTPUT = 16 * 1024 * 1024


@dataclass(frozen=True, kw_only=True)
class Streams:
    """How one child's streams are handled: ``stdin`` (closed when None, bytes, a ``ByteSource``
    fed a piece at a time, or a ``ByteStream`` fed as it comes), the deadline ``timeout_s``, the
    capture limit ``max_output`` per stream, ``stdout_sink`` and ``stderr_sink`` (the stream handed
    over as it arrives instead of kept), ``merge_stderr`` (stderr goes into stdout's pipe, in the order written, as a
    terminal shows them) and ``looks`` (a live call's read moments, for recordings and replays).
    The request value every process-running port takes (``WslCall``, ``ScriptCall``) extends it."""

    stdin: Stdin = None
    timeout_s: float | None = None
    max_output: int = DEFAULT_MAX_OUTPUT
    stdout_sink: ByteSink | None = None
    stderr_sink: ByteSink | None = None
    merge_stderr: bool = False
    looks: Looks | None = None


NO_STREAMS = Streams()


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
    killed: tuple[str, ...] = ()  # "pid comm" of each process the kill reached (``name_killed``)

    @property
    def truncated(self) -> bool:
        return self.stdout_total > len(self.stdout) or self.stderr_total > len(self.stderr)


class _Capture:
    """The first ``limit`` bytes of a stream, kept (or handed to ``sink``), and the count of every byte
    seen; readable even if the drain is cancelled."""

    def __init__(self, limit: int, sink: ByteSink | None = None) -> None:
        self.limit = limit
        self.sink = sink
        self.kept = bytearray()
        self.total = 0

    def take(self, chunk: bytes) -> None:
        room = self.limit - self.total
        self.total += len(chunk)
        if room <= 0:
            return
        if self.sink is None:
            self.kept += chunk[:room]
        else:
            self.sink(chunk[:room])


async def _drain(
    stream: asyncio.StreamReader | None, capture: _Capture, on_overflow: Callable[[], None] | None = None
) -> None:
    if stream is None:
        return
    while chunk := await stream.read(65536):
        capture.take(chunk)
        if capture.total > capture.limit and on_overflow is not None:
            on_overflow()
            on_overflow = None


def _stream(stdin: Stdin) -> ByteStream | None:
    """``stdin`` when it is a ``ByteStream`` (it has ``receive``), else None."""
    return cast("ByteStream", stdin) if hasattr(stdin, "receive") else None


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


@functools.cache
def _own_group() -> dict[str, Any]:
    """How a child starts leading a process group of its own (its deadline kills the group): in a
    session of its own when this server has a controlling terminal, so the child cannot read from
    it or be stopped by it; else only in a group of its own, as a session of its own would also be
    a scheduling autogroup of its own under Linux, in which a parallel child (ripgrep) ran ~20 %
    slower."""
    if os.name != "posix":
        return {}
    try:
        os.close(os.open("/dev/tty", os.O_RDONLY | os.O_NOCTTY))
    except OSError as exc:
        if exc.errno in (errno.ENXIO, errno.ENOENT):  # no controlling terminal (or no way to one)
            return {"process_group": 0}
    return {"start_new_session": True}  # a terminal, or no telling: keep the child off it


async def run_process(
    argv: Sequence[str],
    streams: Streams = NO_STREAMS,
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    kill_on_overflow: bool = False,
    kill_group_on_exit: bool = True,
    name_killed: bool = False,
) -> Exchange:
    """Run ``argv`` with ``streams``: stdin is closed unless bytes (or a ``ByteSource``, read and fed
    a piece at a time until it is exhausted, or a ``ByteStream``, fed until it ends or the child
    does) are given. ``stdout_sink`` (``stderr_sink``) receives the stream's first ``max_output``
    bytes as they arrive instead of keeping them (``stdout`` is then empty; ``stdout_total`` still
    counts).
    On the deadline the child's whole process group is killed. Raises ``FileNotFoundError`` /
    ``PermissionError`` if it cannot start.

    ``kill_on_overflow``: kill the process group as soon as either stream passes ``max_output``
    (``overflowed`` is then set), so a runaway writer cannot keep the caller busy until its deadline.
    ``kill_group_on_exit``: after a normal exit, also kill what the child left running in its
    process group (default); False lets deliberately backgrounded jobs outlive the call.
    ``name_killed``: at the deadline or overflow, stop the group first and report its members as
    ``killed`` ("pid comm" each), so the caller can say what was killed."""
    import asyncio

    started = time.monotonic()
    spawn = asyncio.ensure_future(
        asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE if streams.stdin is not None else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT if streams.merge_stderr else asyncio.subprocess.PIPE,
            env=None if env is None else {**os.environ, **env},
            cwd=cwd,
            **_own_group(),
        )
    )
    try:
        proc = await asyncio.shield(spawn)
    except asyncio.CancelledError:
        # cancelled while the child starts: asyncio's own cleanup would kill the child alone, then
        # wait for pipes a child of its own may hold, for ever. Let it start; end its whole group.
        with contextlib.suppress(Exception):
            started_run = _Running(await spawn, streams, kill_on_overflow=False, name_killed=False)
            started_run.group.kill()
            await started_run.settle()
            started_run.group.close()
        raise
    run = _Running(proc, streams, kill_on_overflow=kill_on_overflow, name_killed=name_killed)
    timed_out = await run.wait(streams.timeout_s, kill_group_on_exit=kill_group_on_exit)
    exchange = Exchange(
        argv=tuple(argv),
        stdout=bytes(run.out.kept),
        stderr=bytes(run.err.kept),
        exit_code=None if timed_out else proc.returncode,
        duration_s=time.monotonic() - started,
        timed_out=timed_out,
        stdout_total=run.out.total,
        stderr_total=run.err.total,
        overflowed=run.overflowed,
        killed=run.killed,
    )
    if streams.looks is not None:
        streams.looks.ended = exchange
    return exchange


class _Running:
    """One started child: its stdin fed, both outputs captured, and its process group killed at the
    deadline or (``kill_on_overflow``) once an output passes the cap."""

    def __init__(
        self,
        proc: asyncio.subprocess.Process,
        streams: Streams,
        *,
        kill_on_overflow: bool,
        name_killed: bool,
    ) -> None:
        import asyncio

        self.proc = proc
        self.group = Group(proc.pid, lambda: proc.returncode is not None, proc.kill)
        self._stdin = streams.stdin
        self._kill_on_overflow = kill_on_overflow
        self._name_killed = name_killed
        self.overflowed = False
        self.killed: tuple[str, ...] = ()
        self.stopped = asyncio.Event()
        self.out = _Capture(streams.max_output, streams.stdout_sink)
        self.err = _Capture(streams.max_output, streams.stderr_sink)
        self.drains = [
            asyncio.ensure_future(_drain(proc.stdout, self.out, self._overflow)),
            asyncio.ensure_future(_drain(proc.stderr, self.err, self._overflow)),
        ]
        # a ByteStream may wait for input the child never reads: the run ends with the child, not with it
        self._live = _stream(streams.stdin)
        self.feeder = asyncio.ensure_future(self._feed())
        awaited = (
            [*self.drains, proc.wait()]
            if self._live is not None
            else [self.feeder, *self.drains, proc.wait()]
        )
        self.finished = asyncio.ensure_future(asyncio.gather(*awaited))

    async def _feed(self) -> None:
        stdin, pipe = self._stdin, self.proc.stdin
        if pipe is None or stdin is None:
            return
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            if isinstance(stdin, bytes):
                pipe.write(stdin)
                await pipe.drain()
            elif self._live is not None:
                while piece := await self._live.receive():
                    pipe.write(piece)
                    await pipe.drain()
            else:
                source = cast("ByteSource", stdin)
                while piece := source.read(FEED_BYTES):
                    pipe.write(piece)
                    await pipe.drain()
        pipe.close()

    def kill(self) -> None:
        if self._name_killed:
            self.killed = self.group.kill_named()
        else:
            self.group.kill()

    def _overflow(self) -> None:
        if self._kill_on_overflow and not self.overflowed:
            self.overflowed = True
            self.kill()
            self.stopped.set()

    async def settle(self) -> None:
        """The child is dead (or dying): give its pipes a short grace, then stop listening to them
        (a descendant that escaped the process group may hold them open indefinitely)."""
        import asyncio

        waiter = asyncio.ensure_future(self.proc.wait())
        tasks: list[asyncio.Future[Any]] = [self.feeder, *self.drains, waiter]
        _, pending = await asyncio.wait(tasks, timeout=PIPE_GRACE_S)
        if pending:
            _close_pipes(self.proc)
            for task in (self.feeder, *self.drains):
                task.cancel()
            await asyncio.wait([waiter], timeout=PIPE_GRACE_S)
        await asyncio.gather(self.feeder, *self.drains, waiter, return_exceptions=True)
        self.finished.cancel()
        await asyncio.gather(self.finished, return_exceptions=True)

    async def wait(self, timeout_s: float | None, *, kill_group_on_exit: bool) -> bool:
        """Until the child is done, its deadline passes or an output overflows; True on the deadline."""
        import asyncio

        stop_wait = asyncio.ensure_future(self.stopped.wait())
        timed_out = False
        try:
            watched: list[asyncio.Future[Any]] = [self.finished, stop_wait]
            done, _ = await asyncio.wait(watched, timeout=timeout_s, return_when=asyncio.FIRST_COMPLETED)
            if self.finished in done:
                self.finished.result()
                if self._live is not None:
                    self.feeder.cancel()
                    await asyncio.gather(self.feeder, return_exceptions=True)
                if kill_group_on_exit:
                    self.group.kill()  # reap anything the child left running in its group
            else:
                if not done:
                    timed_out = True
                    self.kill()
                await self.settle()
        except BaseException:
            self.group.kill()
            with contextlib.suppress(BaseException):
                await self.settle()
            raise
        finally:
            stop_wait.cancel()
            self.group.close()
        return timed_out
