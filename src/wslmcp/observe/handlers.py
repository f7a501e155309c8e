"""What each validated tool call does: pick the snapshot, run the query, shape ``{snapshot, data}``."""

from __future__ import annotations

from typing import Any

from wslmcp.observe.queries import children, inspect, select
from wslmcp.observe.service import ObserveService
from wslmcp.observe.store import Snapshot
from wslmcp.observe.tools import Call


async def answer(service: ObserveService, call: Call) -> dict[str, Any]:
    """The success payload; operational failures raise ``ObserveError`` subclasses."""
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
