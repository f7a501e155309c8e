"""The stdio transport our MCP servers (observe, shell) run on: it answers the handshake at once,
loads the server meanwhile, gives every request with an id exactly one answer, and ends the
session on EOF, SIGTERM or SIGINT alike. Nothing here imports the MCP SDK at module level.

Contract
--------
Input: newline-delimited JSON-RPC 2.0 on stdin, decoded as UTF-8 (invalid bytes become U+FFFD).
Output: one JSON object per line on the real stdout. While serving, fd 0 reads the null device and
fd 1 points at stderr, so a stray ``print`` or a child's output never reaches the wire.

Two phases:

1. Loading. A reader thread starts before anything heavy is imported; ``front_door.FrontDoor``
   answers ``initialize``, ``ping`` and ``tools/list`` from the catalogue (plain data) and parks
   every other line. Meanwhile the main thread runs ``start()`` (the area's domain). When the input
   ends with no request waiting for an answer (a client that only listed the tools), or on
   SIGTERM/SIGINT, the process ends here with status 0.
2. Serving (``_Session``, one event loop, the area's lifespan entered). The parked lines, then every
   later one: the door answers the handshake lines and the ``tools/call`` requests it reads whole
   (each a task; answers exactly the SDK's), notifications wait, and any other line loads the SDK
   (``wslmcp.serving``, in a worker thread) and from then on goes to ``serving.serve``, the waiting
   lines first (the opening ``initialize`` is handed to it first, so its session state is the
   same). End of input, SIGTERM and SIGINT end the session: calls in flight are cancelled (each
   one's cleanup runs: the shell kills a command's process tree) and answered "Connection closed",
   as the SDK answers its own; the area's lifespan ends (the shell's shutdown sweep) and the process
   exits with status 0. A second signal is not caught.
"""

from __future__ import annotations

import _thread
import asyncio
import contextlib
import importlib
import os
import signal
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import AbstractAsyncContextManager
from typing import IO, Any

from wslmcp import __version__, protocol
from wslmcp.catalogue import Answer, Dispatch, HandOver, Progress, Question, ServerSpec
from wslmcp.front_door import (
    Call,
    FrontDoor,
    answer_call,
    answer_line,
    cancelled,
    notification,
    progress_line,
)

Lifespan = Callable[[], AbstractAsyncContextManager[Dispatch]]
"""The area's running service: entered once the SDK is loaded, yields the dispatch, and on exit
shuts the service down."""
_SIGNALS = (signal.SIGTERM, signal.SIGINT)


class _Stopped(Exception):
    """SIGTERM, SIGINT or a quiet end of input while the server was still loading."""


