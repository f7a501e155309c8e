"""McpSession contract: the real adapter (``wslmcp observe|shell --replay`` over real stdio) and the
twin (answers recorded from those same servers by ``RecordingMcpSessions``) pass the same suite."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from wslmcp.boundaries.mcp_session import (
    ForkedMcpSessions,
    McpSessions,
    SessionError,
    SessionSpec,
    StdioMcpSessions,
)
from wslmcp.fakes.mcp_session import FakeMcpSessions, RecordingMcpSessions
from wslmcp.fakes.replay import ReplayMiss

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
OBSERVE = SessionSpec("observe", str(SCENARIOS / "slow-build"), ("--no-docker", "--no-wslc"))
SHELL = SessionSpec("shell", str(SCENARIOS / "shell-basic"))


async def exercise(sessions: McpSessions) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    async with sessions.open(OBSERVE) as obs:
        seen["observe_tools"] = await obs.list_tools()
        seen["summary"] = await obs.call("get_system_summary", {"max_age_ms": 0})
        seen["invalid"] = await obs.call("list_resources", {"limit": -1})
        seen["unknown_snapshot"] = await obs.call(
            "inspect_resource", {"snapshot_id": "nope", "resource_id": "r"}
        )
    async with sessions.open(SHELL) as sh:
        seen["shell_tools"] = await sh.list_tools()
        seen["refused"] = await sh.call("wsl_exec", {"command": "rm -rf /"})
        seen["miss"] = await sh.call("wsl_exec", {"command": "echo not recorded"})
        seen["after_miss"] = await sh.call("wsl_list_sessions", {})
        seen["hosts_after_miss"] = await sh.call("wsl_list_hosts", {})
    return seen


@pytest.fixture(scope="module")
def recorded() -> tuple[dict[str, Any], dict[str, Any]]:
    recorder = RecordingMcpSessions(StdioMcpSessions())
    seen = anyio.run(exercise, recorder)
    return seen, recorder.fixture


@pytest.fixture(params=["real-exec", "real-forked", "fake"])
def seen(request: pytest.FixtureRequest, recorded: tuple[dict[str, Any], dict[str, Any]]) -> dict[str, Any]:
    if request.param == "real-exec":
        return recorded[0]  # the real adapter's own answers (the recording only watched them)
    if request.param == "real-forked":
        forked = ForkedMcpSessions()
        try:
            return anyio.run(exercise, forked)
        finally:
            forked.close()
    return anyio.run(exercise, FakeMcpSessions(recorded[1]))


def test_tools_list_names_in_order(seen: dict[str, Any]) -> None:
    assert seen["observe_tools"] == [
        "get_system_summary",
        "list_resources",
        "inspect_resource",
        "list_children",
        "get_history",
        "get_metric_series",
    ]
    assert seen["shell_tools"][0] == "wsl_list_hosts" and len(seen["shell_tools"]) == 17


def test_results_carry_status_content_and_structured(seen: dict[str, Any]) -> None:
    summary = seen["summary"]
    assert summary.status == "ok" and summary.error is None
    assert isinstance(summary.structured["snapshot"]["snapshot_id"], str)
    assert summary.content[0]["type"] == "text"


def test_errors_are_jsonrpc_or_tool_errors(seen: dict[str, Any]) -> None:
    invalid = seen["invalid"]  # the SDK client speaks 2025-11-25: an argument error is a tool error
    assert invalid.status == "tool_error" and invalid.structured["error"]["code"] == "invalid_arguments"
    assert not invalid.replay_miss
    unknown = seen["unknown_snapshot"]
    assert unknown.status == "tool_error" and unknown.structured["error"]["code"] == "snapshot_unavailable"
    assert seen["refused"].status == "tool_error"
    assert seen["refused"].content[0]["text"].startswith("Refused by this profile's guard policy")


def test_a_request_the_scenario_lacks_is_a_distinguishable_replay_miss(seen: dict[str, Any]) -> None:
    miss = seen["miss"]
    assert miss.status == "jsonrpc_error" and miss.replay_miss
    assert "wsl_exe" in miss.error["message"] and "echo not recorded" in miss.error["message"]
    assert seen["after_miss"].status == "ok"
    hosts = seen["hosts_after_miss"]  # the recorded first exchange still replays: no poisoning
    assert hosts.status == "ok" and hosts.content[0]["text"].startswith("Ubuntu  →  dev@Ubuntu")


def test_twin_refuses_unrecorded_requests(recorded: tuple[dict[str, Any], dict[str, Any]]) -> None:
    async def ask() -> None:
        async with FakeMcpSessions(recorded[1]).open(OBSERVE) as obs:
            await obs.call("list_children", {"snapshot_id": "x", "resource_id": "y"})

    with pytest.raises(ReplayMiss, match="mcp_session"):
        anyio.run(ask)


@pytest.mark.parametrize("adapter", [StdioMcpSessions, ForkedMcpSessions])
def test_real_adapters_report_a_server_that_does_not_start(
    tmp_path: Path, adapter: type[McpSessions]
) -> None:
    sessions = adapter(timeout_s=20)  # type: ignore[call-arg]

    async def start() -> None:
        async with sessions.open(SessionSpec("observe", str(tmp_path / "absent"))) as obs:
            await obs.list_tools()

    try:
        with pytest.raises(SessionError, match="absent"):
            anyio.run(start)
    finally:
        sessions.close()


def test_the_fork_server_ends_with_close() -> None:
    forked = ForkedMcpSessions()
    anyio.run(exercise, forked)
    server = forked._server
    forked.close()
    assert server is not None and server.poll() is not None
