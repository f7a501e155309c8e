"""Replays work as documented: the README's ``wslmcp observe --replay scenarios/slow-build`` serves
the scenario with the observe options its manifest states, and a replay miss is answered the same
way by both servers (a JSON-RPC error whose message starts ``replay miss:``)."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from tests.faults.rig import SCENARIO
from tests.stdio_client import Server
from wslmcp.catalogue import Ask, Progress, Reply
from wslmcp.fakes.replay import ReplayMiss
from wslmcp.observe.tools import SERVER as OBSERVE
from wslmcp.serving import build_server
from wslmcp.shell.tools import SERVER as SHELL


def test_the_readme_replay_command_serves_the_scenario_as_stated() -> None:
    server = Server([sys.executable, "-m", "wslmcp", "observe", "--replay", str(SCENARIO)])
    try:
        server.handshake("2025-11-25")
        for i, tool in enumerate(("get_system_summary", "list_resources")):
            result = server.call(i, tool, {"max_age_ms": 0})["result"]
            assert result["isError"] is False, result
        warnings = server.call("w", "get_system_summary", {})["result"]["structuredContent"]["snapshot"][
            "warnings"
        ]
        assert not any("replay miss" in w for w in warnings)
    finally:
        assert server.close() == 0
    assert server.stderr == b""


async def _missing(
    tool: str, arguments: Mapping[str, Any], progress: Progress | None, ask: Ask | None = None
) -> Reply:
    raise RuntimeError("the collection failed") from ReplayMiss("docker_api", "s", "GET /x", [])


@pytest.mark.parametrize("spec", [OBSERVE, SHELL], ids=["observe", "shell"])
async def test_a_replay_miss_is_a_jsonrpc_error_naming_it_in_both_servers(spec: Any) -> None:
    async with Client(build_server(spec, _missing)) as client:
        with pytest.raises(MCPError) as err:
            await client.call_tool(spec.tools[0].name, {})
    assert err.value.message.startswith("replay miss: ")
