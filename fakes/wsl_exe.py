"""wsl.exe replayed from a scenario's recorded exchanges (``FakeWslExe``), and recorded into them
(``RecordingWslExe``): the pair, its matcher (exact args + stdin SHA-256) and its encodings."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

from wslmcp.boundaries.process import FEED_BYTES, ByteSink, ByteSource, ByteStream, Exchange, Looks, Stdin
from wslmcp.boundaries.procfs_wsl import EARLIER_SAMPLE_SCRIPTS, SAMPLE_SCRIPT_SHA256
from wslmcp.boundaries.wsl_exe import WSL_OWN_FAILURE, WslCall, WslExe, wsl_output_encoding
from wslmcp.fakes.replay import ReplayMiss, closest_first
from wslmcp.scenario.exchanges import Look, ProcessExchange, Stream
from wslmcp.scenario.loader import Scenario
from wslmcp.scenario.recorder import ScenarioWriter
from wslmcp.scenario.script_versions import as_today


def stdin_digest(stdin: Stdin) -> str | None:
    """SHA-256 of what stdin carries; a ``ByteSource`` is read to its end, a piece at a time (a live
    ``ByteStream`` has no digest before its call ends)."""
    if stdin is None:
        return None
    if isinstance(stdin, bytes):
        return hashlib.sha256(stdin).hexdigest()
    if hasattr(stdin, "receive"):
        return None
    digest = hashlib.sha256()
    while piece := stdin.read(FEED_BYTES):
        digest.update(piece)
    return digest.hexdigest()


def same_script(digest: str | None) -> str | None:
    """A stdin digest as the matcher compares it: an earlier version of the /proc sample script
    stands for today's (``procfs_wsl.EARLIER_SAMPLE_SCRIPTS``), so a recording made with it still
    answers a sample request; its frames hold the files that version read."""
    return SAMPLE_SCRIPT_SHA256 if digest in EARLIER_SAMPLE_SCRIPTS else digest


def same_args(args: tuple[str, ...]) -> tuple[str, ...]:
    """Recorded args as the matcher compares them: a script of an earlier version reads as today's
    (``script_versions``), so a recording made with it still answers today's request."""
    return (*args[:-1], as_today(args[-1])) if args else args


async def _drain(stream: ByteStream, digest: Any) -> None:
    """Take a live call's stdin to its end, hashing it."""
    while piece := await stream.receive():
        digest.update(piece)


def _live_stdin(stdin: Stdin) -> ByteStream | None:
    return cast("ByteStream", stdin) if hasattr(stdin, "receive") else None


class FakeWslExe:
    """Answers a request whose args and stdin digest match a recorded exchange.

    Identical requests recorded several times are answered in recorded order; once they are used
    up the last answer repeats (a host query asked again). Anything else is a ``ReplayMiss``.
    Streamed stdin (a ``ByteSource``) is read to its end to be hashed; ``stdout_sink`` and
    ``stderr_sink`` receive the recorded streams. Totals past the recorded capture (``stdout_total``/``stderr_total``), the
    deadline (``timed_out``) and the output cap (``overflowed``) are replayed as recorded. A live
    call (``looks``: a background process) matches a recorded one with looks by its args alone, and
    hands over its stdout look by look as recorded (``_live``).
    (``scenarios/*/exchanges`` are written by ``RecordingWslExe`` below: one place for the
    format, the matcher (exact args + stdin SHA-256) and the encodings.)
    """

    boundary = "wsl_exe"
    executable = "wsl.exe"

    def __init__(self, scenario: Scenario, on_miss: Callable[[Sequence[str]], None] | None = None) -> None:
        self._scenario = scenario
        self._on_miss = on_miss  # told the argument vector of every miss (the replay's run tokens)
        self._items = [
            replace(item, args=same_args(item.args)) for item in scenario.process_exchanges(self.boundary)
        ]
        self._served: dict[tuple[tuple[str, ...], str | None], int] = {}
        self.calls: list[tuple[str, ...]] = []

    async def run(self, call: WslCall) -> Exchange:
        await asyncio.sleep(0)
        args, max_output = call.args, call.max_output
        self.calls.append(tuple(args))
        live = call.looks is not None
        digest = None if live else same_script(stdin_digest(call.stdin))
        key = (tuple(args), digest)
        matches = [
            item
            for item in self._items
            if item.args == key[0]
            and (
                item.looks is not None
                if live
                else item.looks is None and same_script(item.stdin_sha256) == digest
            )
        ]
        if not matches:
            asked = f"{self.executable} {_ends(' '.join(args))}"
            offered = [f"{self.executable} {' '.join(item.args)[:120]}" for item in self._items]
            if self._on_miss is not None:
                self._on_miss(args)
            raise ReplayMiss(self.boundary, self._scenario.name, asked, closest_first(asked, offered))
        n = self._served.get(key, 0)
        self._served[key] = n + 1
        item = matches[min(n, len(matches) - 1)]
        out, err = self._bytes(item.stdout), self._bytes(item.stderr)
        exchange = Exchange(
            argv=(self.executable, *args),
            stdout=b"" if call.stdout_sink is not None else out[:max_output],
            stderr=b"" if call.stderr_sink is not None else err[:max_output],
            exit_code=None if item.timed_out else item.exit_code,
            duration_s=item.duration_ms / 1000.0,
            timed_out=item.timed_out,
            stdout_total=_total(item.stdout, out),
            stderr_total=_total(item.stderr, err),
            overflowed=item.overflowed,
            killed=item.killed,
        )
        if call.looks is not None:
            return await _live(call, call.looks, item.looks or (), out[:max_output], exchange)
        if call.stdout_sink is not None:
            call.stdout_sink(out[:max_output])
        if call.stderr_sink is not None:
            call.stderr_sink(err[:max_output])
        return exchange

    def _bytes(self, stream: Stream | None) -> bytes:
        return b"" if stream is None else self._scenario.file(stream.file).read_bytes()


