"""What each tool call does: parse it, pick the snapshot, run the query, shape ``{snapshot, data}``;
for history, ask the rings (``history_queries``) and shape their answers. Answers carry the payload
as ``structuredContent`` and the same JSON as text (an error's payload is the exception's
``payload()``: ``{"error": {"code", "message"}}``, and for an unknown metric the names it keeps)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any

from wslmcp.catalogue import Ask, Dispatch, Progress, Reply, json_reply
from wslmcp.observe.errors import ObserveError, UnknownMetric
from wslmcp.observe.history import METRIC_INDEX, METRICS, History, Key
from wslmcp.observe.history_queries import HistoryQuery, Now, SeriesQuery, history_answer, series_answer
from wslmcp.observe.queries import children, inspect, select
from wslmcp.observe.service import ObserveService
from wslmcp.observe.store import Snapshot
from wslmcp.observe.tools import Call, parse_call


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
    sampler.recorded()
    sampler.events.current_top()
    now = Now(clock.monotonic(), int(clock.wall() * 1000), sampler.alive, sampler.why_disabled)
    return sampler.history, now


def history(service: ObserveService, query: HistoryQuery) -> dict[str, Any]:
    rings, now = _rings(service)
    chosen: list[Snapshot] = []

    def resource_ids(keys: Sequence[Key]) -> dict[Key, str]:
        """The living consumers' IDs in the latest snapshot that holds them all (see the service)."""
        snap = service.history_snapshot(keys) if keys else None
        found = {
            k: rid for k in keys if snap is not None and (rid := service.resource_id(snap, k)) is not None
        }
        if found and snap is not None:
            chosen.append(snap)
        return found

    payload = history_answer(rings, query, now, resource_ids)
    if chosen:
        payload["snapshot_id"] = chosen[0].snapshot_id
    return payload


def series(service: ObserveService, query: SeriesQuery) -> dict[str, Any]:
    if query.metric not in METRIC_INDEX:
        raise UnknownMetric(query.metric, METRICS)
    rings, now = _rings(service)
    return series_answer(rings, query, now)


def dispatch(service: ObserveService) -> Dispatch:
    async def call(
        tool: str, arguments: Mapping[str, Any], progress: Progress | None, ask: Ask | None = None
    ) -> Reply:
        parsed = parse_call(tool, arguments)  # raises InvalidArguments before anything is collected
        try:
            return json_reply(await answer(service, parsed))
        except ObserveError as exc:
            return json_reply(exc.payload(), is_error=True)

    return call


@asynccontextmanager
async def running(service: ObserveService) -> AsyncIterator[Dispatch]:
    """The service while the server runs: the history sampler in the background (real time)."""
    async with service.running():
        yield dispatch(service)
