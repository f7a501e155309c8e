"""Background processes: what wsl_start, wsl_read_output, wsl_send_input, wsl_stop and
wsl_list_processes work on.

Each process is one command run through the ``Runner`` (so through the transport, the sandbox
when it is on, and the run-token kill sweep) in a login bash like wsl_exec, under its own run
token, without a concurrency slot. Its stdin stays open (``Input``, fed by wsl_send_input); its
stdout and stderr are merged as a terminal shows them (``exec 2>&1`` inside, one pipe outside)
into an ``OutputRing`` of ``WSL_PROCESS_OUTPUT_BYTES``. ``WSL_PROCESS_MAX_MS`` is its deadline
(``WSL_EXEC_TIMEOUT_MS`` does not apply). Ids are ``<name>#p<n>``.

Reads and waits: every read first *looks* at the process (``Looks.look``: a no-op on a real
transport, the synchronisation point of a recording or a replay), then reads the ring. A wait loops
look, decide, then sleeps on the injected clock until the process writes (its ``changed`` event),
so what a reply shows depends only on what was seen at each look and on the clock.

Ending: ``stop`` sends INT, TERM or KILL to every process of the tree inside the distro (the
token sweep); INT and TERM are followed by KILL after ``GRACE_S``. At shutdown every started
process is cancelled and every token this server started is swept once (``tokens``); the tokens
are in the temp-file ledger from start to that sweep, so a server that was killed has its
processes swept by the next one (``reclaim``).

Retention: at most ``max_running`` run at once (one more is refused). An ended process stays
readable until it has been read to its end and then listed once more, or until ``RETAIN_ENDED``
newer ended processes push it out.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections import deque
from dataclasses import dataclass, field
from typing import Literal

from wslmcp.arguments import quoted
from wslmcp.boundaries.clock import Clock
from wslmcp.boundaries.local_files import LocalFiles
from wslmcp.boundaries.process import Exchange, Looks
from wslmcp.boundaries.shell_transport import Confine, ScriptCall
from wslmcp.shell.errors import ToolFailure
from wslmcp.shell.execution import ExitStatus, build_script, exit_marker
from wslmcp.shell.progress import TAIL_BYTES, ProgressSender, Throttle, latest_line
from wslmcp.shell.ring import OutputRing, Read, read
from wslmcp.shell.runner import Run, Runner

State = Literal["running", "exited", "killed"]
Signal = Literal["INT", "TERM", "KILL"]

RETAIN_ENDED = 16
MAX_PENDING_INPUT = 1 << 20
GRACE_S = 3.0  # after INT or TERM, before KILL
POLL_S = 0.1  # once the command's shell has ended, how often the rest of its tree is looked for
END_S = 5.0  # after KILL, for the transport to report the end before the call is cancelled
SETTLE_S = 0.05  # once new output arrives, how long a wait still gathers the rest of that burst
TICK_S = 1.0  # a wait's longest sleep when progress is reported
UNBOUNDED = 1 << 62  # the ring bounds the output; the transport never cuts it
COMMAND_CHARS = 80
LEDGER_PREFIX = "wslmcp-run:"  # a run token in the temp-file ledger
_LEDGER_TOKEN = re.compile(re.escape(LEDGER_PREFIX) + "[0-9a-f]{8,64}")


class Input:
    """A process's stdin as a ``ByteStream``: ``send`` queues bytes (never blocks: at most
    ``limit`` bytes may wait for a process that does not read), ``close`` ends it."""

    def __init__(self, limit: int = MAX_PENDING_INPUT) -> None:
        self.limit = limit
        self._pending: deque[bytes] = deque()
        self._size = 0
        self.closed = False
        self._ready = asyncio.Event()

    def send(self, data: bytes) -> None:
        if self.closed:
            raise ToolFailure("its stdin was closed (closeStdin); nothing was sent")
        if self._size + len(data) > self.limit:
            raise ToolFailure(
                f"the process has not read the {self._size} bytes sent before; at most {self.limit} "
                "bytes may wait for it, so nothing was sent"
            )
        if data:
            self._pending.append(data)
            self._size += len(data)
            self._ready.set()

    def close(self) -> None:
        self.closed = True
        self._ready.set()

    async def receive(self) -> bytes:
        while not self._pending and not self.closed:
            self._ready.clear()
            await self._ready.wait()
        data = b"".join(self._pending)
        self._pending.clear()
        self._size = 0
        return data


@dataclass(eq=False)
class Process:
    id: str
    command: str
    cwd: str | None
    token: str
    started: float  # on the injected clock
    ring: OutputRing
    exit: ExitMarker  # reads the exit marker out of the output
    input: Input = field(default_factory=Input)
    looks: Looks = field(default_factory=Looks)
    changed: asyncio.Event = field(default_factory=asyncio.Event)  # it wrote, or ended
    ending: asyncio.Event = field(default_factory=asyncio.Event)  # it ended (its exit marker, or its call)
    task: asyncio.Task[Run] | None = None
    run: Run | None = None  # the runner's account, once the call returned
    failure: str | None = None  # the transport could not run it
    cursor: int = 0  # where the previous read ended
    stopped_by: str | None = None  # why this server ended it
    ended_at: float | None = None  # when its end was first seen (the injected clock)
    read_to_end: bool = False  # read to its end after it ended
    sent: str = ""  # every input sent so far (the guard screens it whole, as the process's stdin)
    killed: bool = False  # this server sent its tree KILL before its shell's end was seen

    @property
    def ended(self) -> bool:
        return self.ended_at is not None

    @property
    def status(self) -> ExitStatus:
        """How it ended: the exit marker's code, else the transport's (a shell killed by KILL writes
        no marker)."""
        if not self.ended:
            return ExitStatus(None)
        if self.exit.code is not None:
            return ExitStatus.of(self.exit.code)
        ex = self.looks.ended
        return ExitStatus.of(
            None if ex is None else ex.exit_code, killed=self.killed or (ex is not None and ex.timed_out)
        )

    @property
    def state(self) -> State:
        if not self.ended:
            return "running"
        status = self.status
        if self.stopped_by or status.code is None or status.signal is not None:
            return "killed"
        return "exited"


@dataclass(frozen=True)
class View:
    """One process as a reply shows it."""

    id: str
    command: str
    cwd: str | None
    state: State
    status: ExitStatus
    runtime_s: float
    output_bytes: int
    dropped_bytes: int
    stopped_by: str | None
    failure: str | None

    @property
    def exit_code(self) -> int | None:
        return self.status.code


@dataclass(frozen=True)
class Ending:
    """What ``stop`` did: the signal asked for, the signals sent in order (``KILL`` after the grace
    when the tree outlived it), the processes signalled (``pid comm``), those still found after
    KILL, and a sweep's failure if one failed."""

    signal: Signal
    already_ended: bool
    sent: tuple[Signal, ...]
    killed: tuple[str, ...]
    survivors: tuple[str, ...] = ()
    sweep_error: str | None = None


