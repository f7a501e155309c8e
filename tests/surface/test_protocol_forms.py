"""Both servers over real stdio, in every protocol revision: argument errors in the form the
negotiated revision gives them, unknown tools as JSON-RPC -32602, and capabilities that claim
exactly what is served, the same in both eras."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.faults.rig import observe_command, shell_command, shell_env
from tests.stdio_client import MODERN, Server
from wslmcp import protocol

REVISIONS = [*protocol.HANDSHAKE_VERSIONS, MODERN]


@pytest.fixture(params=["observe", "shell"])
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _start(kind: str, tmp: Path) -> Server:
    if kind == "observe":
        return Server(observe_command())
    return Server(shell_command(), env=shell_env(tmp), cwd=tmp)


@pytest.fixture
def started(kind: str, tmp_path: Path) -> Iterator[Server]:
    server = _start(kind, tmp_path)
    yield server
    assert server.close() == 0
    assert b"Traceback" not in server.stderr


BAD_CALL = {
    "observe": ("list_resources", {"limit": -1}),
    "shell": ("wsl_exec", {"command": "touch made-by-a-bad-call", "timeoutMs": "5"}),
}


def _nothing_ran(kind: str, server: Server, tmp: Path) -> None:
    if kind == "shell":
        assert not (tmp / "made-by-a-bad-call").exists()


@pytest.mark.parametrize("version", REVISIONS)
def test_invalid_arguments_take_the_negotiated_form(
    kind: str, started: Server, tmp_path: Path, version: str
) -> None:
    started.handshake(version)
    tool, arguments = BAD_CALL[kind]
    answer = started.call(1, tool, arguments)
    if protocol.at_least(version, "2025-11-25"):
        result = answer["result"]
        text = result["content"][0]["text"]
        message = result["structuredContent"]["error"]["message"]
        assert result["isError"] is True
        assert result["structuredContent"] == {"error": {"code": "invalid_arguments", "message": message}}
        assert message.startswith(f"invalid arguments for {tool}: ")
        assert ("limit" if kind == "observe" else "timeoutMs") in message
        # each server's text is the form its other errors take: observe's the JSON of its
        # structuredContent, shell's the sentence
        assert (json.loads(text) if kind == "observe" else text) == (
            result["structuredContent"] if kind == "observe" else message
        )
    else:
        assert answer["error"]["code"] == protocol.INVALID_PARAMS
        assert ("limit" if kind == "observe" else "timeoutMs") in answer["error"]["message"]
    _nothing_ran(kind, started, tmp_path)
    unknown = started.call(2, "no_such_tool", {})
    assert unknown["error"]["code"] == protocol.INVALID_PARAMS
    assert "no_such_tool" in unknown["error"]["message"]


def test_an_invalid_observe_call_collects_nothing(tmp_path: Path) -> None:
    server = Server(observe_command())
    try:
        server.handshake("2025-11-25")
        first = server.call(1, "get_system_summary", {"max_age_ms": 0})["result"]["structuredContent"]
        bad = server.call(2, "list_resources", {"max_age_ms": 0, "limit": 100000})["result"]
        assert bad["isError"] is True
        latest = server.call(3, "get_system_summary", {})["result"]["structuredContent"]
        assert latest["snapshot"]["snapshot_id"] == first["snapshot"]["snapshot_id"]
    finally:
        server.close()


def _capabilities(server: Server, version: str) -> dict[str, Any]:
    if version == MODERN:
        server.handshake(MODERN)
        discovered: dict[str, Any] = server.request("d", "server/discover")["result"]["capabilities"]
        return discovered
    opened: dict[str, Any] = server.handshake(version)["capabilities"]
    return opened


UNCLAIMED = (
    "prompts/list",
    "resources/list",
    "resources/subscribe",
    "completion/complete",
    "logging/setLevel",
)


def test_both_eras_claim_exactly_what_is_served(kind: str, tmp_path: Path) -> None:
    claims = {}
    for version in ("2025-11-25", MODERN):
        server = _start(kind, tmp_path)
        try:
            claims[version] = _capabilities(server, version)
            assert claims[version] == {"tools": {"listChanged": False}}
            assert "tools" in server.request("l", "tools/list")["result"]
            for i, method in enumerate(UNCLAIMED):
                params = {"uri": "file:///x"} if method.startswith("resources/") else {}
                if method == "logging/setLevel":
                    params = {"level": "info"}
                if method == "completion/complete":
                    params = {
                        "ref": {"type": "ref/prompt", "name": "x"},
                        "argument": {"name": "a", "value": ""},
                    }
                answer = server.request(i, method, params)
                assert answer["error"]["code"] == protocol.METHOD_NOT_FOUND, (version, method, answer)
        finally:
            server.close()
    assert claims["2025-11-25"] == claims[MODERN]
