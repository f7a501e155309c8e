"""Snapshot selection and coordination: reuse, forced refresh, failures, warm sampling, cancellation."""

from __future__ import annotations

import asyncio

import pytest

from tests.observe.helpers import ScriptedReader, make_service
from wslmcp.boundaries.procfs import ProcUnavailable
from wslmcp.observe.errors import CollectionFailed, SnapshotUnavailable, UnknownResource
from wslmcp.observe.queries import ListOptions, inspect, select


async def test_latest_reuses_a_fresh_snapshot_and_zero_age_forces_a_collection() -> None:
    reader = ScriptedReader()
    service, clock = make_service(reader)
    first = await service.latest(3000)
    clock.advance(3.0)
    assert (await service.latest(3000)) is first  # age 3000 ms <= 3000: inclusive
    forced = await service.latest(0)
    assert forced.snapshot_id != first.snapshot_id
    assert service.collections == 2


async def test_stale_latest_collects_again() -> None:
    service, clock = make_service(ScriptedReader())
    first = await service.latest(3000)
    clock.advance(3.001)
    assert (await service.latest(3000)).snapshot_id != first.snapshot_id


async def test_concurrent_latest_requests_share_one_collection() -> None:
    service, _ = make_service(ScriptedReader())
    a, b = await asyncio.gather(service.latest(3000), service.latest(3000))
    assert a.snapshot_id == b.snapshot_id
    assert service.collections == 1


async def test_concurrent_forced_refreshes_each_collect() -> None:
    service, _ = make_service(ScriptedReader())
    a, b = await asyncio.gather(service.latest(0), service.latest(0))
    assert a.snapshot_id != b.snapshot_id
    assert service.collections == 2


async def test_failed_collection_keeps_last_good_and_is_not_passed_off_as_fresh() -> None:
    reader = ScriptedReader()
    service, _ = make_service(reader)
    good = await service.latest(0)
    reader.fail_next = True
    with pytest.raises(CollectionFailed):
        await service.latest(0)
    assert service.pinned(good.snapshot_id) is good


async def test_pinned_reads_answer_while_a_collection_is_blocked() -> None:
    reader = ScriptedReader()
    service, _ = make_service(reader)
    good = await service.latest(0)
    reader.gate = asyncio.Event()
    refresh = asyncio.ensure_future(service.latest(0))
    await reader.blocked.wait()
    assert service.pinned(good.snapshot_id) is good  # no waiting behind the blocked collection
    reader.gate.set()
    assert (await refresh).snapshot_id != good.snapshot_id


async def test_a_cancelled_request_never_wedges_the_server() -> None:
    reader = ScriptedReader()
    service, _ = make_service(reader)
    reader.gate = asyncio.Event()
    request = asyncio.ensure_future(service.latest(0))
    await reader.blocked.wait()
    request.cancel()
    with pytest.raises(asyncio.CancelledError):
        await request
    reader.gate.set()
    reader.gate = None
    after = await asyncio.wait_for(service.latest(0), 5)
    # the abandoned collection still finished and was stored; the next one followed it
    assert after.sequence == 2


async def test_old_resource_id_is_unknown_in_a_new_snapshot_and_valid_in_its_own() -> None:
    service, _ = make_service(ScriptedReader())
    old = await service.latest(0)
    rid = select(old.catalog.entries, ListOptions(limit=1))[0]["resource_id"]
    new = await service.latest(0)
    with pytest.raises(UnknownResource):
        inspect(new.catalog, rid)
    assert inspect(old.catalog, rid)["resource_id"] == rid


async def test_cold_collection_waits_one_interval_and_reports_its_window() -> None:
    reader = ScriptedReader()
    service, clock = make_service(reader, interval_s=3.0)
    start = clock.monotonic()
    snap = await service.latest(0)
    assert clock.monotonic() - start == pytest.approx(3.0)
    assert snap.meta["sample_window_ms"] == 3000
    assert reader.reads == 2


async def test_warm_forced_refresh_costs_one_sample_and_keeps_the_window_truthful() -> None:
    reader = ScriptedReader()
    service, clock = make_service(reader, interval_s=3.0)
    await service.latest(0)
    clock.advance(7.5)  # the agent thinks for a while
    before = clock.monotonic()
    snap = await service.latest(0)
    assert clock.monotonic() == before  # no interval wait
    assert reader.reads == 3  # one new sample
    assert snap.meta["sample_window_ms"] == 7500


async def test_warm_sample_younger_than_an_interval_waits_only_the_rest() -> None:
    reader = ScriptedReader()
    service, clock = make_service(reader, interval_s=3.0)
    await service.latest(0)
    clock.advance(1.0)
    before = clock.monotonic()
    snap = await service.latest(0)
    assert clock.monotonic() - before == pytest.approx(2.0)
    assert snap.meta["sample_window_ms"] == 3000


async def test_a_warm_sample_past_its_limit_is_not_reused() -> None:
    reader = ScriptedReader()
    service, clock = make_service(reader, interval_s=3.0)
    await service.latest(0)
    clock.advance(31.0)
    snap = await service.latest(0)
    assert reader.reads == 4
    assert snap.meta["sample_window_ms"] == 3000


async def test_expired_snapshot_is_unavailable_by_id() -> None:
    service, clock = make_service(ScriptedReader())
    snap = await service.latest(0)
    clock.advance(60.0)
    with pytest.raises(SnapshotUnavailable):
        service.pinned(snap.snapshot_id)


class FailingLister:
    """wsl.exe answering the listing with a failure of its own."""

    async def running(self) -> list[str]:
        raise ProcUnavailable("listing running WSL distributions: wsl.exe exited with 1: service down")


async def test_a_failed_listing_is_a_warning_and_leaves_wsl_memory_unknown() -> None:
    service, _ = make_service(
        ScriptedReader(), wsl_only=False, lister=FailingLister(), remote=lambda name: ScriptedReader()
    )
    snap = await service.latest(0)
    assert (
        "additional WSL distributions were not sampled: listing running WSL distributions: "
        "wsl.exe exited with 1: service down"
    ) in snap.meta["warnings"]
    wsl = snap.summary["environments"]["wsl"]
    assert wsl["memory_bytes"] is None and wsl["cpu_percent"] is not None