def start_script(command: str, cwd: str | None, token: str) -> str:
    """wsl_exec's wrapper (``execution.build_script``) with stderr joined to stdout first and the
    exit marker written at every end (``ExitMarker``)."""
    return build_script(command, cwd=cwd, marker=None, token=token, background=True)


class ExitMarker:
    """Takes the exit marker out of a process's output. The started script's EXIT trap writes
    ``\\0WSLMCP_EXIT_<token>:<code>\\0`` when the command's shell exits (``-N``: it died of signal
    N), which may be long before the output ends (a child it left running holds the pipe, and
    wsl.exe with it). ``feed`` returns what to keep of each piece, holding back a tail that may be
    the marker's beginning; ``code`` is the code once the marker has passed; ``flush`` returns what
    is held at the end."""

    def __init__(self, token: str) -> None:
        self._head = exit_marker(token)
        self._held = b""
        self.code: int | None = None

    def feed(self, data: bytes) -> bytes:
        buf = self._held + data
        self._held = b""
        if self.code is None:
            at = buf.find(self._head)
            if at >= 0:
                close = buf.find(b"\0", at + len(self._head))
                if close < 0:
                    self._held = buf[at:]
                    return buf[:at]
                digits = buf[at + len(self._head) : close]
                self.code = int(digits) if digits.lstrip(b"-").isdigit() else 255  # (ours writes digits)
                return buf[:at] + buf[close + 1 :]
            for n in range(min(len(buf), len(self._head) - 1), 0, -1):
                if self._head.startswith(buf[-n:]):
                    self._held = buf[-n:]
                    return buf[:-n]
        return buf

    def flush(self) -> bytes:
        held, self._held = self._held, b""
        return held


