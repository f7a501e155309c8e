"""The front door answers ``tools/call`` before the SDK has loaded, exactly as the SDK would.

Both sides run the same dispatch: the SDK's side is the servers' real session loop
(``serving.serve`` over ``serving.build_server``), the door's side is the transport's own serving
phase (``stdio._Session``) before anything loaded the SDK. Every answer and notification is compared,
in every handshake revision: results, progress, an unknown tool, argument errors in both forms, a
failing tool, a replay miss, a call still running at the end of input ("Connection closed") and a
call the client cancelled (never answered). Then the rules of what the door leaves to the SDK, and
one real server process answering a call without the SDK ever loading."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.stdio_client import INITIALIZED, init_frame
from wslmcp import __version__, protocol, serving
from wslmcp.arguments import InvalidArguments
from wslmcp.boundaries.replay_miss import NotRecorded
from wslmcp.catalogue import Ask, Dispatch, Progress, Question, Reply, ServerSpec
from wslmcp.front_door import FrontDoor
from wslmcp.observe.tools import SERVER as OBSERVE
from wslmcp.shell.tools import SERVER as SHELL
from wslmcp.stdio import _Inbox, _Session, _Wire


async def _dispatch(
    tool: str, arguments: Mapping[str, Any], progress: Progress | None, ask: Ask | None = None
) -> Reply:
    what = arguments.get("command", "")
    if progress is not None:
        await progress(1000, 5000, "first line")
        await progress(2.5, None, None)
    if what == "boom":
        raise RuntimeError("the tool broke")
    if what == "miss":
        raise NotRecorded("wsl.exe: no exchange for ['x']")
    if what == "exclusive":
        raise InvalidArguments("cwd and session exclude each other")
    if what == "forever":
        await asyncio.sleep(3600)
    if what == "large":  # past front_door.LARGE_ANSWER: encoded another way, the same JSON
        text = 'line \u00e9 "quoted" \\ \t\n' * 8000
        return Reply(text, {"content": text, "lines": 8000, "ratio": 0.5})
    return Reply("héllo 😀 " + what, {"exitCode": 0, "values": [1, 2.5, None], "text": "ü"})


def _call(
    rid: object, arguments: dict[str, Any] | None, name: str = "wsl_exec", **params: Any
) -> dict[str, Any]:
    body: dict[str, Any] = {"name": name, **params}
    if arguments is not None:
        body["arguments"] = arguments
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": body}


def _drive(
    serve: Callable[[_Inbox, _Wire], None],
    frames: list[dict[str, Any]],
    answers: int,
    respond: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
) -> list[Any]:
    """Every line ``serve`` writes for ``frames``; the input ends once ``answers`` responses came.
    A request of the server's is answered by ``respond`` (and not counted)."""
    inbox = _Inbox()
    for frame in frames:
        inbox.put(json.dumps(frame).encode())
    read_end, write_end = os.pipe()
    lines: list[Any] = []

    def drain() -> None:
        with os.fdopen(read_end, "rb") as out:
            for line in out:
                lines.append(json.loads(line))
                if respond is not None and "method" in lines[-1] and "id" in lines[-1]:
                    inbox.put(json.dumps(respond(lines[-1])).encode())
                if sum(1 for x in lines if "id" in x and "method" not in x) == answers:
                    inbox.put(b"")

    reader = threading.Thread(target=drain)
    reader.start()
    if answers == 0:
        inbox.put(b"")
    serve(inbox, _Wire(write_end))
    os.close(write_end)
    reader.join()
    return lines


def _by_sdk(spec: ServerSpec, dispatch: Dispatch) -> Callable[[_Inbox, _Wire], None]:
    def serve(inbox: _Inbox, wire: _Wire) -> None:
        server = serving.build_server(spec, dispatch, note=lambda _: None)
        anyio.run(lambda: serving.serve(server, inbox, wire))

    return serve


def _by_door(
    spec: ServerSpec, dispatch: Dispatch, loaded: list[bool] | None = None
) -> Callable[[_Inbox, _Wire], None]:
    def serve(inbox: _Inbox, wire: _Wire) -> None:
        @asynccontextmanager
        async def lifespan() -> AsyncIterator[Dispatch]:
            yield dispatch

        session = _Session(spec, FrontDoor(spec, __version__), inbox, wire, lambda _: None)
        asyncio.run(session.run(lifespan))
        if loaded is not None:
            loaded.append(session._sdk is not None)

    return serve


CASES = {
    "result": [_call(2, {"command": "ls"})],
    "progress": [_call(2, {"command": "ls"}, _meta={"progressToken": "p-1"})],
    "integer-token": [_call(2, {"command": "ls"}, _meta={"progressToken": 7})],
    "unknown-tool": [_call(2, {}, name="wsl_nope")],
    "wrong-type": [_call(2, {"command": 5})],
    "missing": [_call(2, None)],
    "undeclared": [_call(2, {"command": "ls", "timeout_ms": 5})],
    "dispatch-refuses": [_call(2, {"command": "exclusive"})],
    "failure": [_call(2, {"command": "boom"})],
    "large": [_call(2, {"command": "large"})],
    "replay-miss": [_call(2, {"command": "miss"})],
    "several": [_call(2, {"command": "a"}), _call("three", {"command": "b"}), _call(4, {"command": 1})],
}


