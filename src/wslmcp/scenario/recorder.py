"""Recording: wrap a real adapter, write what passes through in the scenario format.

The scenario is assembled in a temporary directory beside the target and renamed into place only
when complete, so an interrupted recording never leaves a half-written scenario, and an existing
non-empty directory is never overwritten.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from wslmcp import __version__
from wslmcp.boundaries.clock import Clock
from wslmcp.boundaries.process import FEED_BYTES, ByteSink, ByteSource, Exchange
from wslmcp.boundaries.procfs import ProcSample, ProcSource
from wslmcp.boundaries.wsl_exe import WSL_OWN_FAILURE, WslCall, WslExe, wsl_output_encoding
from wslmcp.scenario.loader import sample_digest
from wslmcp.scenario.manifest import MANIFEST_NAME, SCHEMA


class RecordingRefused(ValueError):
    """The output location cannot take a new scenario."""


class ScenarioWriter:
    def __init__(
        self, out: Path, name: str, description: str, clock: Clock, *, keep_cmdlines: bool = False
    ) -> None:
        if out.exists() and (not out.is_dir() or any(out.iterdir())):
            raise RecordingRefused(f"{out} already exists and is not an empty directory; nothing was written")
        parent = out.resolve().parent
        if not parent.is_dir():
            raise RecordingRefused(f"{parent} does not exist; nothing was written")
        self.out = out
        self._tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.recording-", dir=parent))
        self._clock = clock
        self._keep_cmdlines = keep_cmdlines
        self._start: float | None = None  # t=0 is when the first sample begins
        start_wall = clock.wall()
        self.manifest: dict[str, Any] = {
            "schema": SCHEMA,
            "name": name,
            "description": description,
            "source": "recorded",
            "recorded_at": datetime.fromtimestamp(start_wall, UTC).isoformat(timespec="seconds"),
            "recorder": f"wslmcp {__version__}",
            "host": {
                "system": platform.system(),
                "release": platform.release(),
                "machine": platform.machine(),
            },
            "clock": {"start_wall": round(start_wall, 3)},
            "timeline": [],
            "expect": [],
        }
        if not keep_cmdlines:
            self.manifest["host"]["redactions"] = ["process command lines keep argv[0] only"]

    def now_ms(self) -> int:
        """Milliseconds since the first sample began (0 before and at it)."""
        if self._start is None:
            self._start = self._clock.monotonic()
            self.manifest["clock"]["start_wall"] = round(self._clock.wall(), 3)
        return round((self._clock.monotonic() - self._start) * 1000)

    def add_procfs(self, sample: ProcSample, t_ms: int) -> None:
        """Write one sample taken at ``t_ms`` (as returned by ``now_ms`` when the read began)."""
        timeline: list[dict[str, Any]] = self.manifest["timeline"]
        if timeline and t_ms <= timeline[-1]["t_ms"]:
            t_ms = timeline[-1]["t_ms"] + 1
        rel = f"samples/{len(timeline):04d}/proc"
        base = self._tmp / rel
        if not self._keep_cmdlines:
            sample = redact_cmdlines(sample)
        for path, data in sample.files.items():
            target = base / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        base.mkdir(parents=True, exist_ok=True)
        proc = {"dir": rel, "clk_tck": sample.clk_tck, "page_size": sample.page_size}
        timeline.append({"t_ms": t_ms, "procfs": {**proc, "sha256": sample_digest(sample)}})

    def exchange_file(self, boundary: str, stream: str) -> tuple[str, Path]:
        """Where the next exchange of ``boundary`` keeps ``stream``: (path relative to the scenario,
        path to write now)."""
        index = len(self._exchanges(boundary))
        rel = f"exchanges/{boundary}/{index:03d}.{stream}"
        path = self._tmp / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        return rel, path

    def add_file(self, rel: str, data: bytes) -> None:
        """Write a file of the scenario (expected replies, fixtures) at ``rel``."""
        if Path(rel).is_absolute() or ".." in Path(rel).parts:
            raise RecordingRefused(f"{rel!r} is not a path inside the scenario")
        path = self._tmp / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)

    def add_exchange(self, boundary: str, item: dict[str, Any]) -> None:
        """Append one recorded exchange (its stream files already written via ``exchange_file``)."""
        self._exchanges(boundary).append(item)

    def _exchanges(self, boundary: str) -> list[dict[str, Any]]:
        exchanges: list[dict[str, Any]] = self.manifest.setdefault("exchanges", {}).setdefault(boundary, [])
        return exchanges

    def expect(self, check: dict[str, Any]) -> None:
        self.manifest["expect"].append(check)

    def abort(self) -> None:
        shutil.rmtree(self._tmp, ignore_errors=True)

    def commit(self) -> Path:
        (self._tmp / MANIFEST_NAME).write_text(json.dumps(self.manifest, indent=2) + "\n", encoding="utf-8")
        if self.out.exists():
            self.out.rmdir()  # empty, checked at construction
        os.replace(self._tmp, self.out)
        return self.out


def redact_cmdlines(sample: ProcSample) -> ProcSample:
    """Keep only argv[0] of every command line: arguments and inline environments can hold secrets."""
    files = {
        path: (data.split(b"\0", 1)[0] + b"\0" if data and path.endswith("/cmdline") else data)
        for path, data in sample.files.items()
    }
    return ProcSample.build(files, clk_tck=sample.clk_tck, page_size=sample.page_size)


class RecordingProcSource:
    """A ``ProcSource`` that writes every sample it hands out into a scenario."""

    def __init__(self, inner: ProcSource, writer: ScenarioWriter) -> None:
        self._inner = inner
        self._writer = writer

    def read_sample(self) -> ProcSample:
        t_ms = self._writer.now_ms()
        sample = self._inner.read_sample()
        self._writer.add_procfs(sample, t_ms)
        return sample


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
        self.writer.add_exchange(self.boundary, self._item(args, digest, ex, out_rel, out_path))
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


async def record(
    source: ProcSource, writer: ScenarioWriter, clock: Clock, duration_s: float, interval_ms: int
) -> Path:
    """Sample ``source`` every ``interval_ms`` for ``duration_s`` (at least two samples). Samples
    start on a fixed schedule, so the time a read takes does not push the later ones back."""
    recording = RecordingProcSource(source, writer)
    try:
        start = clock.monotonic()
        for i in range(max(2, int(duration_s * 1000 // interval_ms) + 1)):
            if i:
                await clock.sleep(start + i * interval_ms / 1000 - clock.monotonic())
            recording.read_sample()
        writer.expect({"kind": "procfs-replay"})
        return writer.commit()
    except BaseException:
        writer.abort()
        raise