def first_line(command: str) -> str:
    """A command as a listing shows it: its first line, cut to ``COMMAND_CHARS``."""
    line = command.strip().splitlines()[0] if command.strip() else ""
    more = line != command.strip()
    if len(line) > COMMAND_CHARS or more:
        return line[: COMMAND_CHARS - 1] + "…"
    return line


def _synthetic_end() -> Exchange:
    return Exchange(argv=(), stdout=b"", stderr=b"", exit_code=None, duration_s=0.0)


class ProcessTable:
    def __init__(
        self,
        runner: Runner,
        clock: Clock,
        *,
        name: str,
        max_running: int,
        ring_bytes: int,
        max_s: float,
        local: LocalFiles,
        where: str,
    ) -> None:
        self.runner = runner
        self.local = local
        self.where = where
        self.clock = clock
        self.name = name
        self.max_running = max_running
        self.ring_bytes = ring_bytes
        self.max_s = max_s
        self._processes: dict[str, Process] = {}
        self._counter = 0
        self.tokens: list[str] = []  # every run token started, in order, until the shutdown sweep

    # -- looking ----------------------------------------------------------------------------------

    def observe(self, p: Process) -> None:
        """Look at ``p`` (see the module docstring) and note its end the first time it is seen."""
        p.looks.look()
        p.changed.clear()  # after the look: what a replay hands over at a look is not news for a wait
        if (p.exit.code is not None or p.looks.ended is not None) and p.ended_at is None:
            p.ended_at = self.clock.monotonic()

    def view(self, p: Process) -> View:
        end = p.ended_at if p.ended_at is not None else self.clock.monotonic()
        return View(
            p.id,
            first_line(p.command),
            p.cwd,
            p.state,
            p.status,
            max(0.0, end - p.started),
            p.ring.end,
            p.ring.dropped,
            p.stopped_by,
            p.failure,
        )

    def get(self, pid: str) -> Process:
        p = self._processes.get(pid.strip())
        if p is None:
            known = ", ".join(self._processes) or "none"
            raise ToolFailure(
                f"unknown process '{quoted(pid.strip())}' (known: {known}); an ended process is forgotten "
                f"once it was read to its end and listed again, or when {RETAIN_ENDED} newer ended "
                "ones push it out"
            )
        return p

    def running(self) -> list[Process]:
        for p in self._processes.values():
            self.observe(p)
        return [p for p in self._processes.values() if not p.ended]

    # -- starting ---------------------------------------------------------------------------------

    def start(self, command: str, cwd: str | None, *, confine: Confine = "own") -> Process:
        """Start ``command`` (already screened by the guard) in ``cwd`` (``confine="none"``: outside
        the sandbox, as a person approved); refuses one more than ``max_running``."""
        busy = self.running()
        if len(busy) >= self.max_running:
            raise ToolFailure(
                f"{len(busy)} background processes are running, the most WSL_MAX_PROCESSES allows "
                f"({', '.join(p.id for p in busy)}); stop one with wsl_stop or wait for one to end. "
                "Nothing was started."
            )
        self._counter += 1
        token = self.runner.tokens()
        p = Process(
            f"{self.name}#p{self._counter}",
            command,
            cwd,
            token,
            self.clock.monotonic(),
            OutputRing(self.ring_bytes),
            ExitMarker(token),
        )

        def sink(data: bytes) -> None:
            p.ring.append(p.exit.feed(data))
            p.changed.set()
            if p.exit.code is not None:
                p.ending.set()

        call = ScriptCall(
            start_script(command, cwd, token),
            cwd=cwd,
            stdin=p.input,
            timeout_s=self.max_s,
            max_output=UNBOUNDED,
            stdout_sink=sink,
            merge_stderr=True,
            looks=p.looks,
            confine=confine,
        )
        self.tokens.append(token)
        self.track(token)
        p.task = asyncio.ensure_future(self.runner.run(call, token=token, bounded=False))
        p.task.add_done_callback(lambda task: self._finished(p, task))
        self._processes[p.id] = p
        self._push_out()
        return p

    def _finished(self, p: Process, task: asyncio.Task[Run]) -> None:
        if task.cancelled():
            end = _synthetic_end()
        elif (exc := task.exception()) is not None:
            p.failure = str(exc) or type(exc).__name__
            end = _synthetic_end()
        else:
            p.run = task.result()
            end = p.run.exchange
            if end.timed_out and p.stopped_by is None:
                p.stopped_by = "WSL_PROCESS_MAX_MS"
        p.ring.append(p.exit.flush())
        if p.looks.ended is None:
            p.looks.ended = end
        p.changed.set()
        p.ending.set()

    def _push_out(self) -> None:
        ended = [p for p in self._processes.values() if p.ended]
        for p in ended[: max(0, len(ended) - RETAIN_ENDED)]:
            del self._processes[p.id]

    # -- waiting and reading ----------------------------------------------------------------------

    async def wait(
        self, p: Process, wait_s: float, *, beyond: int | None, progress: ProgressSender | None
    ) -> None:
        """Until ``p`` ends or ``wait_s`` passes; with ``beyond``, until its output passes that offset
        (then ``SETTLE_S`` more for the rest of that burst) or ends (a process that has exited may
        still write through a child it left running). Progress at most once a second."""
        throttle = Throttle(progress, self.clock)
        begin = self.clock.monotonic()
        limit = begin + max(0.0, wait_s)
        settle: float | None = None
        while True:
            self.observe(p)
            now = self.clock.monotonic()
            if p.looks.ended is not None or (beyond is None and p.ended):
                return
            if settle is None and beyond is not None and p.ring.end > beyond:
                settle = min(limit, now + SETTLE_S)
            until = settle if settle is not None else limit
            if now >= until:
                return
            if throttle.wanted:
                await throttle(
                    round((now - begin) * 1000), round(wait_s * 1000), latest_line(p.ring.tail(TAIL_BYTES))
                )
            event = p.changed if beyond is not None else p.ending  # new output matters only with ``beyond``
            await self._event_or(event, min(until - now, TICK_S) if throttle.wanted else until - now)

    async def _event_or(self, event: asyncio.Event, seconds: float) -> None:
        """Sleep on the clock until ``seconds`` pass or ``event`` is set."""
        waiter = asyncio.ensure_future(event.wait())
        sleeper = asyncio.ensure_future(self.clock.sleep(seconds))
        try:
            await asyncio.wait({waiter, sleeper}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            waiter.cancel()
            sleeper.cancel()
            await asyncio.gather(waiter, sleeper, return_exceptions=True)

    def read(self, p: Process, offset: int | None, max_bytes: int) -> Read:
        """From ``offset`` (None: where the previous read ended), at most ``max_bytes`` (at most the
        ring); moves the process's cursor to where this read ended."""
        self.observe(p)
        got = read(
            p.ring, p.cursor if offset is None else offset, min(max_bytes, p.ring.capacity), final=p.ended
        )
        p.cursor = got.next_offset
        if p.ended and got.next_offset == p.ring.end:
            p.read_to_end = True
        return got

    def send(self, p: Process, data: bytes, *, close: bool) -> None:
        self.observe(p)
        if p.ended:
            raise ToolFailure(f"{p.id} has ended ({p.state}); nothing was sent")
        if data or not close:
            p.input.send(data)
        if close:
            p.input.close()

    # -- ending -----------------------------------------------------------------------------------

    async def stop(self, p: Process, signal: Signal) -> Ending:
        """End ``p``'s whole tree inside the distro: ``signal``, then KILL after ``GRACE_S`` to
        whatever of the tree outlived it (the command's shell may end first); a process that
        already ended has its leftovers (children it left running) killed."""
        self.observe(p)
        if p.ended:
            killed, error = await self.runner.sweep(p.token)
            return Ending(signal, True, ("KILL",) if killed else (), killed, (), error)
        p.stopped_by = "wsl_stop"
        sent: tuple[Signal, ...] = (signal,)
        p.killed = signal == "KILL"
        killed, error = await self.runner.sweep(p.token, signal=signal)
        if signal != "KILL" and await self._outlived(p, GRACE_S):
            p.killed = not p.ended
            sent += ("KILL",)
            more, error = await self.runner.sweep(p.token)
            killed += tuple(k for k in more if k not in killed)
        survivors: tuple[str, ...] = ()
        if "KILL" in sent:
            survivors, _ = await self.runner.look(p.token)
        await self.wait(p, END_S, beyond=None, progress=None)
        if not p.ended and p.task is not None:  # something holds its pipes open: stop listening
            p.task.cancel()
            with contextlib.suppress(BaseException):
                await p.task
            self.observe(p)
        gone = tuple(k for k in killed if k not in survivors)
        return Ending(signal, False, sent, gone, survivors, error)

    async def _outlived(self, p: Process, grace_s: float) -> bool:
        """Whether any of ``p``'s tree still runs after ``grace_s`` (or cannot be looked for): its
        shell's end is waited for, then the rest of the tree is looked for every ``POLL_S``."""
        limit = self.clock.monotonic() + grace_s
        await self.wait(p, grace_s, beyond=None, progress=None)
        while True:
            alive, error = await self.runner.look(p.token)
            left = limit - self.clock.monotonic()
            if error is not None or not alive or left <= 0:
                return error is not None or bool(alive)
            await self.clock.sleep(min(POLL_S, left))

    def listing(self) -> tuple[list[View], list[str]]:
        """Every process, and the ids shown for the last time (ended and read to their end)."""
        for p in self._processes.values():
            self.observe(p)
        views = [self.view(p) for p in self._processes.values()]
        last = [p.id for p in self._processes.values() if p.ended and p.read_to_end]
        for pid in last:
            del self._processes[pid]
        return views, last

    async def shutdown(self) -> list[str]:
        """Cancel every process still running (the transport kills its own side); returns every run
        token started, for the runner's shutdown sweep to kill their trees inside the distro."""
        live = [p.task for p in self._processes.values() if p.task is not None and not p.task.done()]
        for p in self._processes.values():
            p.input.close()
            if not p.ended:
                p.stopped_by = "the server's shutdown"
        for task in live:
            task.cancel()
        await asyncio.gather(*live, return_exceptions=True)
        return list(self.tokens)

    # -- the ledger -------------------------------------------------------------------------------

    def track(self, token: str) -> None:
        self.local.track(self.where, LEDGER_PREFIX + token)

    def swept(self, tokens: list[str]) -> None:
        """``tokens``' trees were swept: out of the ledger (and of ``tokens``)."""
        for token in tokens:
            self.local.untrack(self.where, LEDGER_PREFIX + token)
        self.tokens = [t for t in self.tokens if t not in tokens]

    def reclaim(self, entries: list[tuple[str, str]]) -> list[str]:
        """The run tokens among ``entries`` (ledgers of servers that are gone) started here: their
        trees must be swept (they stay in this server's ledger until ``swept``)."""
        return [
            path.removeprefix(LEDGER_PREFIX)
            for where, path in entries
            if where == self.where and _LEDGER_TOKEN.fullmatch(path)
        ]
