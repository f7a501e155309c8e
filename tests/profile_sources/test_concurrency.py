"""Eight real stdio servers that each take 1 s to answer are queried at once.

Asserted structurally, never by wall time: the pool's peak in-flight count, and the overlap of
the [start, answered] intervals the servers themselves record (a shared monotonic clock).
"""

from __future__ import annotations

from pathlib import Path

from wslmcp.boundaries.mcp_stdio import StdioMcpLauncher
from wslmcp.profile.model import ConfiguredServer
from wslmcp.profile.querying import PoolStats, query_all

from .conftest import PYTHON, SERVER


def _servers(trace: Path, n: int, sleep_s: str = "1") -> list[ConfiguredServer]:
    return [
        ConfiguredServer(
            cli="claude-code",
            name=f"slow{i}",
            scope="user",
            source_path="/h/.claude.json",
            transport="stdio",
            command=PYTHON,
            args=(SERVER, "--sleep", sleep_s, "--trace", str(trace)),
        )
        for i in range(n)
    ]


def _peak_overlap(trace: Path) -> int:
    events: dict[str, dict[str, float]] = {}
    for line in trace.read_text().splitlines():
        event, stamp, pid = line.split()
        events.setdefault(pid, {})[event] = float(stamp)
    intervals = [(e["start"], e["answered"]) for e in events.values()]
    points = sorted([(s, 1) for s, _ in intervals] + [(a, -1) for _, a in intervals])
    peak = level = 0
    for _, step in points:
        level += step
        peak = max(peak, level)
    return peak


def test_eight_slow_servers_run_concurrently(tmp_path: Path) -> None:
    trace = tmp_path / "trace.log"
    stats = PoolStats()
    results = query_all(StdioMcpLauncher(), _servers(trace, 8), timeout_s=20.0, concurrency=8, stats=stats)
    assert all(r.ok and r.tool_count == 2 for r in results.values()), results
    assert stats.max_in_flight == 8
    assert _peak_overlap(trace) == 8


def test_a_pool_of_two_never_overlaps_more_than_two(tmp_path: Path) -> None:
    trace = tmp_path / "trace.log"
    servers = _servers(trace, 4, sleep_s="0.2")
    stats = PoolStats()
    results = query_all(StdioMcpLauncher(), servers, timeout_s=20.0, concurrency=2, stats=stats)
    assert all(r.ok for r in results.values())
    assert stats.max_in_flight == 2
    assert _peak_overlap(trace) <= 2
