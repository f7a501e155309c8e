"""Every argument rule of the four tools: JSON-RPC invalid params (-32602) before any collection.

Each rule is its own test case, run through the real SDK server in process (the same dispatch
as over stdio); tests/observe/test_stdio.py repeats them over a real stdio connection.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from tests.in_process import observe_server as build_server
from tests.observe.helpers import ScriptedReader, make_service
from wslmcp.front_door import Fault, argument_error
from wslmcp.observe.tools import SERVER as OBSERVE
from wslmcp.observe.tools import parse_call

INVALID: list[tuple[str, str, dict[str, Any]]] = [
    ("unknown key", "list_resources", {"surprise": 1}),
    ("limit on the summary", "get_system_summary", {"limit": 1}),
    ("max_age_ms on inspect", "inspect_resource", {"snapshot_id": "s", "resource_id": "r", "max_age_ms": 0}),
    ("parent on list_children", "list_children", {"snapshot_id": "s", "resource_id": "r", "parent": "p"}),
    ("null max_age_ms", "get_system_summary", {"max_age_ms": None}),
    ("null snapshot_id", "list_resources", {"snapshot_id": None}),
    ("null limit", "list_resources", {"limit": None}),
    ("limit as string", "list_resources", {"limit": "5"}),
    ("fractional limit", "list_resources", {"limit": 1.5}),
    ("integral float limit", "list_resources", {"limit": 5.0}),
    ("boolean limit", "list_resources", {"limit": True}),
    ("negative limit", "list_resources", {"limit": -1}),
    ("limit over 1000", "list_resources", {"limit": 1001}),
    ("negative max_age_ms", "get_system_summary", {"max_age_ms": -1}),
    ("fractional max_age_ms", "get_system_summary", {"max_age_ms": 0.5}),
    ("numeric snapshot_id", "get_system_summary", {"snapshot_id": 7}),
    ("both selectors", "get_system_summary", {"snapshot_id": "s", "max_age_ms": 0}),
    ("both selectors on list", "list_resources", {"snapshot_id": "s", "max_age_ms": 3000}),
    ("inspect without snapshot_id", "inspect_resource", {"resource_id": "r"}),
    ("inspect without resource_id", "inspect_resource", {"snapshot_id": "s"}),
    ("children without resource_id", "list_children", {"snapshot_id": "s"}),
    ("children without snapshot_id", "list_children", {"resource_id": "r"}),
    ("parent without snapshot_id", "list_resources", {"parent": "r"}),
    ("empty snapshot_id", "get_system_summary", {"snapshot_id": ""}),
    ("empty resource_id", "inspect_resource", {"snapshot_id": "s", "resource_id": ""}),
    ("empty parent", "list_resources", {"snapshot_id": "s", "parent": ""}),
    ("snapshot_id too long", "get_system_summary", {"snapshot_id": "x" * 16385}),
    ("resource_id too long", "inspect_resource", {"snapshot_id": "s", "resource_id": "名" * 16385}),
    ("name_contains 1025 chars", "list_resources", {"name_contains": "名" * 1025}),
    ("bad sort_by", "list_resources", {"sort_by": "pid"}),
    ("bad sort_order", "list_resources", {"sort_order": "sideways"}),
    ("bad environment", "list_resources", {"environment": "bad"}),
    (
        "bad resource_kind",
        "list_children",
        {"snapshot_id": "s", "resource_id": "r", "resource_kind": "residual"},
    ),
    ("enum is case-sensitive", "list_resources", {"sort_by": "CPU"}),
    ("window under 10 s", "get_history", {"window_s": 9}),
    ("window over an hour", "get_metric_series", {"metric": "host.cpu_percent", "window_s": 3601}),
    ("top 0", "get_history", {"top": 0}),
    ("top over 50", "get_history", {"top": 51}),
    ("by pid", "get_history", {"by": "pid"}),
    ("history of hosts", "get_history", {"resource_kind": "host"}),
    ("history snapshot", "get_history", {"snapshot_id": "s"}),
    ("null window", "get_history", {"window_s": None}),
    ("series without metric", "get_metric_series", {}),
    ("empty metric", "get_metric_series", {"metric": ""}),
    ("one point", "get_metric_series", {"metric": "host.cpu_percent", "points": 1}),
    ("121 points", "get_metric_series", {"metric": "host.cpu_percent", "points": 121}),
    ("agg sum", "get_metric_series", {"metric": "host.cpu_percent", "agg": "sum"}),
]

VALID: list[tuple[str, str, dict[str, Any]]] = [
    ("name_contains 1024 multibyte chars", "list_resources", {"name_contains": "名" * 1024}),
    ("empty name_contains", "list_resources", {"name_contains": ""}),
    ("snapshot_id 16384 chars", "get_system_summary", {"snapshot_id": "名" * 16384}),
    ("limit 0", "list_resources", {"limit": 0}),
    ("limit 1000", "list_resources", {"limit": 1000}),
    ("parent with snapshot_id", "list_resources", {"snapshot_id": "s", "parent": "r"}),
    ("no arguments", "get_system_summary", {}),
    ("history with defaults", "get_history", {}),
    (
        "history at the limits",
        "get_history",
        {"window_s": 3600, "top": 50, "by": "memory", "resource_kind": "container"},
    ),
    (
        "series at the limits",
        "get_metric_series",
        {"metric": "x", "window_s": 10, "points": 120, "agg": "max"},
    ),
]


@pytest.mark.parametrize(("tool", "args"), [(t, a) for _, t, a in INVALID], ids=[n for n, _, _ in INVALID])
async def test_invalid_arguments_are_refused_before_collection_in_both_protocol_forms(
    tool: str, args: dict[str, Any]
) -> None:
    """From 2025-11-25 on a tool error coded invalid_arguments (the SDK client speaks a later
    revision), and JSON-RPC -32602 before it; nothing is collected either way."""
    reader = ScriptedReader()
    service, _ = make_service(reader)
    async with Client(build_server(service)) as client:
        result = await client.call_tool(tool, args)
    assert result.is_error is True
    message = result.structured_content["error"]["message"]
    assert message.startswith(f"invalid arguments for {tool}: ")
    assert result.structured_content == {"error": {"code": "invalid_arguments", "message": message}}
    assert json.loads(result.content[0].text) == result.structured_content  # observe's one text form
    assert reader.reads == 0
    before = argument_error(
        OBSERVE, tool, message.removeprefix(f"invalid arguments for {tool}: "), "2025-06-18"
    )
    assert isinstance(before, Fault) and before.code == -32602


@pytest.mark.parametrize(("tool", "args"), [(t, a) for _, t, a in VALID], ids=[n for n, _, _ in VALID])
def test_valid_arguments_parse(tool: str, args: dict[str, Any]) -> None:
    call = parse_call(tool, args)
    assert call.tool == tool


def test_missing_arguments_object_is_an_empty_one() -> None:
    assert parse_call("get_system_summary", None).max_age_ms == 3000


def test_parent_selects_children_like_list_children() -> None:
    call = parse_call("list_resources", {"snapshot_id": "s", "parent": "r", "limit": 3})
    assert (call.resource_id, call.listing.limit) == ("r", 3)


async def test_an_unknown_tool_is_jsonrpc_invalid_params() -> None:
    reader = ScriptedReader()
    service, _ = make_service(reader)
    async with Client(build_server(service)) as client:
        with pytest.raises(MCPError) as err:
            await client.call_tool("unknown", {})
    assert err.value.code == -32602 and "unknown" in err.value.message
    assert reader.reads == 0
