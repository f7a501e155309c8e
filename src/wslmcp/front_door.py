"""What a session needs answered, answered without the MCP SDK.

Importing the MCP SDK takes most of a second (it builds several hundred pydantic models), and our
servers' domains a few hundred milliseconds more; a client pays that at every session start. So
``wslmcp.stdio`` starts reading at once and this front door answers, from plain data, what a
session opens with: ``initialize``, ``ping`` and, once initialized, ``tools/list`` in the
revisions whose tool fields we fill (2025-06-18 on). Once the server is built, it also reads a
``tools/call`` it can answer exactly as the SDK would (``call``: a handshake-era request whose
params it reads whole), and ``answer_call`` answers it, the one way both paths answer a call
(``wslmcp.serving`` uses it too); a call that comes to ask the person behind the client is handed
to the SDK (``HandOver``), whose session asks.
Anything else, or anything it is not sure it reads exactly as the SDK would, it parks: the SDK
answers it once loaded, after being handed the opening ``initialize`` so that its session is in the
same state (``opening_for_sdk``). ``tests/surface/test_front_door.py`` holds every answer here
equal to the SDK's own.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from wslmcp import protocol
from wslmcp.arguments import InvalidArguments, check_schema
from wslmcp.boundaries import replay_miss
from wslmcp.catalogue import (
    INVALID_ARGUMENTS,
    AnswerLater,
    Ask,
    Dispatch,
    HandOver,
    Progress,
    Reply,
    ServerSpec,
    invalid_arguments_message,
)

TOOL_FIELDS_SINCE = "2025-06-18"
"""The first revision whose tool entries carry every field we list (title, outputSchema)."""
OPENING_ID = "wslmcp-front-door-initialize"
"""The id under which the opening ``initialize`` is handed to the SDK (its answer is dropped)."""


def _valid_id(value: object) -> bool:
    return isinstance(value, str | int) and not isinstance(value, bool)


def _plain(value: object) -> bool:
    """Holds only what JSON reads back the same in any parser: no lone surrogate anywhere."""
    if isinstance(value, str):
        return not any("\ud800" <= ch <= "\udfff" for ch in value)
    if isinstance(value, dict):
        return all(_plain(k) and _plain(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_plain(v) for v in value)
    return True


def _request(line: str) -> dict[str, Any] | None:
    """``line`` as a well-formed JSON-RPC request in the handshake era, else None."""
    try:
        frame = json.loads(line)
    except (ValueError, RecursionError):
        return None
    if not isinstance(frame, dict) or frame.get("jsonrpc") != "2.0" or not _valid_id(frame.get("id")):
        return None
    if not isinstance(frame.get("method"), str) or set(frame) - {"jsonrpc", "id", "method", "params"}:
        return None
    params = frame.get("params", {})
    if not isinstance(params, dict) or not _plain(frame):
        return None
    meta = params.get("_meta")
    if meta is not None and (not isinstance(meta, dict) or protocol.VERSION_META_KEY in meta):
        return None  # the per-request envelope of the 2026 revisions: the SDK's
    return frame


def _initialize_params(params: dict[str, Any]) -> str | None:
    """The requested revision of well-formed ``initialize`` params, else None."""
    info = params.get("clientInfo")
    version = params.get("protocolVersion")
    if not isinstance(version, str) or not isinstance(params.get("capabilities"), dict):
        return None
    if not isinstance(info, dict) or not isinstance(info.get("name"), str):
        return None
    if not isinstance(info.get("version"), str):
        return None
    return version


@dataclass(frozen=True)
class Call:
    """A ``tools/call`` the door answers: its id, tool name, arguments and progress token."""

    id: str | int
    name: str
    arguments: Mapping[str, Any]
    progress_token: str | int | None


@dataclass(frozen=True)
class Fault:
    """A call answered with a JSON-RPC error instead of a result."""

    code: int
    message: str


def _call_params(params: dict[str, Any]) -> tuple[str, Mapping[str, Any], str | int | None] | None:
    """``tools/call`` params the door reads exactly as the SDK does (name, arguments, a progress
    token and nothing else), else None."""
    name, arguments, meta = params.get("name"), params.get("arguments", {}), params.get("_meta", {})
    if set(params) - {"name", "arguments", "_meta"} or not isinstance(name, str):
        return None
    if not isinstance(arguments, dict) or not isinstance(meta, dict) or set(meta) - {"progressToken"}:
        return None
    token = meta.get("progressToken")
    if token is not None and not _valid_id(token):
        return None
    return name, arguments, token


def argument_error(spec: ServerSpec, tool: str, detail: str, version: str) -> Reply | Fault:
    """Arguments that fail validation, in the form revision ``version`` gives them; as a result,
    its text is in the server's form (``ServerSpec.json_text``)."""
    message = invalid_arguments_message(tool, detail)
    if not protocol.argument_errors_are_results(version):
        return Fault(protocol.INVALID_PARAMS, message)
    return spec.error(INVALID_ARGUMENTS, message)