async def _live(
    call: WslCall, looks: Looks, marks: tuple[Look, ...], out: bytes, exchange: Exchange
) -> Exchange:
    """A live call as recorded: by each look, the stdout that had passed by that look (handed to the
    sink then) and its end (``looks.ended``), so the caller reads what it read when recorded."""
    sink = call.stdout_sink
    delivered = 0
    ended = asyncio.Event()

    def on_look() -> None:
        nonlocal delivered
        seen = [mark for mark in marks if mark.count <= looks.count]
        upto, end = (seen[-1].passed, seen[-1].ended) if seen else (0, False)
        if upto > delivered and sink is not None:
            sink(out[delivered:upto])
            delivered = upto
        if end and not ended.is_set():
            looks.ended = exchange
            ended.set()

    looks.hook(on_look)
    stdin = _live_stdin(call.stdin)
    feeding = asyncio.ensure_future(_drain(stdin, hashlib.sha256())) if stdin is not None else None
    try:
        await ended.wait()
    finally:
        if feeding is not None:
            feeding.cancel()
            await asyncio.gather(feeding, return_exceptions=True)
    return exchange


def _ends(text: str, keep: int = 120) -> str:
    """``text``, or its start and its end when it is long (a command's script ends with its command)."""
    return text if len(text) <= 2 * keep else f"{text[:keep]} … {text[-keep:]}"


def _total(stream: Stream | None, data: bytes) -> int:
    """What the program wrote to a stream: the recorded bytes, or the total recorded past them."""
    return len(data) if stream is None or stream.total is None else max(len(data), stream.total)


def declared_encoding(args: Sequence[str], exit_code: int | None, data: bytes) -> str:
    """How a wsl.exe stream is encoded: a Linux command's output is raw ``bytes``; wsl.exe's own
    messages (no ``--exec``, or its own failure) are ``utf-16le`` or ``utf-8``."""
    if "--exec" in args and exit_code not in WSL_OWN_FAILURE:
        return "bytes"
    return wsl_output_encoding(data)


class _HashingSource:
    """Passes a ``ByteSource`` through while hashing it."""

    def __init__(self, inner: ByteSource) -> None:
        self.inner = inner
        self.digest = hashlib.sha256()

    def read(self, n: int, /) -> bytes:
        data = self.inner.read(n)
        self.digest.update(data)
        return data

    def drain(self) -> str:
        """The digest of everything the source holds (what the callee did not read is read now)."""
        while data := self.read(FEED_BYTES):
            del data
        return self.digest.hexdigest()


class _HashingStream:
    """Passes a live ``ByteStream`` through while hashing it."""

    def __init__(self, inner: ByteStream) -> None:
        self.inner = inner
        self.digest = hashlib.sha256()

    async def receive(self) -> bytes:
        data = await self.inner.receive()
        self.digest.update(data)
        return data