class _Wire:
    """The client's end: whole lines, written by one thread at a time."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._lock = threading.Lock()

    def write(self, line: str) -> None:
        view = memoryview((line + "\n").encode("utf-8"))
        with self._lock:
            while view:
                view = view[os.write(self._fd, view) :]


class _Inbox:
    """Input lines for the serving phase, in order; ``b""`` is the end, and after ``stop`` every
    ``get`` is the end at once (what is still queued is not read)."""

    def __init__(self) -> None:
        self._lines: deque[bytes] = deque()
        self._ready = threading.Condition()
        self._stopped = False

    def put(self, line: bytes) -> None:
        with self._ready:
            self._lines.append(line)
            self._ready.notify()

    def get(self) -> bytes:
        with self._ready:
            self._ready.wait_for(lambda: self._stopped or bool(self._lines))
            return b"" if self._stopped else self._lines.popleft()

    def stop(self) -> None:
        with self._ready:
            self._stopped = True
            self._ready.notify_all()


def _is_request(line: bytes) -> bool:
    """Could ``line`` be a request (something that waits for an answer)? Errs towards yes."""
    return b'"id"' in line


class _Reader:
    """Reads stdin on a daemon thread (a blocked read never holds up exit). Until ``hand_over``
    the front door answers what it can and the rest is parked; after it every line goes to the
    inbox. ``quiet_end`` is called when the input ends (or the client is gone) with no request
    parked."""

    def __init__(
        self, stream: IO[bytes], door: FrontDoor, wire: _Wire, inbox: _Inbox, quiet_end: Callable[[], None]
    ) -> None:
        self._stream, self._door, self._wire, self._inbox = stream, door, wire, inbox
        self._quiet_end = quiet_end
        self._lock = threading.Lock()
        self._parked: list[bytes] | None = []
        self._waiting = False

    def start(self) -> None:
        threading.Thread(target=self._pump, name="wslmcp-stdin", daemon=True).start()

    def _pump(self) -> None:
        with self._stream:
            while True:
                try:
                    line = self._stream.readline()
                except (OSError, ValueError):
                    line = b""
                with self._lock:
                    if self._parked is not None:
                        self._at_the_door(line)
                    else:
                        self._inbox.put(line)
                if not line:
                    return

    def _at_the_door(self, line: bytes) -> None:
        assert self._parked is not None
        if line:
            answer = self._door.answer(line.decode("utf-8", errors="replace").rstrip("\r\n"))
            if answer is None:
                self._parked.append(line)
                self._waiting = self._waiting or _is_request(line)
                return
            try:
                self._wire.write(answer)
                return
            except OSError:
                line = b""  # the client is gone: as at the end of input
        self._parked.append(b"")
        if not self._waiting:
            self._quiet_end()

    def hand_over(self) -> None:
        """From now on lines go to the inbox, the parked ones first."""
        with self._lock:
            for line in self._parked or ():
                self._inbox.put(line)
            self._parked = None


@contextlib.contextmanager
def _claimed_std_fds() -> Iterator[tuple[int, int]]:
    """Private duplicates of fd 0 and 1 for the wire; fd 0 reads /dev/null and fd 1 goes to stderr
    meanwhile. Both are restored on exit."""
    wire_in, wire_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        sys.stdout.flush()
        os.dup2(null, 0)
        os.dup2(2, 1)
        yield wire_in, wire_out
    finally:
        with contextlib.suppress(OSError):
            sys.stdout.flush()
        os.dup2(wire_in, 0)
        os.dup2(wire_out, 1)
        for fd in (null, wire_in, wire_out):
            os.close(fd)


class _Signals:
    """SIGTERM and SIGINT end the session: while loading by raising ``_Stopped`` in the main thread,
    while serving by stopping the inbox. The first one restores the default action, so a second
    signal is not caught. ``quiet_end`` (any thread) is the same as a signal."""

    def __init__(self) -> None:
        self.inbox: _Inbox | None = None
        self._previous: dict[signal.Signals, Any] = {}

    def _on_signal(self, signum: int, frame: object) -> None:
        for sig in _SIGNALS:
            signal.signal(sig, signal.SIG_DFL)
        if self.inbox is None:
            raise _Stopped
        self.inbox.stop()

    def quiet_end(self) -> None:
        _thread.interrupt_main(signal.SIGTERM)

    @contextlib.contextmanager
    def installed(self) -> Iterator[None]:
        for sig in _SIGNALS:
            self._previous[sig] = signal.signal(sig, self._on_signal)
        try:
            yield
        finally:
            for sig, handler in self._previous.items():
                signal.signal(sig, handler)


def _stderr_note(text: str) -> None:
    sys.stderr.write(f"wslmcp: {text}\n")


class _Session:
    """The serving phase on one event loop. Until a line needs the SDK, the front door answers:
    the handshake, ``ping``, ``tools/list`` and the calls it reads (``FrontDoor.call``), each call
    a task of its own; notifications wait for the SDK (their order kept) without loading it; a
    ``notifications/cancelled`` for a call the door runs cancels it (no answer, as the SDK does).
    Any other line loads the SDK (in a thread, so calls in flight go on) and from then on every
    line goes to it, the waiting ones first; the calls the door started finish at the door. At the
    end of input every call still running is cancelled and answered "Connection closed", as the
    SDK answers its own."""

    def __init__(
        self, spec: ServerSpec, door: FrontDoor, inbox: _Inbox, wire: _Wire, say: Callable[[str], None]
    ):
        self._spec, self._door, self._inbox, self._wire, self._say = spec, door, inbox, wire, say
        self._calls: dict[str | int, asyncio.Task[None]] = {}
        self._withdrawn: set[str | int] = set()  # calls the client cancelled: never answered
        self._waiting: list[bytes] = []
        self._sdk: _Inbox | None = None
        self._sdk_task: asyncio.Task[None] | None = None

    async def run(self, lifespan: Lifespan) -> None:
        async with lifespan() as dispatch:
            self._dispatch = dispatch
            try:
                while line := await asyncio.to_thread(self._inbox.get):
                    await self._route(line)
            finally:
                await self._end()

    async def _write(self, line: str) -> None:
        try:
            await asyncio.to_thread(self._wire.write, line)
        except OSError:
            self._inbox.stop()  # the client is gone: end as at EOF

    async def _route(self, line: bytes) -> None:
        text = line.decode("utf-8", errors="replace").rstrip("\r\n")
        note = notification(text)
        if note is not None and (request := cancelled(note)) in self._calls:
            self._withdrawn.add(request)
            self._calls[request].cancel()
            return
        if self._sdk is not None:
            self._sdk.put(line)
            return
        answer = self._door.answer(text)
        if answer is not None:
            await self._write(answer)
            return
        call = self._door.call(text)
        if call is not None and call.id not in self._calls:
            self._start(call, line)
            return
        self._for_sdk(line, load=note is None and bool(text.strip()))  # (a request only it answers)

    def _for_sdk(self, line: bytes, *, load: bool) -> None:
        if self._sdk is not None:
            self._sdk.put(line)
            return
        self._waiting.append(line)
        if load:
            self._load_sdk()

    def _start(self, call: Call, line: bytes) -> None:
        task = asyncio.create_task(self._answer(call, line))
        self._calls[call.id] = task
        task.add_done_callback(lambda _: self._forget(call.id))

    def _forget(self, request: str | int) -> None:
        self._calls.pop(request, None)
        self._withdrawn.discard(request)

    async def _answer(self, call: Call, line: bytes) -> None:
        progress = None if call.progress_token is None else self._progress(call.progress_token)
        assert self._door.negotiated is not None
        try:
            outcome = await answer_call(
                self._spec,
                self._dispatch,
                (call.name, call.arguments),
                progress,
                _hand_over if self._door.asks else None,
                version=self._door.negotiated,
                note=self._say,
            )
        except HandOver:  # it needs a question: the SDK answers it, from the start
            self._for_sdk(line, load=True)
            return
        except asyncio.CancelledError:
            if call.id not in self._withdrawn:
                await self._write(
                    protocol.error_line(call.id, protocol.CONNECTION_CLOSED, "Connection closed")
                )
            raise
        await self._write(answer_line(call.id, outcome))

    def _progress(self, token: str | int) -> Progress:
        async def send(progress: float, total: float | None, message: str | None) -> None:
            await self._write(progress_line(token, progress, total, message))

        return send

    def _load_sdk(self) -> None:
        self._sdk = _Inbox()
        for line in self._waiting:
            self._sdk.put(line)
        self._waiting.clear()
        self._sdk_task = asyncio.create_task(self._serve_sdk(self._sdk))

    async def _serve_sdk(self, inbox: _Inbox) -> None:
        await asyncio.to_thread(importlib.import_module, "wslmcp.serving")  # the SDK: most of a second
        from wslmcp import serving

        serving.quiet_sdk_log(self._say)
        server = serving.build_server(self._spec, self._dispatch, note=self._say)
        await serving.serve(server, inbox, self._wire, opening=self._door.opening_for_sdk(), note=self._say)

    async def _end(self) -> None:
        if self._sdk is not None:
            self._sdk.put(b"")
        running = list(self._calls.values())
        for task in running:
            task.cancel()
        if self._sdk_task is not None:
            running.append(self._sdk_task)
        await asyncio.gather(*running, return_exceptions=True)


async def _hand_over(question: Question) -> Answer:
    """The door's ``Ask``: it cannot ask (only the SDK's session can), so the call goes to the SDK."""
    raise HandOver


def run(spec: ServerSpec, start: Callable[[], Lifespan], *, note: Callable[[str], None] | None = None) -> int:
    """Serve ``spec`` over this process's stdio until EOF, SIGTERM or SIGINT. ``start`` builds the
    area's service (the slow part, run while the front door answers) and returns its lifespan.
    ``note`` receives what is dropped without an answer (default: a line on stderr)."""
    say = note or _stderr_note
    signals = _Signals()
    with _claimed_std_fds() as (wire_in, wire_out), signals.installed():
        wire, inbox = _Wire(wire_out), _Inbox()
        door = FrontDoor(spec, __version__)
        stream = os.fdopen(os.dup(wire_in), "rb", buffering=1 << 16)
        reader = _Reader(stream, door, wire, inbox, signals.quiet_end)
        try:
            reader.start()
            lifespan = start()
            reader.hand_over()
            signals.inbox = inbox
        except _Stopped:
            return 0
        try:
            asyncio.run(_Session(spec, door, inbox, wire, say).run(lifespan))
        except KeyboardInterrupt:  # Windows: Ctrl+C arrives as an exception
            pass
        finally:
            inbox.stop()
        return 0
