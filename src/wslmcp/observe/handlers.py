"""What each tool call does: parse it, pick the snapshot, run the query, shape ``{snapshot, data}``.
Answers carry the payload as ``structuredContent`` and the same JSON as text (an error's payload
is ``{"error": {"code", "message"}}``)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

from wslmcp.catalogue import Dispatch, Progress, Reply
from wslmcp.observe.errors import ObserveError
from wslmcp.observe.queries import children, inspect, select
from wslmcp.observe.service import ObserveService
from wslmcp.observe.store import Snapshot
from wslmcp.observe.tools import Call, parse_call


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


def json_answer(payload: dict[str, Any], *, is_error: bool = False) -> Reply:
    return Reply(json.dumps(payload, ensure_ascii=False, separators=(",", ":")), payload, is_error)


def dispatch(service: ObserveService) -> Dispatch:
    async def call(tool: str, arguments: Mapping[str, Any], progress: Progress | None) -> Reply:
        parsed = parse_call(tool, arguments)  # raises InvalidArguments before anything is collected
        try:
            return json_answer(await answer(service, parsed))
        except ObserveError as exc:
            return json_answer({"error": {"code": exc.code, "message": str(exc)}}, is_error=True)

    return call


@asynccontextmanager
async def running(service: ObserveService) -> AsyncIterator[Dispatch]:
    """The service while the server runs."""
    yield dispatch(service)
