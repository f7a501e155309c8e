"""The Engine warmer on real time: it keeps a fresh Docker round while clients are active, a
collection takes that round instead of asking the daemon, and it stops once clients go quiet."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.observe.engine_answers import item, listing, stats, stats_item, top, top_item
from wslmcp.boundaries.clock import SystemClock
from wslmcp.fakes.docker_api import DEFAULT_ENDPOINT, EngineRecording, FakeDockerApi
from wslmcp.observe.warm import EngineWarmer

S = 1_000_000_000


def api() -> FakeDockerApi:
    items = [
        item("/containers/json", listing("web"), duration_ms=10),
        stats_item(0, stats("web", 0, (9 * S, 100 * S), (8 * S, 92 * S)), duration_ms=30),
        top_item(0, top((7, 1, 100, "00:00:01", "nginx", "nginx"))),
    ]
    return FakeDockerApi(EngineRecording("t", Path("."), items), SystemClock(), DEFAULT_ENDPOINT)


async def _until(cond: object, rounds: int = 500) -> None:
    for _ in range(rounds):
        if cond():  # type: ignore[operator]
            return
        await asyncio.sleep(0.01)
    raise AssertionError("condition never held")


async def test_a_touched_warmer_keeps_a_fresh_round_and_goes_quiet_when_idle() -> None:
    warmer = EngineWarmer(SystemClock(), api(), deadline_s=2.0, idle_after_s=0.3, period_s=0.05)
    assert warmer.fresh(1.5) is None  # nothing until a client is active
    warmer.touch()
    await _until(lambda: warmer.rounds >= 2)
    got = warmer.fresh(1.5)
    assert got is not None and got.containers is not None and len(got.containers) == 1
    task = warmer._task
    assert task is not None
    await asyncio.wait_for(task, 10)  # no touch for idle_after_s: it stops by itself
    stopped_at = warmer.rounds
    await asyncio.sleep(0.1)
    assert warmer.rounds == stopped_at
    await warmer.aclose()


async def test_wslc_rounds_are_kept_warm_too(tmp_path: Path) -> None:
    import json

    from tests.observe.test_wslc import LISTED, STATS, scenario
    from wslmcp.fakes.wslc import FakeWslc

    wslc = FakeWslc(scenario(tmp_path, json.dumps(LISTED).encode(), json.dumps(STATS).encode()))
    warmer = EngineWarmer(SystemClock(), None, deadline_s=2.0, idle_after_s=0.2, period_s=0.05, wslc=wslc)
    assert warmer.fresh_wslc(1.5) is None
    warmer.touch()
    await _until(lambda: warmer.rounds >= 1)
    got = warmer.fresh_wslc(1.5)
    assert got is not None and len(got.containers or {}) == 2 and warmer.fresh(1.5) is None
    await warmer.aclose()
