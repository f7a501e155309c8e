"""Recording: the scenario writer every recorder writes through (``ScenarioWriter``).

Each boundary's recorder sits next to its replaying twin in ``fakes/`` (one place for the format,
the matcher and the redaction): ``wslmcp.fakes.procfs.RecordingProcSource``,
``wslmcp.fakes.wsl_exe.RecordingWslExe``, ``wslmcp.fakes.mcp_launcher.RecordingMcpLauncher``. The product
command that records each area is ``wslmcp scenario record --area ...``
(``wslmcp.replay.recording``).

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
from wslmcp.boundaries.procfs import ProcSample
from wslmcp.scenario.exchanges import EngineExchange, ProcessExchange
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
        self.keep_cmdlines = keep_cmdlines
        self._start: float | None = None  # t=0 is when the first sample begins
        self._scheduled: int | None = None  # the time a scheduled sample is stamped with
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
            self.manifest["host"]["redactions"] = [
                "process command lines keep argv[0] only",
                "working directories keep the mount point they lie on",
            ]

    @property
    def clock(self) -> Clock:
        """The clock samples are stamped by (t=0 when the first one begins)."""
        return self._clock

    @property
    def root(self) -> Path:
        """Where the scenario is being assembled (renamed to ``out`` by ``commit``)."""
        return self._tmp

    def now_ms(self) -> int:
        """Milliseconds since the first sample began (0 before and at it); while a schedule is set,
        its time."""
        if self._start is None:
            self._start = self._clock.monotonic()
            self.manifest["clock"]["start_wall"] = round(self._clock.wall(), 3)
        if self._scheduled is not None:
            return self._scheduled
        return round((self._clock.monotonic() - self._start) * 1000)

    def schedule(self, t_ms: int | None) -> None:
        """Stamp what is read from now on with the scheduled time ``t_ms`` (a sample's read begins
        then, however late it starts), or again with the clock's time (None)."""
        self._scheduled = t_ms

    def add_procfs(self, sample: ProcSample, t_ms: int) -> None:
        """Write one sample taken at ``t_ms`` (as returned by ``now_ms`` when the read began), as
        given (``wslmcp.fakes.procfs.RecordingProcSource`` redacts it first)."""
        timeline: list[dict[str, Any]] = self.manifest["timeline"]
        if timeline and t_ms <= timeline[-1]["t_ms"]:
            t_ms = timeline[-1]["t_ms"] + 1
        rel = f"samples/{len(timeline):04d}/proc"
        base = self._tmp / rel
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

    def add_exchange(self, boundary: str, record: ProcessExchange | EngineExchange) -> None:
        """Append one recorded exchange (its files already written via ``exchange_file``/``add_file``)."""
        self._exchanges(boundary).append(record.to_json())

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
