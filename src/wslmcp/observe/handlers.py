"""What each validated tool call does: pick the snapshot, run the query, shape ``{snapshot, data}``;
for history, ask the rings (``history_queries``) and shape their answers."""

from __future__ import annotations

from typing import Any

from wslmcp.observe.errors import UnknownMetric
from wslmcp.observe.history import METRIC_INDEX, METRICS, History
from wslmcp.observe.history_queries import HistoryQuery, Now, SeriesQuery, history_answer, series_answer
from wslmcp.observe.queries import children, inspect, select
from wslmcp.observe.service import ObserveService
from wslmcp.observe.store import Snapshot
from wslmcp.observe.tools import Call


async def answer(service: ObserveService, call: Call) -> dict[str, Any]:
    """The success payload; operational failures raise ``ObserveError`` subclasses."""
    await service.prepare()
    if call.history is not None:
        return history(service, call.history)
    if call.series is not None:
        return series(service, call.series)
    snap = await _snapshot(service, call)
    data: Any
    if call.tool == "get_system_summary":
        data = snap.summary
    elif call.tool == "inspect_resource":
        assert call.resource_id is not None  # required by the schema
        data = inspect(snap.catalog, call.resource_id)
    elif call.tool == "list_children" or call.resource_id is not None:
        assert call.resource_id is not None
        data = children(snap.catalog, call.resource_id, call.listing)
    else:
        data = select(snap.catalog.entries, call.listing)
    return {"snapshot": snap.meta, "data": data}


async def _snapshot(service: ObserveService, call: Call) -> Snapshot:
    if call.snapshot_id is not None:
        return service.pinned(call.snapshot_id)
    return await service.latest(call.max_age_ms)


def _rings(service: ObserveService) -> tuple[History, Now]:
    clock = service.clock
    sampler = service.sampler
    if sampler is None:  # a service built without history (tests of the snapshot tools)
        empty = History(0, 1.0, clock.monotonic(), int(clock.wall() * 1000))
        return empty, Now(clock.monotonic(), int(clock.wall() * 1000), {}, "history is off")
    sampler.events.current_top()
    now = Now(clock.monotonic(), int(clock.wall() * 1000), sampler.alive, sampler.why_disabled)
    return sampler.history, now


def history(service: ObserveService, query: HistoryQuery) -> dict[str, Any]:
    rings, now = _rings(service)
    snap = service.history_snapshot() if rings.frames else None
    payload = history_answer(
        rings, query, now, lambda key: service.resource_id(snap, key) if snap is not None else None
    )
    if any("resource_id" in entry for entry in payload["top"]) and snap is not None:
        payload["snapshot_id"] = snap.snapshot_id
    return payload


def series(service: ObserveService, query: SeriesQuery) -> dict[str, Any]:
    if query.metric not in METRIC_INDEX:
        raise UnknownMetric(query.metric, METRICS)
    rings, now = _rings(service)
    return series_answer(rings, query, now)
