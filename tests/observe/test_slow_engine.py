"""A hung Docker daemon bounds a collection and never holds up pinned reads (real time, the real
Engine adapter against the stand-in, which accepts the hung request and never answers)."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

from tests.observe.helpers import ScriptedReader
from tests.standins.engine import EngineStandin
from wslmcp.boundaries.clock import SystemClock
from wslmcp.boundaries.docker_api import DockerEndpoint
from wslmcp.boundaries.docker_engine import EngineApi
from wslmcp.observe.collector import ENGINE_TICK_S, Collector, CollectorConfig
from wslmcp.observe.service import ObserveService
from wslmcp.observe.sources import HostSources
from wslmcp.observe.store import SnapshotStore


async def test_pinned_reads_answer_while_a_hung_daemon_holds_a_collection() -> None:
    items: list[dict[str, Any]] = [
        {"path": "/containers/json", "json": []},
        {"path": "/containers/json", "json": []},
        {"path": "/containers/json", "error": "timeout", "message": "hang"},
    ]
    with tempfile.TemporaryDirectory(dir="/tmp") as tmp:
        standin = EngineStandin(Path(tmp) / "e.sock", items)
        await standin.start()
        try:
            clock = SystemClock()
            api = EngineApi(DockerEndpoint(standin.url, "test"))
            config = CollectorConfig(interval_s=0.1, wsl_only=True, docker=True, wslc=False)
            collector = Collector(clock, config, ScriptedReader(), sources=HostSources(docker=api))
            service = ObserveService(SnapshotStore(clock, "t"), collector)
            first = await service.latest(0)
            refresh = asyncio.ensure_future(service.latest(0))
            await asyncio.sleep(0.3)  # the refresh is now waiting on the hung daemon
            assert service.pinned(first.snapshot_id) is first
            assert not refresh.done()
            second = await asyncio.wait_for(refresh, 30)  # bounded by the Engine deadline
            assert any("Docker:" in w for w in second.meta["warnings"])
            assert second.summary["environments"]["docker"] is None
        finally:
            await standin.stop()


async def test_one_hung_container_costs_only_that_container() -> None:
    from tests.observe.engine_answers import cid, item, listing, stats, stats_item, top, top_item
    from wslmcp.observe.docker import sample

    s = 1_000_000_000
    items: list[dict[str, Any]] = [
        item("/containers/json", listing("web", "db")),
        stats_item(0, stats("web", 0, (9 * s, 100 * s), (8 * s, 92 * s))),
        {
            "path": f"/containers/{cid(1)}/stats",
            "query": {"stream": "false"},
            "error": "timeout",
            "message": "hang",
        },
        top_item(0, top((100, 1, 4096, "00:00:09", "nginx", "nginx: worker process"))),
        top_item(1, top((200, 1, 8192, "00:00:01", "postgres", "postgres -D /data"))),
    ]
    with tempfile.TemporaryDirectory(dir="/tmp") as tmp:
        standin = EngineStandin(Path(tmp) / "e.sock", items)
        await standin.start()
        try:
            got = await sample(EngineApi(DockerEndpoint(standin.url, "test")), 0.0, 3.0)
        finally:
            await standin.stop()
    assert got.failure is None and set(got.containers or {}) == {cid(0)}  # web answered: it stays
    assert got.incomplete  # db's stats are unknown, so the Docker total is too
    assert any(w.startswith("Docker container db: stats unavailable") for w in got.warnings), got.warnings


async def test_a_short_interval_still_waits_the_two_ticks_a_stats_answer_takes() -> None:
    """dockerd answers ``stream=false`` at its second tick after the request: asked just after a tick,
    that is nearly two seconds. The engine deadline of a 200 ms interval covers it; the two-second
    deadline such an interval once had loses the container (``--interval-ms 200``, forced refresh)."""
    from tests.observe.engine_answers import cid, item, listing, stats, stats_item, top, top_item
    from wslmcp.observe.docker import sample

    s = 1_000_000_000

    def answers() -> list[dict[str, Any]]:
        return [
            item("/containers/json", listing("web")),
            stats_item(0, stats("web", 0, (9 * s, 100 * s), (8 * s, 92 * s))),
            top_item(0, top((100, 1, 4096, "00:00:09", "nginx", "nginx: worker process"))),
        ]

    deadline = CollectorConfig(interval_s=0.2).engine_deadline_s
    got = {}
    for label, seconds in (("old", 2.0), ("now", deadline)):
        with tempfile.TemporaryDirectory(dir="/tmp") as tmp:
            standin = EngineStandin(Path(tmp) / "e.sock", answers(), tick_s=ENGINE_TICK_S)
            await standin.start()  # its ticks count from here: the request comes just after one
            try:
                got[label] = await sample(EngineApi(DockerEndpoint(standin.url, "test")), 0.0, seconds)
            finally:
                await standin.stop()
    assert got["old"].containers == {} or got["old"].incomplete  # the harm: the container's stats were lost
    assert got["now"].failure is None and not got["now"].incomplete
    assert set(got["now"].containers or {}) == {cid(0)}


async def test_a_daemon_with_no_running_containers_is_said_not_left_silent() -> None:
    from wslmcp.observe.containers import NO_RUNNING_CONTAINERS

    items: list[dict[str, Any]] = [{"path": "/containers/json", "json": []}] * 2
    with tempfile.TemporaryDirectory(dir="/tmp") as tmp:
        standin = EngineStandin(Path(tmp) / "e.sock", items)
        await standin.start()
        try:
            clock = SystemClock()
            api = EngineApi(DockerEndpoint(standin.url, "test"))
            config = CollectorConfig(interval_s=0.1, wsl_only=True, docker=True, wslc=False)
            collector = Collector(clock, config, ScriptedReader(), sources=HostSources(docker=api))
            snap = await ObserveService(SnapshotStore(clock, "t"), collector).latest(0)
        finally:
            await standin.stop()
    assert snap.summary["environments"]["docker"] is None
    assert NO_RUNNING_CONTAINERS in snap.meta["warnings"]