async def answer_call(
    spec: ServerSpec,
    dispatch: Dispatch,
    call: tuple[str, Mapping[str, Any]],
    progress: Progress | None,
    ask: Ask | None = None,
    *,
    version: str,
    note: Callable[[str], None],
) -> Reply | Fault:
    """The answer to ``tools/call`` of ``call`` (tool name, arguments) in revision ``version``: an
    unknown tool is -32602; arguments are checked against the tool's input schema before
    ``dispatch`` runs, and an argument error is a tool error from 2025-11-25 on, -32602 before; a
    twin's replay miss (raised, or met and carried on from) is -32603 ``replay miss: …``; any other
    exception a tool error naming it (one line through ``note``), in the server's form.
    ``AnswerLater`` (an ``ask`` of the 2026-07-28 revision) and ``HandOver`` (the door's ``ask``)
    are raised on to the caller."""
    name, arguments = call
    tool = spec.tool(name)
    if tool is None:
        names = ", ".join(t.name for t in spec.tools)
        return Fault(
            protocol.INVALID_PARAMS, f"Unknown tool: {protocol.quote(name, 80)}; this server has {names}"
        )
    with replay_miss.watch() as missed:
        try:
            check_schema(tool.name, tool.input_schema, arguments)
            answer = await dispatch(tool.name, arguments, progress, ask)
        except InvalidArguments as exc:
            return argument_error(spec, tool.name, str(exc), version)
        except (AnswerLater, HandOver):
            raise
        except Exception as exc:
            miss = replay_miss.find(exc) or (missed[0] if missed else None)
            if miss is not None:  # --replay: the scenario lacks what this call needs
                return Fault(protocol.INTERNAL_ERROR, replay_miss.message(miss))
            note(f"{tool.name} failed: {type(exc).__name__}: {exc}")
            return spec.error("internal_error", f"{tool.name} failed: {type(exc).__name__}: {exc}")
    if missed:  # the call met a miss and carried on: its answer is not what was recorded
        return Fault(protocol.INTERNAL_ERROR, replay_miss.message(missed[0]))
    return answer


def answer_line(request_id: str | int, outcome: Reply | Fault) -> str:
    """The response line to a call, as the SDK writes it."""
    if isinstance(outcome, Fault):
        return protocol.error_line(request_id, outcome.code, outcome.message)
    result = {
        "content": [{"text": outcome.text, "type": "text"}],
        "isError": outcome.is_error,
        "structuredContent": dict(outcome.structured),
    }
    if len(outcome.text) > LARGE_ANSWER:
        return _large_result_line(request_id, result)
    return protocol.result_line(request_id, result)


LARGE_ANSWER = 64 * 1024
"""Characters of text past which an answer is encoded by orjson (a 290 KB file read: 3.3 ms with
``json``, 0.1 ms with orjson; imported at the first such answer, so a start pays nothing for it)."""


def _large_result_line(request_id: str | int, result: dict[str, Any]) -> str:
    import orjson

    try:
        return orjson.dumps({"jsonrpc": "2.0", "id": request_id, "result": result}).decode("utf-8")
    except (TypeError, orjson.JSONEncodeError):  # what orjson refuses (a lone surrogate), json writes
        return protocol.result_line(request_id, result)


