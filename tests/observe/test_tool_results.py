"""Tool listing, success payloads and every operational error code, through the real SDK server."""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from tests.in_process import observe_server as build_server
from tests.observe.helpers import ScriptedReader, make_service
from wslmcp.fakes.clock import FakeClock
from wslmcp.observe.errors import CollectionFailed
from wslmcp.observe.model import CpuScope, EnvObservation, Identity, Observation, Observed, Summary
from wslmcp.observe.service import ObserveService
from wslmcp.observe.store import SnapshotStore
from wslmcp.observe.tools import TOOL_NAMES


def payload(result: Any) -> dict[str, Any]:
    assert json.loads(result.content[0].text) == result.structured_content
    return dict(result.structured_content)


async def test_exactly_six_read_only_tools_with_closed_schemas() -> None:
    service, _ = make_service(ScriptedReader())
    async with Client(build_server(service)) as client:
        tools = (await client.list_tools()).tools
        assert [t.name for t in tools] == list(TOOL_NAMES) == [
            "get_system_summary", "list_resources", "inspect_resource", "list_children", "get_history",
            "get_metric_series",
        ]  # fmt: skip
        for tool in tools:
            assert tool.description
            assert tool.input_schema["additionalProperties"] is False
            assert tool.annotations is not None
            assert tool.annotations.read_only_hint is True
            assert tool.annotations.destructive_hint is False
            assert tool.annotations.open_world_hint is False
        required = {t.name: t.input_schema["required"] for t in tools}
        assert required["inspect_resource"] == required["list_children"] == ["snapshot_id", "resource_id"]
        instructions = client.instructions or ""
        for rule in ("snapshot_id", "observation-scoped", "never add", "null means not observed", "paging"):
            assert rule in instructions
        for rule in ("get_history", "after the fact", "during my build", "evidence, not proof"):
            assert rule in instructions


async def test_tools_list_rejects_a_cursor() -> None:
    service, _ = make_service(ScriptedReader())
    async with Client(build_server(service)) as client:
        with pytest.raises(MCPError) as err:
            await client.session.list_tools(params=types.PaginatedRequestParams(cursor="next"))
    assert err.value.code == -32602


async def test_success_has_snapshot_and_data_with_identical_metadata_across_tools() -> None:
    service, _ = make_service(ScriptedReader())
    async with Client(build_server(service)) as client:
        listed = payload(await client.call_tool("list_resources", {"max_age_ms": 0, "limit": 1}))
        sid = listed["snapshot"]["snapshot_id"]
        rid = listed["data"][0]["resource_id"]
        inspected = payload(
            await client.call_tool("inspect_resource", {"snapshot_id": sid, "resource_id": rid})
        )
        kids = payload(await client.call_tool("list_children", {"snapshot_id": sid, "resource_id": rid}))
        summary = payload(await client.call_tool("get_system_summary", {"snapshot_id": sid}))
    assert listed["snapshot"] == inspected["snapshot"] == kids["snapshot"] == summary["snapshot"]
    assert listed["snapshot"]["resource_id_scope"] == "observation"
    assert inspected["data"] == listed["data"][0]
    assert kids["data"] == []  # nothing observed under a WSL process: no PID ancestry is guessed
    assert set(summary["data"]) == {
        "host_logical_cpu_count", "host_cpu_percent", "cpu_breakdown", "cpu_overlap_unresolved",
        "host_memory", "environments", "pressure",
    }  # fmt: skip
    assert list(summary["data"]["environments"]) == ["windows", "wsl", "wslc", "docker"]


async def _error(service: ObserveService, tool: str, args: dict[str, Any]) -> str:
    async with Client(build_server(service)) as client:
        result = await client.call_tool(tool, args)
    assert result.is_error is True
    body = payload(result)
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}
    return str(body["error"]["code"])


async def test_snapshot_unavailable() -> None:
    service, _ = make_service(ScriptedReader())
    assert await _error(service, "get_system_summary", {"snapshot_id": "missing"}) == "snapshot_unavailable"


