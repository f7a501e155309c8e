"""End to end on this machine: `wslmcp observe` serving the real /proc over real stdio, driven by
the SDK client; plus startup options and clean stdout/EOF behaviour."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError

from tests.in_process import observe_server as build_server
from tests.in_process import refused_arguments
from tests.observe.helpers import ThreadBlockingReader, make_service

ARGS = ["-m", "wslmcp", "observe", "--wsl-only", "--no-docker", "--no-wslc", "--interval-ms", "100"]
pytestmark = pytest.mark.skipif(not Path("/proc/stat").is_file(), reason="needs a real Linux /proc")


def body(result: Any) -> dict[str, Any]:
    assert result.is_error is not True, result.structured_content
    assert json.loads(result.content[0].text) == result.structured_content
    return dict(result.structured_content)


async def test_real_proc_round_trip_over_stdio() -> None:
    params = StdioServerParameters(command=sys.executable, args=ARGS)
    async with Client(params, read_timeout_seconds=30) as client:
        assert [t.name for t in (await client.list_tools()).tools] == [
            "get_system_summary", "list_resources", "inspect_resource", "list_children", "get_history",
            "get_metric_series",
        ]  # fmt: skip
        a, b = await asyncio.gather(
            client.call_tool("list_resources", {"limit": 1}), client.call_tool("list_resources", {"limit": 1})
        )
        first, second = body(a), body(b)
        assert first["snapshot"]["snapshot_id"] == second["snapshot"]["snapshot_id"]
        assert first["snapshot"]["cpu_scope"] == "wsl_visible"
        refreshed = body(await client.call_tool("list_resources", {"limit": 1, "max_age_ms": 0}))
        sid, resource = refreshed["snapshot"]["snapshot_id"], refreshed["data"][0]
        assert sid != first["snapshot"]["snapshot_id"]
        assert isinstance(resource["usage"]["memory_bytes"], int) and resource["usage"]["memory_bytes"] >= 0
        assert resource["usage"]["environment"] == "wsl"
        rid = resource["resource_id"]
        inspected = body(await client.call_tool("inspect_resource", {"snapshot_id": sid, "resource_id": rid}))
        kids = body(await client.call_tool("list_children", {"snapshot_id": sid, "resource_id": rid}))
        summary = body(await client.call_tool("get_system_summary", {"snapshot_id": sid}))
        assert inspected["snapshot"] == kids["snapshot"] == summary["snapshot"] == refreshed["snapshot"]
        assert inspected["data"] == resource
        assert isinstance(kids["data"], list)
        data = summary["data"]
        assert data["host_logical_cpu_count"] >= 1
        assert isinstance(data["environments"]["wsl"]["memory_bytes"], int)
        assert data["environments"]["docker"] is None and data["host_cpu_percent"] is None
        newer = body(await client.call_tool("get_system_summary", {"max_age_ms": 0}))
        new_sid = newer["snapshot"]["snapshot_id"]
        assert new_sid != sid
        stale = await client.call_tool("inspect_resource", {"snapshot_id": new_sid, "resource_id": rid})
        assert stale.is_error is True
        assert stale.structured_content == {
            "error": {"code": "unknown_resource", "message": stale.structured_content["error"]["message"]}
        }
        assert (
            body(await client.call_tool("inspect_resource", {"snapshot_id": sid, "resource_id": rid}))["data"]
            == resource
        )
        assert "limit" in refused_arguments(
            await client.call_tool("list_resources", {"limit": 1001}), json_text=True
        )
        missing = await client.call_tool("get_system_summary", {"snapshot_id": "missing"})
        assert missing.is_error and missing.structured_content["error"]["code"] == "snapshot_unavailable"


async def test_every_invalid_call_is_refused_over_stdio() -> None:
    from tests.observe.test_arguments import INVALID

    params = StdioServerParameters(command=sys.executable, args=ARGS)
    async with Client(params, read_timeout_seconds=30) as client:
        for _, tool, args in INVALID:
            refused_arguments(await client.call_tool(tool, args), json_text=True)


async def test_handshake_era_clients_get_ping_and_the_same_tools() -> None:
    params = StdioServerParameters(command=sys.executable, args=ARGS)
    async with Client(params, mode="legacy", read_timeout_seconds=30) as client:
        assert client.protocol_version == "2025-11-25"
        with pytest.warns(MCPDeprecationWarning):  # ping exists only in the handshake era
            await client.send_ping()
        assert len((await client.list_tools()).tools) == 6
        with pytest.raises(MCPError) as err:
            await client.call_tool("unknown", {})
        assert err.value.code == -32602


async def test_pinned_reads_answer_while_a_collection_is_blocked() -> None:
    reader = ThreadBlockingReader()
    service, _ = make_service(reader)
    async with Client(build_server(service)) as client:
        good = body(await client.call_tool("get_system_summary", {"max_age_ms": 0}))
        sid = good["snapshot"]["snapshot_id"]
        refresh = asyncio.ensure_future(client.call_tool("get_system_summary", {"max_age_ms": 0}))
        await asyncio.to_thread(reader.entered.wait, 10)
        pinned = body(await asyncio.wait_for(client.call_tool("list_resources", {"snapshot_id": sid}), 10))
        assert pinned["snapshot"] == good["snapshot"]
        assert not refresh.done()
        reader.release.set()
        assert body(await refresh)["snapshot"]["snapshot_id"] != sid


def run_cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "wslmcp", "observe", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=30,
    )


@pytest.mark.parametrize(
    "args",
    [
        ["--json"], ["--interactive"], ["--once"], ["--interval-ms", "0"], ["--interval-ms", "99"],
        ["--interval-ms", "60001"], ["--interval-ms"], ["--interval-ms", "abc"], ["--distro"], ["--distro", " "],
        ["--wsl-only", "--wsl-only"], ["--distro", "Ubuntu"], ["--replay", "/nonexistent"],
    ],
    ids=lambda a: " ".join(a) or "(none)",
)  # fmt: skip
def test_bad_startup_options_fail_with_stderr_only(args: list[str]) -> None:
    done = run_cli(*args)
    assert done.returncode != 0
    assert done.stdout == ""
    assert done.stderr.strip()


@pytest.mark.parametrize("args", [["--help"], ["-h"], ["--help", "--wsl-only"], ["--interval-ms", "5", "-h"]])
def test_help_anywhere_prints_help_and_exits_zero(args: list[str]) -> None:
    done = run_cli(*args)
    assert done.returncode == 0
    assert "read-only MCP server" in done.stdout and "--interval-ms" in done.stdout


def test_closing_stdin_exits_zero_with_nothing_on_stdout() -> None:
    done = run_cli("--wsl-only", "--interval-ms", "100")
    assert done.returncode == 0
    assert done.stdout == ""


def test_closing_stdin_during_a_collection_exits_zero() -> None:
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "get_system_summary", "arguments": {"max_age_ms": 0}}},
    ]  # fmt: skip
    proc = subprocess.Popen(
        [sys.executable, "-m", "wslmcp", "observe", "--wsl-only", "--interval-ms", "60000"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("".join(json.dumps(m) + "\n" for m in lines).encode())
    proc.stdin.flush()
    first = json.loads(proc.stdout.readline())  # initialized: the collection (60 s interval) is now running
    assert first["id"] == 1
    try:
        out, _ = proc.communicate(timeout=30)  # closes stdin; a hang guard: the interval alone is 60 s
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0
    assert all(json.loads(line)["jsonrpc"] == "2.0" for line in out.decode().splitlines())