@pytest.mark.parametrize("version", protocol.HANDSHAKE_VERSIONS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_every_call_the_door_answers_is_answered_as_the_sdk_answers_it(case: str, version: str) -> None:
    frames = [init_frame(1, version), INITIALIZED, *CASES[case]]
    expected = len(CASES[case]) + 1
    loaded: list[bool] = []
    door = _drive(_by_door(SHELL, _dispatch, loaded), frames, expected)
    sdk = _drive(_by_sdk(SHELL, _dispatch), frames, expected)
    assert loaded == [False], "the door answered without loading the SDK"

    def answers(lines: list[Any]) -> dict[str, Any]:
        return {json.dumps(x["id"]): x for x in lines if "id" in x}

    def notes(lines: list[Any]) -> list[Any]:
        return [x for x in lines if "id" not in x]

    assert answers(door) == answers(sdk)
    assert notes(door) == notes(sdk)
    if case in ("result", "progress", "integer-token", "large"):  # the comparison is not of two failures
        assert answers(door)["2"]["result"]["isError"] is False


def test_a_call_running_at_the_end_of_input_is_answered_connection_closed_as_by_the_sdk() -> None:
    frames = [init_frame(1, "2025-11-25"), INITIALIZED, _call(2, {"command": "forever"})]
    door = _drive(_by_door(SHELL, _dispatch), frames, 1)
    sdk = _drive(_by_sdk(SHELL, _dispatch), frames, 1)
    # the drive ends the input after the handshake's answer; the call is still running then
    assert door == sdk
    assert door[-1] == {"jsonrpc": "2.0", "id": 2, "error": {"code": -32000, "message": "Connection closed"}}


def test_a_call_the_client_cancelled_is_never_answered_as_by_the_sdk() -> None:
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}}
    frames = [init_frame(1, "2025-11-25"), INITIALIZED, _call(2, {"command": "forever"}), cancel]
    frames.append({"jsonrpc": "2.0", "id": 3, "method": "ping"})
    door = _drive(_by_door(SHELL, _dispatch), frames, 2)
    sdk = _drive(_by_sdk(SHELL, _dispatch), frames, 2)
    assert door == sdk
    assert [x["id"] for x in door] == [1, 3]


def _door_reads(spec: ServerSpec, capabilities: dict[str, Any], call: dict[str, Any]) -> bool:
    door = FrontDoor(spec, __version__)
    opening = init_frame(1, "2025-11-25")
    opening["params"]["capabilities"] = capabilities
    assert door.answer(json.dumps(opening)) is not None
    return door.call(json.dumps(call)) is not None


@pytest.mark.parametrize(
    "call",
    [
        _call(2, {"command": "ls"}, task={"ttl": 1000}),
        _call(2, {"command": "ls"}, _meta={"progressToken": True}),
        _call(2, {"command": "ls"}, _meta={"progressToken": 1, "other": 2}),
        _call(2, {"command": "ls"}, _meta={protocol.VERSION_META_KEY: "2026-07-28"}),
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "wsl_exec", "arguments": None},
        },
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": 5}},
        _call(2, {"command": "\ud800"}),
    ],
    ids=[
        "task",
        "bool-token",
        "other-meta",
        "modern-envelope",
        "null-arguments",
        "name-not-text",
        "surrogate",
    ],
)
def test_a_call_the_door_does_not_read_whole_is_left_to_the_sdk(call: dict[str, Any]) -> None:
    assert _door_reads(SHELL, {}, _call(2, {"command": "ls"}))
    assert not _door_reads(SHELL, {}, call)


async def _asking_dispatch(
    tool: str, arguments: Mapping[str, Any], progress: Progress | None, ask: Ask | None = None
) -> Reply:
    """A tool that asks the person about ``sudo …`` (as a guard refusal a person may overrule)."""
    command = str(arguments.get("command", ""))
    if command.startswith("sudo") and ask is not None:
        answer = await ask(Question(f"Allow {command}?", "Always allow sudo this session"))
        return Reply(f"{answer.action}: {command}", {"answer": answer.action, "always": answer.always})
    return Reply("ran " + command, {"exitCode": 0})


def _asking(caps: dict[str, Any], *calls: dict[str, Any]) -> list[dict[str, Any]]:
    opening = init_frame(1, "2025-11-25")
    opening["params"]["capabilities"] = caps
    return [opening, INITIALIZED, *calls]


def _accept(request: dict[str, Any]) -> dict[str, Any]:
    assert request["method"] == "elicitation/create", request
    return {
        "jsonrpc": "2.0",
        "id": request["id"],
        "result": {"action": "accept", "content": {"always": True}},
    }


