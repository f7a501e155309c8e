"""The collector with a Windows side (the process-table twin on a scenario timeline): host CPU
count and scope, --wsl-only on a Windows-native server, the VM host parenting WSL rows, and a CPU
count that changes mid-collection."""

from __future__ import annotations

import json
from pathlib import Path

from tests.observe.helpers import ScriptedReader
from tests.observe.windows_scenarios import table, windows_processes
from wslmcp.boundaries.windows_processes import WindowsTable
from wslmcp.fakes.clock import FakeClock
from wslmcp.fakes.windows_processes import FakeWindowsProcesses
from wslmcp.observe.catalog import build_catalog
from wslmcp.observe.collector import Collector, CollectorConfig
from wslmcp.observe.host import HostRaw, host_side
from wslmcp.observe.observation import WINDOWS_WSL_ONLY_WARNING
from wslmcp.observe.sources import HostSources
from wslmcp.scenario.loader import Scenario


def tables(tmp: Path, cpus: list[int] | None = None) -> Scenario:
    timeline = []
    for i in range(3):
        doc = table(windows_processes(), i)
        if cpus:
            doc["logical_cpus"] = cpus[i]
        (tmp / f"w{i}.json").write_text(json.dumps(doc))
        timeline.append({"t_ms": 3000 * i, "windows": {"file": f"w{i}.json"}})
    manifest = {
        "schema": "wslmcp-scenario/1.0",
        "name": "t",
        "description": "d",
        "source": "hand-written",
        "timeline": timeline,
        "hold_last_ms": 60000,
    }
    (tmp / "scenario.json").write_text(json.dumps(manifest))
    return Scenario.load(tmp)


def collector(tmp: Path, *, wsl_only: bool, cpus: list[int] | None = None) -> Collector:
    clock = FakeClock(0.0)
    config = CollectorConfig(interval_s=3.0, wsl_only=wsl_only, docker=False, wslc=False)
    sources = HostSources(windows=FakeWindowsProcesses(tables(tmp, cpus), clock))
    return Collector(clock, config, ScriptedReader(), sources=sources)


async def test_the_windows_side_sets_the_scale_and_parents_wsl_rows_under_the_vm_host(tmp_path: Path) -> None:
    c = collector(tmp_path, wsl_only=False)
    obs = await c.collect()
    assert c.cpu_scope == "windows_host" and obs.summary.host_logical_cpu_count == 16
    wsl_rows, windows_rows, _ = obs.projections
    host = next(r for r in windows_rows if r.name == "vmmemWSL")
    assert host.identity.kind == "host" and all(r.parents == (host.identity,) for r in wsl_rows)
    env = obs.summary.environments["windows"]
    assert env is not None and env.cpu_percent is not None
    assert any(
        "Host CPU partition counters unavailable" in w for w in obs.warnings
    )  # no counters: breakdown null, said why
    assert obs.summary.cpu_breakdown is None


async def test_wsl_only_on_windows_uses_the_windows_cpu_count_without_attribution(tmp_path: Path) -> None:
    c = collector(tmp_path, wsl_only=True)
    obs = await c.collect()
    assert obs.summary.host_logical_cpu_count == 16 and c.cpu_scope == "windows_host"
    assert WINDOWS_WSL_ONLY_WARNING in obs.warnings
    assert obs.projections[1] == () and obs.summary.environments["windows"] is None
    assert obs.summary.host_memory is None and obs.summary.cpu_breakdown is None
    assert all(r.parents == () for r in obs.projections[0])  # no host row to hang them on
    build_catalog(1, obs.projections, 16, epoch="e")  # a consistent hierarchy


def test_a_cpu_count_change_is_flagged_and_nulls_the_windows_rates(tmp_path: Path) -> None:
    s = tables(tmp_path, cpus=[16, 8, 8])
    clock = FakeClock(0.0)
    fake = FakeWindowsProcesses(s, clock)
    a: WindowsTable = fake.read()
    clock.advance(3.0)
    b = fake.read()
    side = host_side(HostRaw(0.0, a, None), HostRaw(3.0, b, None))
    assert side.cpu_count_changed and side.environment is None
    assert any("logical CPU count changed" in w for w in side.warnings)
