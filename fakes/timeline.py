"""Timeline samples of one boundary (``timeline[i].<key>``): which one is current, and writing one."""

from __future__ import annotations

import json
from typing import Any

from wslmcp.boundaries.clock import Clock
from wslmcp.fakes.replay import ReplayMiss
from wslmcp.scenario.loader import Scenario, TimelineEntry
from wslmcp.scenario.recorder import ScenarioWriter


def current_entry(scenario: Scenario, key: str, clock: Clock, boundary: str, what: str) -> TimelineEntry:
    """The ``key`` sample whose window holds the clock's time: sample *i* is current from its ``t_ms``
    until the next ``key`` sample's; the last one until ``t_ms + hold_last_ms``. Else a ``ReplayMiss``."""
    now_ms = round(clock.monotonic() * 1000.0, 6)
    entries = [e for e in scenario.timeline if key in e.data]
    for i, entry in enumerate(entries):
        end = entries[i + 1].t_ms if i + 1 < len(entries) else entry.t_ms + scenario.hold_last_ms + 0.001
        if entry.t_ms <= now_ms < end:
            return entry
    offered = [f"t={e.t_ms} ms" for e in entries]
    if entries:
        offered.append(f"(the last sample is held until t={entries[-1].t_ms + scenario.hold_last_ms} ms)")
    raise ReplayMiss(boundary, scenario.name, f"{what} at t={now_ms:.0f} ms", offered)


def sample_json(scenario: Scenario, entry: TimelineEntry, key: str) -> Any:
    return json.loads(scenario.file(entry.data[key]["file"]).read_text(encoding="utf-8"))


def append_sample(writer: ScenarioWriter, key: str, document: Any, t_ms: int) -> None:
    """Write ``document`` as ``samples/NNNN/<key>.json`` and add a timeline entry taken at ``t_ms``
    (moved 1 ms past the previous entry when it would not be later)."""
    timeline: list[dict[str, Any]] = writer.manifest["timeline"]
    if timeline and t_ms <= timeline[-1]["t_ms"]:
        t_ms = timeline[-1]["t_ms"] + 1
    rel = f"samples/{len(timeline):04d}/{key}.json"
    writer.add_file(rel, (json.dumps(document, separators=(",", ":")) + "\n").encode())
    timeline.append({"t_ms": t_ms, key: {"file": rel}})
