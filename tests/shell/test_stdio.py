"""End to end over real stdio with the SDK client: the tools, their annotations and schemas."""

from __future__ import annotations

import getpass
import os
import sys
from pathlib import Path

from mcp import Client, StdioServerParameters

from tests.in_process import refused_arguments

EXPECTED_HINTS = {
    # name: (readOnly, destructive, idempotent, openWorld)
    "wsl_list_hosts": (True, False, True, False),
    "wsl_connect": (False, False, False, False),
    "wsl_disconnect": (False, False, True, False),
    "wsl_list_sessions": (True, False, True, False),
    "wsl_exec": (False, True, False, True),
    "wsl_start": (False, True, False, True),
    "wsl_read_output": (True, False, False, False),
    "wsl_send_input": (False, True, False, True),
    "wsl_stop": (False, True, True, False),
    "wsl_list_processes": (True, False, False, False),
    "wsl_list_dir": (True, False, True, False),
    "wsl_read_file": (True, False, True, False),
    "wsl_write_file": (False, True, False, False),
    "wsl_edit_file": (False, True, False, False),
    "wsl_search": (True, False, True, False),
    "wsl_upload": (False, True, True, False),
    "wsl_download": (False, True, True, False),
}


def _params(**env: str) -> StdioServerParameters:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("WSL_")}
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "wslmcp", "shell"],
        # the sandbox off: these tests are of the protocol and the tools (the sandbox's suites run it)
        env={
            **clean,
            "WSLMCP_SHELL_TRANSPORT": "local",
            "WSL_MCP_LOG_LEVEL": "silent",
            "WSL_SANDBOX": "off",
            **env,
        },
    )


def _text(result: object) -> str:
    content = result.content  # type: ignore[attr-defined]
    return str(content[0].text)


async def test_the_tools_over_stdio(tmp_path: Path) -> None:
    async with Client(_params(WSL_DISTRO="Ubuntu", WSL_NAME="box")) as client:
        listed = (await client.list_tools()).tools
        assert [t.name for t in listed] == list(EXPECTED_HINTS)
        for tool in listed:
            a = tool.annotations
            assert a is not None
            assert (
                a.read_only_hint,
                a.destructive_hint,
                a.idempotent_hint,
                a.open_world_hint,
            ) == EXPECTED_HINTS[tool.name]
            assert tool.description and len(tool.description) > 100
        schemas = {t.name: t.input_schema for t in listed}
        assert schemas["wsl_exec"]["required"] == ["command"]
        assert set(schemas["wsl_upload"]["required"]) == {"localPath", "remotePath"}

        hosts = await client.call_tool("wsl_list_hosts", {})
        assert not hosts.is_error and _text(hosts).startswith(f"box  →  {getpass.getuser()}@Ubuntu")
        opened = await client.call_tool("wsl_connect", {"cwd": str(tmp_path)})
        assert not opened.is_error and "Opened session box#1" in _text(opened)
        ran = await client.call_tool(
            "wsl_exec", {"command": "mkdir d && cd d && echo hi", "session": "box#1"}
        )
        assert not ran.is_error and f"cwd: {tmp_path}/d" in _text(ran) and "hi" in _text(ran)
        sessions = await client.call_tool("wsl_list_sessions", {})
        assert f"cwd: {tmp_path}/d" in _text(sessions)
        wrote = await client.call_tool("wsl_write_file", {"path": f"{tmp_path}/d/a.txt", "content": "héllo"})
        assert not wrote.is_error, _text(wrote)
        read = await client.call_tool("wsl_read_file", {"path": f"{tmp_path}/d/a.txt"})
        assert _text(read).endswith("\n\nhéllo")
        listing = await client.call_tool("wsl_list_dir", {"path": f"{tmp_path}/d"})
        assert "a.txt" in _text(listing)
        (tmp_path / "local.bin").write_bytes(b"\x00\xff" * 10)
        up = await client.call_tool(
            "wsl_upload", {"localPath": str(tmp_path / "local.bin"), "remotePath": f"{tmp_path}/d/up.bin"}
        )
        assert not up.is_error and "sha256: " in _text(up)
        down = await client.call_tool(
            "wsl_download", {"remotePath": f"{tmp_path}/d/up.bin", "localPath": str(tmp_path / "back.bin")}
        )
        assert not down.is_error and (tmp_path / "back.bin").read_bytes() == b"\x00\xff" * 10
        refused = await client.call_tool("wsl_exec", {"command": "mkfs.ext4 /dev/sda1"})
        assert refused.is_error and "Nothing was run" in _text(refused)
        refused_arguments(await client.call_tool("wsl_exec", {"command": "true", "timeoutMs": 0}))
        closed = await client.call_tool("wsl_disconnect", {"session": "box#1"})
        assert not closed.is_error


async def test_unconfigured_server_starts_and_explains(tmp_path: Path) -> None:
    async with Client(_params()) as client:
        hosts = await client.call_tool("wsl_list_hosts", {})
        assert not hosts.is_error and "has no WSL_DISTRO set" in _text(hosts)  # plain Linux here
        ran = await client.call_tool("wsl_exec", {"command": "true"})
        assert ran.is_error and "not configured" in _text(ran)


def test_stdout_carries_only_json_rpc_while_logs_go_to_stderr(tmp_path: Path) -> None:
    import json
    import subprocess

    from mcp_types import LATEST_PROTOCOL_VERSION

    requests = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": LATEST_PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {
                "name": "wsl_exec",
                "arguments": {"command": "echo visible-output", "cwd": str(tmp_path)},
            },
        },
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "wsl_exec", "arguments": {"command": "rm -rf /"}},
        },
    ]
    params = _params(WSL_DISTRO="Ubuntu", WSL_MCP_LOG_LEVEL="debug")
    proc = subprocess.Popen(
        [params.command, *params.args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=params.env,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    stdout_lines = []
    try:
        for request in requests:
            proc.stdin.write(json.dumps(request) + "\n")
            proc.stdin.flush()
            if "id" in request:  # wait for its answer before sending more (or closing stdin)
                while True:
                    line = proc.stdout.readline()
                    assert line, "the server closed stdout early"
                    stdout_lines.append(line)
                    if json.loads(line).get("id") == request["id"]:
                        break
        rest, err = proc.communicate(timeout=30)  # closes stdin: the server shuts down
    finally:
        proc.kill()
    done = subprocess.CompletedProcess(proc.args, proc.returncode, "".join(stdout_lines) + rest, err)
    out_lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert all(m.get("jsonrpc") == "2.0" for m in out_lines)
    answers = {m["id"]: m for m in out_lines if "id" in m}
    assert "visible-output" in answers[2]["result"]["content"][0]["text"]
    assert answers[3]["result"]["isError"] is True
    logs = [json.loads(line) for line in done.stderr.splitlines() if line.startswith("{")]
    messages = {(r["level"], r["message"]) for r in logs}
    assert ("debug", "running command") in messages and ("warn", "refused by the guard") in messages
    assert "visible-output" not in done.stderr.replace('"echo visible-output"', "")
