"""wsl.exe replayed from a scenario's recorded exchanges (``FakeWslExe``), and recorded into them
(``RecordingWslExe``): the pair, its matcher (exact args + stdin SHA-256) and its encodings."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from fakes.replay import ReplayMiss, closest_first
from wslmcp.boundaries.process import FEED_BYTES, ByteSink, ByteSource, Exchange, Stdin
from wslmcp.boundaries.wsl_exe import WSL_OWN_FAILURE, WslCall, WslExe, wsl_output_encoding
from wslmcp.scenario.exchanges import ProcessExchange, Stream
from wslmcp.scenario.loader import Scenario
from wslmcp.scenario.recorder import ScenarioWriter


def stdin_digest(stdin: Stdin) -> str | None:
    """SHA-256 of what stdin carries; a ``ByteSource`` is read to its end, a piece at a time."""
    if stdin is None:
        return None
    if isinstance(stdin, bytes):
        return hashlib.sha256(stdin).hexdigest()
    digest = hashlib.sha256()
    while piece := stdin.read(FEED_BYTES):
        digest.update(piece)
    return digest.hexdigest()


class FakeWslExe:
    """Answers a request whose args and stdin digest match a recorded exchange.

    Identical requests recorded several times are answered in recorded order; once they are used
    up the last answer repeats (a host query asked again). Anything else is a ``ReplayMiss``.
    Streamed stdin (a ``ByteSource``) is read to its end to be hashed; ``stdout_sink`` receives the
    recorded stdout. Totals past the recorded capture (``stdout_total``/``stderr_total``), the
    deadline (``timed_out``) and the output cap (``overflowed``) are replayed as recorded.
    (``scenarios/*/exchanges`` are written by ``RecordingWslExe`` below: one place for the
    format, the matcher (exact args + stdin SHA-256) and the encodings.)
    """

    boundary = "wsl_exe"
    executable = "wsl.exe"

    def __init__(self, scenario: Scenario, on_miss: Callable[[Sequence[str]], None] | None = None) -> None:
        self._scenario = scenario
        self._on_miss = on_miss  # told the argument vector of every miss (the replay's run tokens)
        self._items = scenario.process_exchanges(self.boundary)
        self._served: dict[tuple[tuple[str, ...], str | None], int] = {}
        self.calls: list[tuple[str, ...]] = []

    async def run(self, call: WslCall) -> Exchange:
        await asyncio.sleep(0)
        args, max_output = call.args, call.max_output
        self.calls.append(tuple(args))
        digest = stdin_digest(call.stdin)
        key = (tuple(args), digest)
        matches = [item for item in self._items if (item.args, item.stdin_sha256) == key]
        if not matches:
            asked = f"{self.executable} {' '.join(args)[:200]}"
            offered = [f"{self.executable} {' '.join(item.args)[:120]}" for item in self._items]
            if self._on_miss is not None:
                self._on_miss(args)
            raise ReplayMiss(self.boundary, self._scenario.name, asked, closest_first(asked, offered))
        n = self._served.get(key, 0)
        self._served[key] = n + 1
        item = matches[min(n, len(matches) - 1)]
        out, err = self._bytes(item.stdout), self._bytes(item.stderr)
        kept = out[:max_output]
        if call.stdout_sink is not None:
            call.stdout_sink(kept)
            kept = b""
        return Exchange(
            argv=(self.executable, *args),
            stdout=kept,
            stderr=err[:max_output],
            exit_code=None if item.timed_out else item.exit_code,
            duration_s=item.duration_ms / 1000.0,
            timed_out=item.timed_out,
            stdout_total=_total(item.stdout, out),
            stderr_total=_total(item.stderr, err),
            overflowed=item.overflowed,
        )

    def _bytes(self, stream: Stream | None) -> bytes:
        return b"" if stream is None else self._scenario.file(stream.file).read_bytes()


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


class RecordingWslExe:
    """A ``WslExe`` that writes every exchange of the wrapped one into a scenario, in the format
    ``fakes.wsl_exe.FakeWslExe`` replays: args, stdin SHA-256, raw stdout/stderr files with declared
    encodings, exit code, duration, deadline and overflow flags, and totals past the capture limit.
    Streamed stdin is hashed as it passes; streamed stdout is written to its file as it passes."""

    boundary = "wsl_exe"

    def __init__(self, inner: WslExe, writer: ScenarioWriter) -> None:
        self.inner = inner
        self.writer = writer

    async def run(self, call: WslCall) -> Exchange:
        args, stdin, stdout_sink = call.args, call.stdin, call.stdout_sink
        source = None if stdin is None or isinstance(stdin, bytes) else _HashingSource(stdin)
        out_rel, out_path = self.writer.exchange_file(self.boundary, "stdout")
        # a local file of the recording, written as stdout streams through (recording is a dev tool)
        with open(out_path, "wb") as out_file:  # noqa: ASYNC230
            tee: ByteSink | None = None
            if stdout_sink is not None:
                sink = stdout_sink

                def tee(data: bytes) -> None:
                    out_file.write(data)
                    sink(data)

            ex = await self.inner.run(replace(call, stdin=source or stdin, stdout_sink=tee))
            if stdout_sink is None:
                out_file.write(ex.stdout)
        digest = None
        if source is not None:
            digest = source.drain()
        elif isinstance(stdin, bytes):
            digest = hashlib.sha256(stdin).hexdigest()
        self.writer.add_exchange(self.boundary, self._record(args, digest, ex, out_rel, out_path))
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
