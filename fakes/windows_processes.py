"""Windows process tables replayed from a scenario's timeline (``timeline[i].windows.file``), and
their recorder. A table file is the ``WindowsTable`` as JSON: ``logical_cpus``,
``memory_total_bytes``, ``memory_available_bytes``, ``cpu_unreadable`` (pids) and ``processes``, a
list of objects with the ``WindowsProcess`` fields (``null`` = unreadable; ``cmdline`` a list)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from wslmcp.boundaries.clock import Clock
from wslmcp.boundaries.windows_processes import WindowsProcess, WindowsProcesses, WindowsTable
from wslmcp.fakes.timeline import append_sample, current_entry, sample_json
from wslmcp.scenario.loader import Scenario
from wslmcp.scenario.recorder import ScenarioWriter

KEY = "windows"


def table_to_json(table: WindowsTable) -> dict[str, Any]:
    processes = [
        {**vars(p), "cmdline": None if p.cmdline is None else list(p.cmdline)} for p in table.processes
    ]
    return {
        "logical_cpus": table.logical_cpus,
        "memory_total_bytes": table.memory_total_bytes,
        "memory_available_bytes": table.memory_available_bytes,
        "cpu_unreadable": list(table.cpu_unreadable),
        "processes": processes,
    }


def table_from_json(doc: Mapping[str, Any]) -> WindowsTable:
    processes = [
        WindowsProcess(**{**p, "cmdline": None if p.get("cmdline") is None else tuple(p["cmdline"])})
        for p in doc["processes"]
    ]
    return WindowsTable(
        processes=processes,
        logical_cpus=int(doc["logical_cpus"]),
        memory_total_bytes=int(doc["memory_total_bytes"]),
        memory_available_bytes=int(doc["memory_available_bytes"]),
        cpu_unreadable=tuple(doc.get("cpu_unreadable", [p.pid for p in processes if p.cpu_seconds is None])),
    )


class FakeWindowsProcesses:
    """Serves the table current at the clock's time (``wslmcp.fakes.timeline.current_entry``)."""

    boundary = "windows_processes"

    def __init__(self, scenario: Scenario, clock: Clock) -> None:
        self._scenario = scenario
        self._clock = clock
        self._cache: dict[int, WindowsTable] = {}

    def read(self) -> WindowsTable:
        entry = current_entry(self._scenario, KEY, self._clock, self.boundary, "a Windows process table")
        if entry.index not in self._cache:
            self._cache[entry.index] = table_from_json(sample_json(self._scenario, entry, KEY))
        return self._cache[entry.index]


class RecordingWindowsProcesses:
    """Record mode: every table the wrapped adapter reads goes into the scenario's timeline
    (command lines cut to argv[0] unless the writer keeps them, as for /proc)."""

    def __init__(
        self, inner: WindowsProcesses, writer: ScenarioWriter, *, keep_cmdlines: bool = False
    ) -> None:
        self._inner = inner
        self._writer = writer
        self._keep_cmdlines = keep_cmdlines

    def read(self) -> WindowsTable:
        t_ms = self._writer.now_ms()
        table = self._inner.read()
        doc = table_to_json(table)
        if not self._keep_cmdlines:
            for p in doc["processes"]:
                if p["cmdline"]:
                    p["cmdline"] = p["cmdline"][:1]
        append_sample(self._writer, KEY, doc, t_ms)
        return table_from_json(doc)  # what the replay will read (redacted as written)
