"""wsl.exe replayed from a scenario's recorded exchanges (``FakeWslExe``), and recorded into them
(``RecordingWslExe``): the pair, its matcher (exact args + stdin SHA-256) and its encodings."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

from fakes.replay import ReplayMiss, closest_first
from wslmcp.boundaries.process import FEED_BYTES, ByteSink, ByteSource, ByteStream, Exchange, Looks, Stdin
from wslmcp.boundaries.wsl_exe import WSL_OWN_FAILURE, WslCall, WslExe, wsl_output_encoding
from wslmcp.scenario.loader import Scenario
from wslmcp.scenario.recorder import ScenarioWriter


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


async def _drain(stream: ByteStream, digest: Any) -> None:
    """Take a live call's stdin to its end, hashing it."""
    while piece := await stream.receive():
        digest.update(piece)


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
        self._items: list[Mapping[str, Any]] = list(
            scenario.manifest.get("exchanges", {}).get(self.boundary, [])
        )
        self._served: dict[tuple[tuple[str, ...], str | None], int] = {}
        self.calls: list[tuple[str, ...]] = []

    async def run(self, call: WslCall) -> Exchange:
        await asyncio.sleep(0)
        args, max_output = call.args, call.max_output
        self.calls.append(tuple(args))
        live = call.looks is not None
        digest = None if live else stdin_digest(call.stdin)
        matches = [
            i
            for i, item in enumerate(self._items)
            if item["args"] == list(args)
            and ("looks" in item if live else item.get("stdin_sha256") == digest and "looks" not in item)
        ]
        if not matches:
            asked = f"{self.executable} {' '.join(args)[:200]}"
            offered = [f"{self.executable} {' '.join(item['args'])[:120]}" for item in self._items]
            if self._on_miss is not None:
                self._on_miss(args)
            raise ReplayMiss(self.boundary, self._scenario.name, asked, closest_first(asked, offered))
        key = (tuple(args), digest)
        n = self._served.get(key, 0)
        self._served[key] = n + 1
        item = self._items[matches[min(n, len(matches) - 1)]]
        out = self._bytes(item, "stdout")
        err = self._bytes(item, "stderr")
        timed_out = bool(item.get("timed_out", False))
        exchange = Exchange(
            argv=(self.executable, *args),
            stdout=b"" if call.stdout_sink is not None else out[:max_output],
            stderr=err[:max_output],
            exit_code=None if timed_out else item.get("exit_code", 0),
            duration_s=int(item.get("duration_ms", 0)) / 1000.0,
            timed_out=timed_out,
            stdout_total=max(len(out), int(item.get("stdout_total", 0))),
            stderr_total=max(len(err), int(item.get("stderr_total", 0))),
            overflowed=bool(item.get("overflowed", False)),
        )
        if call.looks is not None:
            return await self._live(call, call.looks, item, out[:max_output], exchange)
        if call.stdout_sink is not None:
            call.stdout_sink(out[:max_output])
        return exchange

    async def _live(
        self, call: WslCall, looks: Looks, item: Mapping[str, Any], out: bytes, exchange: Exchange
    ) -> Exchange:
        """A live call as recorded: by each look, the stdout that had passed by that look (handed to
        the sink then) and its end (``looks.ended``), so the caller reads what it read when recorded."""
        marks = [(int(i), int(n), bool(ended)) for i, n, ended in item["looks"]]
        sink = call.stdout_sink
        delivered = 0
        ended = asyncio.Event()

        def on_look() -> None:
            nonlocal delivered
            passed = [(n, end) for i, n, end in marks if i <= looks.count]
            upto, end = passed[-1] if passed else (0, False)
            if upto > delivered and sink is not None:
                sink(out[delivered:upto])
                delivered = upto
            if end and not ended.is_set():
                looks.ended = exchange
                ended.set()

        looks.hook(on_look)
        stream = call.stdin if call.stdin is not None and hasattr(call.stdin, "receive") else None
        feeding = (
            asyncio.ensure_future(_drain(cast("ByteStream", stream), hashlib.sha256())) if stream else None
        )
        try:
            await ended.wait()
        finally:
            if feeding is not None:
                feeding.cancel()
                await asyncio.gather(feeding, return_exceptions=True)
        return exchange

    def _bytes(self, item: Mapping[str, Any], stream: str) -> bytes:
        return self._scenario.file(item[stream]).read_bytes() if stream in item else b""


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
    ``fakes.wsl_exe.FakeWslExe`` replays: args, stdin SHA-256, raw stdout/stderr files with declared
    encodings, exit code, duration, deadline and overflow flags, and totals past the capture limit.
    Streamed stdin is hashed as it passes; streamed stdout is written to its file as it passes."""

    boundary = "wsl_exe"

    def __init__(self, inner: WslExe, writer: ScenarioWriter) -> None:
        self.inner = inner
        self.writer = writer

    async def run(self, call: WslCall) -> Exchange:
        if call.looks is not None:
            return await self._live(call, call.looks)
        args, stdin, stdout_sink = call.args, call.stdin, call.stdout_sink
        source = (
            None if stdin is None or isinstance(stdin, bytes) else _HashingSource(cast("ByteSource", stdin))
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

            ex = await self.inner.run(replace(call, stdin=source or stdin, stdout_sink=tee))
            if stdout_sink is None:
                out_file.write(ex.stdout)
        digest = None
        if source is not None:
            digest = source.drain()
        elif isinstance(stdin, bytes):
            digest = hashlib.sha256(stdin).hexdigest()
        self.writer.add_exchange(self.boundary, self._item(args, digest, ex, out_rel, out_path))
        return ex

    async def _live(self, call: WslCall, looks: Looks) -> Exchange:
        """A live call (``looks``): its stdout streams to its file as it passes, and each look notes
        how many bytes had passed and whether the caller had seen the end (the replay's marks)."""
        out_rel, out_path = self.writer.exchange_file(self.boundary, "stdout")
        marks: list[list[Any]] = []
        passed = 0
        sink = call.stdout_sink

        def on_look() -> None:
            mark = [passed, looks.ended is not None]
            if not marks or marks[-1][1:] != mark:
                marks.append([looks.count, *mark])

        stream = _HashingStream(cast("ByteStream", call.stdin)) if hasattr(call.stdin, "receive") else None
        with open(out_path, "wb") as out_file:  # noqa: ASYNC230 - a recording's own file

            def tee(data: bytes) -> None:
                nonlocal passed
                out_file.write(data)
                passed += len(data)
                if sink is not None:
                    sink(data)

            looks.hook(on_look)
            ex = await self.inner.run(replace(call, stdin=stream or call.stdin, stdout_sink=tee))
        item = self._item(call.args, None, ex, out_rel, out_path)
        item["looks"] = marks
        if stream is not None:
            item["stdin_sha256"] = stream.digest.hexdigest()
        self.writer.add_exchange(self.boundary, item)
        return ex

    def _item(
        self, args: Sequence[str], digest: str | None, ex: Exchange, out_rel: str, out_path: Path
    ) -> dict[str, Any]:
        item: dict[str, Any] = {"args": list(args)}
        if digest is not None:
            item["stdin_sha256"] = digest
        err_rel, err_path = self.writer.exchange_file(self.boundary, "stderr")
        err_path.write_bytes(ex.stderr)
        for stream, rel, path, total in (
            ("stdout", out_rel, out_path, ex.stdout_total),
            ("stderr", err_rel, err_path, ex.stderr_total),
        ):
            size = path.stat().st_size
            if not size:
                path.unlink()
                continue
            with open(path, "rb") as f:
                head = f.read(1 << 16)
            item[stream] = rel
            item[f"{stream}_encoding"] = declared_encoding(args, ex.exit_code, head)
            if total > size:
                item[f"{stream}_total"] = total
        item["exit_code"] = ex.exit_code
        item["duration_ms"] = round(ex.duration_s * 1000)
        if ex.timed_out:
            item["timed_out"] = True
        if ex.overflowed:
            item["overflowed"] = True
        return item