async def test_unknown_resource() -> None:
    service, _ = make_service(ScriptedReader())
    snap = await service.latest(0)
    args = {"snapshot_id": snap.snapshot_id, "resource_id": "1234"}  # a bare PID is not a resource ID
    assert await _error(service, "inspect_resource", args) == "unknown_resource"


async def test_unknown_parent() -> None:
    service, _ = make_service(ScriptedReader())
    snap = await service.latest(0)
    args = {"snapshot_id": snap.snapshot_id, "parent": "r1-nope"}
    assert await _error(service, "list_resources", args) == "unknown_resource"


async def test_collection_failed_keeps_the_last_good_snapshot() -> None:
    reader = ScriptedReader()
    service, _ = make_service(reader)
    good = await service.latest(0)
    reader.fail_next = True
    assert await _error(service, "get_system_summary", {"max_age_ms": 0}) == "collection_failed"
    assert service.pinned(good.snapshot_id) is good


class CraftedCollector:
    """A collector double that hands over prepared rows (for catalog failures /proc cannot produce)."""

    def __init__(self, clock: FakeClock, rows: list[Observed]) -> None:
        self._clock, self._rows = clock, rows

    @property
    def cpu_scope(self) -> CpuScope:
        return "wsl_visible"

    async def collect(self) -> Observation:
        summary = Summary(4, None, False, None, {"wsl": EnvObservation(None, 0)})
        now = self._clock.monotonic()
        return Observation((tuple(self._rows),), summary, (), 3000, now, self._clock.wall())


def row(pid: int, parents: tuple[Identity, ...] = ()) -> Observed:
    ident = Identity("wsl", "process", None, str(pid), pid)
    return Observed(ident, f"p{pid}", pid, 1, None, 0.0, 1.0, 4096, parents)


def crafted(rows: list[Observed]) -> ObserveService:
    clock = FakeClock(10.0)
    return ObserveService(SnapshotStore(clock, "t"), CraftedCollector(clock, rows))


async def test_ambiguous_resource_rejects_the_snapshot() -> None:
    service = crafted([row(1), row(1)])
    assert await _error(service, "get_system_summary", {"max_age_ms": 0}) == "ambiguous_resource"
    assert len(service.store) == 0 and service.store.next_sequence == 1


async def test_invalid_hierarchy_for_a_cycle() -> None:
    a, b = row(1).identity, row(2).identity
    service = crafted([row(1, (b,)), row(2, (a,))])
    assert await _error(service, "list_resources", {"max_age_ms": 0}) == "invalid_hierarchy"
    assert len(service.store) == 0


async def test_invalid_hierarchy_for_self_parenting() -> None:
    service = crafted([row(1, (row(1).identity,))])
    assert await _error(service, "get_system_summary", {"max_age_ms": 0}) == "invalid_hierarchy"


async def test_observed_children_are_listed_and_a_shared_child_has_two_parents() -> None:
    p1, p2 = row(1), row(2)
    child = row(3, (p1.identity, p2.identity))
    service = crafted([p1, p2, child])
    snap = await service.latest(0)
    ids = {e.json["usage"]["pid"]: e.resource_id for e in snap.catalog.entries}
    async with Client(build_server(service)) as client:
        kids = payload(
            await client.call_tool("list_children", {"snapshot_id": snap.snapshot_id, "resource_id": ids[1]})
        )
        via_parent = payload(
            await client.call_tool("list_resources", {"snapshot_id": snap.snapshot_id, "parent": ids[2]})
        )
    assert [k["resource_id"] for k in kids["data"]] == [ids[3]]
    assert kids["data"][0]["parent_ids"] == [ids[1], ids[2]]
    assert via_parent["data"] == kids["data"]


def test_collection_failed_is_the_stable_code() -> None:
    assert CollectionFailed.code == "collection_failed"