def progress_line(token: str | int, progress: float, total: float | None, message: str | None) -> str:
    """One ``notifications/progress``, as the SDK writes it (``total`` and ``message`` when given)."""
    params: dict[str, Any] = {"progressToken": token, "progress": progress}
    if total is not None:
        params["total"] = total
    if message is not None:
        params["message"] = message
    frame = {"jsonrpc": "2.0", "method": "notifications/progress", "params": params}
    return json.dumps(frame, ensure_ascii=False, separators=(",", ":"))


def notification(line: str) -> dict[str, Any] | None:
    """``line`` as a well-formed notification (a method, params an object or absent, no id), else None."""
    try:
        frame = json.loads(line)
    except (ValueError, RecursionError):
        return None
    if not isinstance(frame, dict) or frame.get("jsonrpc") != "2.0" or "id" in frame:
        return None
    if not isinstance(frame.get("method"), str) or set(frame) - {"jsonrpc", "method", "params"}:
        return None
    if not isinstance(frame.get("params", {}), dict) or not _plain(frame):
        return None
    return frame


def cancelled(frame: dict[str, Any]) -> str | int | None:
    """The request a ``notifications/cancelled`` frame cancels, else None."""
    if frame.get("method") != "notifications/cancelled":
        return None
    request = frame.get("params", {}).get("requestId")
    return request if _valid_id(request) else None


@dataclass
class FrontDoor:
    spec: ServerSpec
    version: str
    negotiated: str | None = None
    opening: dict[str, Any] | None = None
    client_asks: bool = False  # the client declared elicitation: it may be asked during a call

    def answer(self, line: str) -> str | None:
        """The answer to ``line`` when it can be given before the SDK is loaded, else None."""
        frame = _request(line)
        if frame is None:
            return None
        method, rid, params = frame["method"], frame["id"], frame.get("params", {})
        if method == "initialize":
            if self.opening is not None:
                return protocol.already_initialized(rid)
            requested = _initialize_params(params)
            if requested is None:
                return None
            self.negotiated, self.opening = protocol.negotiate(requested), frame
            self.client_asks = "elicitation" in params["capabilities"]
            return protocol.result_line(rid, self.handshake())
        if method == "ping" and set(params) <= {"_meta"}:
            return protocol.result_line(rid, {})
        if method == "tools/list" and self._lists_tools(params):
            return protocol.result_line(rid, {"tools": [t.listing() for t in self.spec.tools]})
        return None

    def call(self, line: str) -> Call | None:
        """``line`` as a ``tools/call`` the door answers as the SDK would, else None: after the
        handshake, in its revisions (a request in the 2026 envelope is the SDK's), with params it
        reads whole. A call that comes to need a question (a server that may ask, a client that can
        be asked: ``asks``) is handed to the SDK, whose session asks it (``HandOver``)."""
        frame = _request(line)
        if frame is None or frame["method"] != "tools/call" or self.negotiated is None:
            return None
        read = _call_params(frame.get("params", {}))
        if read is None:
            return None
        name, arguments, token = read
        return Call(frame["id"], name, arguments, token)

    @property
    def asks(self) -> bool:
        """A call may come to ask the person behind the client (the server may ask, the client can
        be asked): the door then hands it to the SDK when it does."""
        return self.spec.may_ask and self.client_asks

    def handshake(self) -> dict[str, Any]:
        assert self.negotiated is not None
        return {
            "protocolVersion": self.negotiated,
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": self.spec.name, "version": self.version},
            "instructions": self.spec.instructions,
        }

    def _lists_tools(self, params: dict[str, Any]) -> bool:
        return (
            self.negotiated is not None
            and protocol.at_least(self.negotiated, TOOL_FIELDS_SINCE)
            and set(params) <= {"_meta"}
        )

    def opening_for_sdk(self) -> str | None:
        """The opening ``initialize`` as the SDK is to be handed it (under ``OPENING_ID``), or None
        when the door opened nothing."""
        if self.opening is None:
            return None
        return json.dumps({**self.opening, "id": OPENING_ID}, ensure_ascii=True)