class RecordingWslExe:
    """A ``WslExe`` that writes every exchange of the wrapped one into a scenario, in the format
    ``wslmcp.fakes.wsl_exe.FakeWslExe`` replays: args, stdin SHA-256, raw stdout/stderr files with declared
    encodings, exit code, duration, deadline and overflow flags, and totals past the capture limit.
    Streamed stdin is hashed as it passes; streamed stdout is written to its file as it passes. A
    live call (``looks``) also records, at each look, how much stdout had passed and whether the
    caller had seen its end."""

    boundary = "wsl_exe"

    def __init__(self, inner: WslExe, writer: ScenarioWriter) -> None:
        self.inner = inner
        self.writer = writer
        self._lives = 0

    async def run(self, call: WslCall) -> Exchange:
        if call.looks is not None:
            return await self._live(call, call.looks)
        args, stdin, stdout_sink = call.args, call.stdin, call.stdout_sink
        # input fed as it comes, outside a live call, is matched without a digest (as the twin matches it)
        fed = _live_stdin(stdin) is not None
        source = (
            None
            if stdin is None or isinstance(stdin, bytes) or fed
            else _HashingSource(cast("ByteSource", stdin))
        )
        out_rel, out_path = self.writer.exchange_file(self.boundary, "stdout")
        # a local file of the recording, written as stdout streams through (recording is a dev tool)
        with open(out_path, "wb") as out_file:  # noqa: ASYNC230
            tee: ByteSink | None = None
            if stdout_sink is not None:
                sink = stdout_sink

                def tee(data: bytes) -> None:
                    out_file.write(data)
                    sink(data)

            err_sink, err_seen = call.stderr_sink, bytearray()
            tee_err: ByteSink | None = None
            if err_sink is not None:

                def tee_err(data: bytes) -> None:
                    err_seen.extend(data)
                    err_sink(data)

            ex = await self.inner.run(
                replace(call, stdin=source or stdin, stdout_sink=tee, stderr_sink=tee_err)
            )
            if stdout_sink is None:
                out_file.write(ex.stdout)
        digest = None
        if source is not None:
            digest = source.drain()
        elif isinstance(stdin, bytes):
            digest = hashlib.sha256(stdin).hexdigest()
        kept = replace(ex, stderr=bytes(err_seen)) if err_sink is not None else ex
        self.writer.add_exchange(self.boundary, self._record(args, digest, kept, out_rel, out_path))
        return ex

    async def _live(self, call: WslCall, looks: Looks) -> Exchange:
        """A live call: its stdout streams to its file as it passes, and each look that finds the
        call changed notes how many bytes had passed and whether the caller had seen the end (the
        adapter sets ``looks.ended`` as it returns, so the look after the return is the first to)."""
        self._lives += 1  # its file is named now, before the exchanges recorded while it runs
        out_rel, out_path = self.writer.exchange_file(self.boundary, f"live{self._lives}.stdout")
        marks: list[Look] = []
        passed = 0
        sink = call.stdout_sink

        def on_look() -> None:
            if not marks or (marks[-1].passed, marks[-1].ended) != (passed, looks.ended is not None):
                marks.append(Look(looks.count, passed, looks.ended is not None))

        live = _live_stdin(call.stdin)
        stream = _HashingStream(live) if live is not None else None
        with open(out_path, "wb") as out_file:  # noqa: ASYNC230 - a recording's own file

            def tee(data: bytes) -> None:
                nonlocal passed
                out_file.write(data)
                passed += len(data)
                if sink is not None:
                    sink(data)

            looks.hook(on_look)
            ex = await self.inner.run(replace(call, stdin=stream or call.stdin, stdout_sink=tee))
        if not marks or not marks[-1].ended:  # from the next look on the caller sees the end
            marks.append(Look(looks.count + 1, passed, True))
        digest = stream.digest.hexdigest() if stream is not None else None
        record = replace(self._record(call.args, digest, ex, out_rel, out_path), looks=tuple(marks))
        self.writer.add_exchange(self.boundary, record)
        return ex

    def _record(
        self, args: Sequence[str], digest: str | None, ex: Exchange, out_rel: str, out_path: Path
    ) -> ProcessExchange:
        err_rel, err_path = self.writer.exchange_file(self.boundary, "stderr")
        err_path.write_bytes(ex.stderr)
        return ProcessExchange(
            tuple(args),
            digest,
            stdout=self._stream(args, ex, out_rel, out_path, ex.stdout_total),
            stderr=self._stream(args, ex, err_rel, err_path, ex.stderr_total),
            exit_code=ex.exit_code,
            duration_ms=round(ex.duration_s * 1000),
            timed_out=ex.timed_out,
            overflowed=ex.overflowed,
            killed=ex.killed,
        )

    @staticmethod
    def _stream(args: Sequence[str], ex: Exchange, rel: str, path: Path, total: int) -> Stream | None:
        """The stream written to ``path``, or None (and no file) when it is empty."""
        size = path.stat().st_size
        if not size:
            path.unlink()
            return None
        with open(path, "rb") as f:
            head = f.read(1 << 16)
        return Stream(rel, declared_encoding(args, ex.exit_code, head), total if total > size else None)
