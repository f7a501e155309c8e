"""Recording: wrap a real adapter, write what passes through in the scenario format.

The scenario is assembled in a temporary directory beside the target and renamed into place only
when complete, so an interrupted recording never leaves a half-written scenario, and an existing
non-empty directory is never overwritten.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from wslmcp import __version__
from wslmcp.boundaries.clock import Clock
from wslmcp.boundaries.procfs import ProcSample, ProcSource
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
        self._start_wall = clock.wall()
        self.manifest: dict[str, Any] = {
            "schema": SCHEMA,
            "name": name,
            "description": description,
            "source": "recorded",
            "recorded_at": datetime.fromtimestamp(self._start_wall, UTC).isoformat(timespec="seconds"),
            "recorder": f"wslmcp {__version__}",
            "host": {
                "system": platform.system(),
                "release": platform.release(),
                "machine": platform.machine(),
            },
            "clock": {"start_wall": round(self._start_wall, 3)},
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


async def record(
    source: ProcSource, writer: ScenarioWriter, clock: Clock, duration_s: float, interval_ms: int
) -> Path:
    """Sample ``source`` every ``interval_ms`` for ``duration_s`` (at least two samples)."""
    recording = RecordingProcSource(source, writer)
    try:
        for i in range(max(2, int(duration_s * 1000 // interval_ms) + 1)):
            if i:
                await clock.sleep(interval_ms / 1000)
            recording.read_sample()
        writer.expect({"kind": "procfs-replay"})
        return writer.commit()
    except BaseException:
        writer.abort()
        raise
