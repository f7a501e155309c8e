"""The front door answers the handshake exactly as the SDK would, in every revision it answers, for
both servers; what it cannot answer the same way it leaves to the SDK.

The SDK's side runs the servers' real session loop (``serving.serve``) over the transport's own
inbox and a pipe; the front door's side is the same ``FrontDoor`` the transport runs. One test
drives a real server process both ways."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from typing import Any

import anyio
import mcp_types.version as sdk_versions
import pytest

from tests.stdio_client import INITIALIZED, Server, envelope, init_frame
from wslmcp import __version__, protocol, serving
from wslmcp.catalogue import Reply, ServerSpec
from wslmcp.front_door import FrontDoor
from wslmcp.observe.tools import SERVER as OBSERVE
from wslmcp.shell.tools import SERVER as SHELL
from wslmcp.stdio import _Inbox, _Wire

SPECS = [pytest.param(OBSERVE, id="observe"), pytest.param(SHELL, id="shell")]


async def _never(tool: str, arguments: object, progress: object) -> Reply:
    raise AssertionError("the handshake runs no tool")


def _sdk_answers(spec: ServerSpec, frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What the SDK's session answers to ``frames`` (then the end of input), in order."""
    inbox = _Inbox()
    for frame in frames:
        inbox.put(json.dumps(frame).encode())
    inbox.put(b"")
    read_end, write_end = os.pipe()
    out: list[bytes] = []
    drain = threading.Thread(target=lambda: out.append(os.fdopen(read_end, "rb").read()))
    drain.start()
    server = serving.build_server(spec, _never)
    anyio.run(lambda: serving.serve(server, inbox, _Wire(write_end)))
    os.close(write_end)
    drain.join()
    return [json.loads(line) for line in out[0].splitlines()]


def _door_answers(spec: ServerSpec, frames: list[dict[str, Any]]) -> list[dict[str, Any] | None]:
    door = FrontDoor(spec, __version__)
    return [
        None if (text := door.answer(json.dumps(frame))) is None else json.loads(text) for frame in frames
    ]


def _opening(version: str) -> list[dict[str, Any]]:
    return [
        init_frame(1, version),
        INITIALIZED,
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "ping"},
        {"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": {"_meta": {"progressToken": 7}}},
    ]


def test_the_revision_lists_are_the_sdks() -> None:
    assert protocol.HANDSHAKE_VERSIONS == sdk_versions.HANDSHAKE_PROTOCOL_VERSIONS
    assert protocol.MODERN_VERSIONS == sdk_versions.MODERN_PROTOCOL_VERSIONS
    for version in (*protocol.KNOWN_VERSIONS, "2099-01-01", "zzz"):
        for minimum in protocol.KNOWN_VERSIONS:
            assert protocol.at_least(version, minimum) == sdk_versions.is_version_at_least(version, minimum)


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("requested", [*protocol.HANDSHAKE_VERSIONS, "2024-01-01", "2099-12-31"])
def test_every_answer_of_the_door_is_the_sdks(spec: ServerSpec, requested: str) -> None:
    frames = _opening(requested)
    sdk = {a["id"]: a for a in _sdk_answers(spec, frames)}
    door = _door_answers(spec, frames)
    assert door[0] is not None, "the door always answers a well-formed initialize"
    answered = [a for a in door if a is not None]
    for answer in answered:
        assert answer == sdk[answer["id"]]
    negotiated = door[0]["result"]["protocolVersion"]
    if protocol.at_least(negotiated, "2025-06-18"):
        assert [a["id"] for a in answered] == [1, 2, 3, 4]
    else:  # older revisions drop tool fields: the SDK answers tools/list there
        assert [a["id"] for a in answered] == [1, 3]


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize(
    "frame",
    [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"protocolVersion": 5, "capabilities": {}},
        },
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}},
        {"jsonrpc": "2.0", "id": True, "method": "initialize", "params": init_frame()["params"]},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},  # before initialize
        {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": envelope()}},
        {"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"_meta": envelope()}},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x"}},
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {**init_frame()["params"], "x": "\ud800"},
        },
    ],
    ids=[
        "bad-version",
        "no-client-info",
        "bool-id",
        "list-first",
        "discover",
        "modern-ping",
        "call",
        "surrogate",
    ],
)
def test_what_the_door_cannot_answer_as_the_sdk_would_is_parked(
    spec: ServerSpec, frame: dict[str, Any]
) -> None:
    assert _door_answers(spec, [frame]) == [None]


@pytest.mark.parametrize("spec", SPECS)
def test_a_second_initialize_is_refused_by_the_door_and_by_the_sdk(spec: ServerSpec) -> None:
    frames = [init_frame(1), INITIALIZED, init_frame(2)]
    door = _door_answers(spec, frames)[2]
    sdk = _sdk_answers(spec, frames)[1]
    assert door == sdk
    assert (
        sdk["error"]["code"] == protocol.INVALID_REQUEST and "already initialized" in sdk["error"]["message"]
    )


@pytest.fixture
def observe_process() -> Iterator[Server]:
    from tests.faults.rig import observe_command

    server = Server(observe_command())
    yield server
    server.close()


def test_a_real_server_answers_the_same_before_and_after_it_has_loaded(observe_process: Server) -> None:
    """A line only the SDK phase answers (not JSON) proves the server loaded; the handshake after it
    is the SDK's own. A fresh process's handshake is the front door's."""
    observe_process.send_line(b"{")
    assert observe_process.wait_for(None)["error"]["code"] == protocol.PARSE_ERROR
    after = observe_process.handshake()
    listed_after = observe_process.request(9, "tools/list")["result"]
    from tests.faults.rig import observe_command

    fresh = Server(observe_command())
    try:
        first = fresh.handshake()
        listed_first = fresh.request(9, "tools/list")["result"]
    finally:
        fresh.close()
    assert first == after
    assert listed_first == listed_after


def test_a_client_that_only_lists_the_tools_is_served_without_loading_the_server() -> None:
    """The profiler's query: initialize, tools/list, end of input. The SDK is never imported."""
    frames = [init_frame(1, "2025-11-25"), INITIALIZED, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]
    env = {**os.environ, "PYTHONVERBOSE": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "wslmcp", "observe", "--wsl-only", "--no-docker", "--no-wslc"],
        input="".join(json.dumps(f) + "\n" for f in frames),
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert done.returncode == 0
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a["id"] for a in answers] == [1, 2]
    assert len(answers[1]["result"]["tools"]) == len(OBSERVE.tools)
    imported = {line.split()[1].strip("'") for line in done.stderr.splitlines() if line.startswith("import ")}
    assert "wslmcp.front_door" in imported
    assert "mcp_types" not in imported and "wslmcp.serving" not in imported