def test_a_client_that_can_be_asked_is_answered_at_the_door_until_a_call_needs_a_question() -> None:
    """The door cannot ask (``elicitation/create`` is the SDK session's); a call that comes to need
    a question is handed to the SDK and answered again from the start, as the SDK answers it."""
    quiet = _asking({"elicitation": {}}, _call(2, {"command": "ls"}))
    loaded: list[bool] = []
    assert _drive(_by_door(SHELL, _asking_dispatch, loaded), quiet, 2) == _drive(
        _by_sdk(SHELL, _asking_dispatch), quiet, 2
    )
    assert loaded == [False]  # asked nothing: the SDK never loaded

    asking = _asking({"elicitation": {}}, _call(2, {"command": "ls"}), _call(3, {"command": "sudo apt"}))
    loaded.clear()
    door = _drive(_by_door(SHELL, _asking_dispatch, loaded), asking, 3, _accept)
    sdk = _drive(_by_sdk(SHELL, _asking_dispatch), asking, 3, _accept)
    assert loaded == [True]
    for lines in (door, sdk):  # asked once, through the SDK's session
        questions = [line for line in lines if line.get("method") == "elicitation/create"]
        assert [q["params"]["message"] for q in questions] == ["Allow sudo apt?"]
    key: Callable[[Any], str] = lambda x: json.dumps(x["id"])  # noqa: E731
    answered = [sorted((x for x in lines if "method" not in x), key=key) for lines in (door, sdk)]
    assert answered[0] == answered[1]
    assert answered[0][-1]["result"]["structuredContent"] == {"answer": "accept", "always": True}


def test_a_call_before_the_handshake_is_left_to_the_sdk() -> None:
    door = FrontDoor(SHELL, __version__)
    assert door.call(json.dumps(_call(2, {"command": "ls"}))) is None


def test_a_line_only_the_sdk_answers_loads_it_and_the_door_calls_already_answered_stay_answered() -> None:
    frames = [
        init_frame(1, "2025-11-25"),
        INITIALIZED,
        _call(2, {"command": "ls"}),
        {"jsonrpc": "2.0", "id": 3, "method": "resources/list"},
        _call(4, {"command": "after"}),
    ]
    loaded: list[bool] = []
    door = _drive(_by_door(SHELL, _dispatch, loaded), frames, 4)
    sdk = _drive(_by_sdk(SHELL, _dispatch), frames, 4)
    assert loaded == [True]
    key: Callable[[Any], str] = lambda x: json.dumps(x["id"])  # noqa: E731
    assert sorted(door, key=key) == sorted(sdk, key=key)


def test_a_real_server_answers_a_call_without_loading_the_sdk(tmp_path: Path) -> None:
    """A client that calls a tool at once (a script, an eval) is answered before the SDK loads."""
    frames = [init_frame(1, "2025-11-25"), INITIALIZED, _call(2, {}, name="wsl_list_sessions")]
    env = {**os.environ, "PYTHONVERBOSE": "1", "WSLMCP_SHELL_TRANSPORT": "local", "WSL_DISTRO": "Ubuntu"}
    env.pop("WSL_USER", None)
    with open(tmp_path / "stderr", "w+") as stderr:  # the verbose import log is long: not a pipe
        proc = subprocess.Popen(
            [sys.executable, "-m", "wslmcp", "shell"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            env=env,
            text=True,
        )
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("".join(json.dumps(f) + "\n" for f in frames))
        proc.stdin.flush()
        answers = [json.loads(proc.stdout.readline()) for _ in range(2)]
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0
        stderr.seek(0)
        err = stderr.read()
    assert [a["id"] for a in answers] == [1, 2]
    assert answers[1]["result"]["isError"] is False
    imported = {line.split()[1].strip("'") for line in err.splitlines() if line.startswith("import ")}
    assert "wslmcp.shell.service" in imported
    assert "mcp_types" not in imported and "wslmcp.serving" not in imported


async def _observe_dispatch(
    tool: str, arguments: Mapping[str, Any], progress: Progress | None, ask: Ask | None = None
) -> Reply:
    if tool == "get_metric_series":
        raise RuntimeError("the store broke")
    return Reply('{"history":[]}', {"history": []})


@pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25"])
def test_a_json_text_server_s_errors_are_answered_as_by_the_sdk(version: str) -> None:
    """observe writes every answer's text as the JSON of its structuredContent, errors included."""
    frames = [
        init_frame(1, version),
        INITIALIZED,
        _call(2, {}, name="get_history"),
        _call(3, {"window_s": "5"}, name="get_history"),
        _call(4, {"metric": "host.cpu_percent"}, name="get_metric_series"),
        _call(5, {}, name="nope"),
    ]
    door = _drive(_by_door(OBSERVE, _observe_dispatch), frames, 5)
    sdk = _drive(_by_sdk(OBSERVE, _observe_dispatch), frames, 5)
    key: Callable[[Any], str] = lambda x: json.dumps(x["id"])  # noqa: E731
    assert sorted(door, key=key) == sorted(sdk, key=key)
    failed = next(x for x in door if x["id"] == 4)["result"]
    assert failed["isError"] and json.loads(failed["content"][0]["text"])["error"]["code"] == "internal_error"
