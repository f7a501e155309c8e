"""The MCP SDK edge of both servers: one low-level SDK server built from a catalogue and a dispatch,
and the session loop ``wslmcp.stdio`` runs it in. The only area code that imports the SDK.

``build_server(spec, dispatch)``
    ``tools/list`` lists ``spec.tools`` (no cursors). ``tools/call`` is answered by
    ``front_door.answer_call``, as the front door answers it: a tool the catalogue does not hold is
    JSON-RPC -32602 in every revision. Arguments are checked against the tool's input
    schema (``wslmcp.arguments``) before the dispatch runs; a failure, or an ``InvalidArguments``
    the dispatch raises before doing anything, is answered as the negotiated revision says
    (``protocol.argument_errors_are_results``): from 2025-11-25 on a tool result with
    ``isError: true``, ``{"error": {"code": "invalid_arguments", "message"}}`` as
    ``structuredContent`` and as text the server's form of an error (the message, or for a
    ``json_text`` server that JSON); before it JSON-RPC -32602. A twin's replay miss is a
    JSON-RPC error ``replay miss: …``; any other exception is a tool error naming it (one line on
    stderr, no traceback). The server advertises exactly what it serves: ``tools``.
    When the client declared form elicitation, the dispatch gets an ``Ask`` (``asker``): before
    2026-07-28 it sends ``elicitation/create`` and waits; from it the call answers ``input_required``
    with the question, and the client's next call of the same tool carries the answer (its
    ``requestState`` sealed by the SDK's ``RequestStateBoundary``).

``serve(server, inbox, wire, ...)``
    The session over lines: each line first validated by the SDK; what it refuses is judged here
    (``judge``), because the SDK drops such a line without an answer. Requests before ``initialize``
    get -32600 "not initialized" (``Gate``), a second ``initialize`` -32600 "already initialized".
    While ``initialize`` is being answered no further line is read, so pipelined requests are
    served in order. The upstream faults these work around are in docs/architecture.md.
"""

from __future__ import annotations

import hashlib
import json
import logging
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import anyio
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
from mcp.shared.exceptions import MCPError
from mcp.shared.jsonrpc_dispatcher import progress_token_from_params
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from wslmcp import __version__, protocol
from wslmcp.catalogue import Answer as Said
from wslmcp.catalogue import AnswerLater, Ask, Dispatch, Progress, Question, Reply, ServerSpec
from wslmcp.front_door import OPENING_ID, Fault, answer_call
from wslmcp.protocol import INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR, error_line, quote

_MODERN_KEY = types.PROTOCOL_VERSION_META_KEY


def to_result(answer: Reply) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=answer.text)],
        structured_content=dict(answer.structured),
        is_error=answer.is_error,
    )


def _progress(ctx: ServerRequestContext[Any]) -> Progress | None:
    if progress_token_from_params(ctx.params) is None:
        return None
    return ctx.session.report_progress


# ---------------------------------------------------------------- asking the person behind the client

APPROVAL = "approval"
"""The key of the one question a tool call asks (``input_requests`` in the 2026-07-28 revision)."""


def question_schema(question: Question) -> dict[str, Any]:
    """The form: an optional boolean ``always`` when the question offers one, else no field."""
    fields: dict[str, Any] = {}
    if question.always is not None:
        fields["always"] = {
            "type": "boolean",
            "title": "Always",
            "description": question.always,
            "default": False,
        }
    return {"type": "object", "properties": fields}


def _question_state(question: Question) -> str:
    """What ties an answer to the question it answers (sealed by the SDK's request-state boundary)."""
    return hashlib.sha256(f"{question.message}\0{question.always}".encode()).hexdigest()


def _answer(result: types.ElicitResult) -> Said:
    always = (result.content or {}).get("always") is True
    return Said(result.action, always=always and result.action == "accept")


def _form_elicitation(ctx: ServerRequestContext[Any]) -> bool:
    """The client declared form elicitation (an empty ``elicitation`` object means form)."""
    capabilities = ctx.session.client_capabilities
    asks = capabilities.elicitation if capabilities is not None else None
    return asks is not None and (asks.form is not None or asks.url is None)


def asker(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> Ask | None:
    """Who to ask during this call: None when the client cannot show a form. Before 2026-07-28 an
    ``elicitation/create`` request on the call's channel; from it an ``input_required`` result
    (``AnswerLater``), answered when the client calls again with ``inputResponses``."""
    if not _form_elicitation(ctx):
        return None
    if protocol.at_least(ctx.protocol_version, protocol.MODERN_VERSIONS[0]):
        return _round_trip(params)

    async def ask(question: Question) -> Said:
        try:
            result = await ctx.session.elicit_form(
                question.message, question_schema(question), related_request_id=ctx.request_id
            )
        except (MCPError, ValidationError, anyio.BrokenResourceError) as exc:
            return Said("cancel", failed=f"the client could not ask: {type(exc).__name__}: {exc}")
        return _answer(result)

    return ask


def _round_trip(params: types.CallToolRequestParams) -> Ask:
    async def ask(question: Question) -> Said:
        given = (params.input_responses or {}).get(APPROVAL)
        if params.request_state == _question_state(question) and isinstance(given, types.ElicitResult):
            return _answer(given)
        raise AnswerLater(question)

    return ask


def input_required(question: Question) -> types.InputRequiredResult:
    form = types.ElicitRequestFormParams(message=question.message, requested_schema=question_schema(question))
    return types.InputRequiredResult(
        input_requests={APPROVAL: types.ElicitRequest(params=form)}, request_state=_question_state(question)
    )


def build_server(
    spec: ServerSpec, dispatch: Dispatch, *, note: Callable[[str], None] | None = None
) -> Server[Any]:
    """The SDK's low-level server for ``spec``, answering calls through ``dispatch``."""
    say = note or _stderr_note
    tools = [types.Tool.model_validate(t.listing()) for t in spec.tools]

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        if params is not None and params.cursor is not None:
            raise MCPError(INVALID_PARAMS, "tools/list does not use cursors: every tool is in the first page")
        return types.ListToolsResult(tools=tools)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        call = (params.name, params.arguments or {})
        try:
            answer = await answer_call(
                spec,
                dispatch,
                call,
                _progress(ctx),
                asker(ctx, params),
                version=ctx.protocol_version,
                note=say,
            )
        except AnswerLater as later:  # 2026-07-28: the client asks the person, then calls again
            return input_required(later.question)
        if isinstance(answer, Fault):
            raise MCPError(answer.code, answer.message)
        return to_result(answer)

    server = Server(
        spec.name,
        version=__version__,
        instructions=spec.instructions,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )
    # an input_required result's requestState comes back from the client: sealed and checked here
    server.middleware.append(
        RequestStateBoundary(RequestStateSecurity.ephemeral(), default_audience=spec.name)
    )
    return server


def _stderr_note(text: str) -> None:
    sys.stderr.write(f"wslmcp: {text}\n")


# ---------------------------------------------------------------- judging lines the SDK refuses


@dataclass(frozen=True)
class Forward:
    """A message the SDK accepts: hand it to the server."""

    message: types.JSONRPCMessage


@dataclass(frozen=True)
class Answer:
    """Lines to write back in place of the server (the server never sees the input)."""

    lines: tuple[str, ...]


@dataclass(frozen=True)
class Drop:
    """Nothing to answer (a malformed notification or reply); ``reason`` goes to stderr."""

    reason: str


Judgement = Forward | Answer | Drop


def _valid_id(value: object) -> bool:
    return isinstance(value, str | int) and not isinstance(value, bool)


def lone_surrogate(value: object, where: str = "") -> str | None:
    """The path of the first string (or key) holding a lone surrogate, else ``None``."""
    if isinstance(value, str):
        return where if any("\ud800" <= ch <= "\udfff" for ch in value) else None
    if isinstance(value, dict):
        for key, item in value.items():
            path = f"{where}.{key}" if where else str(key)
            if lone_surrogate(key) is not None:
                return path
            found = lone_surrogate(item, path)
            if found is not None:
                return found
    if isinstance(value, list):
        for i, item in enumerate(value):
            found = lone_surrogate(item, f"{where}[{i}]")
            if found is not None:
                return found
    return None


def _first_fault(exc: ValidationError) -> str:
    for err in exc.errors():
        loc = ".".join(str(p) for p in err.get("loc", ()) if not isinstance(p, int))
        if "params" in loc or "method" in loc or "jsonrpc" in loc:
            field = next(p for p in ("params", "method", "jsonrpc") if p in loc)
            return f"{field}: {err.get('msg', 'invalid')}"
    return "not a JSON-RPC 2.0 request"


def _bad_id(value: object) -> Answer:
    return Answer(
        (
            error_line(
                None, INVALID_REQUEST, f"Invalid Request: id must be a string or a number, got {quote(value)}"
            ),
        )
    )


def _judge_object(frame: dict[str, Any], exc: ValidationError) -> Judgement:
    if "method" not in frame or "id" not in frame:
        return Drop(f"malformed JSON-RPC notification or reply ignored: {quote(frame)}")
    if not _valid_id(frame["id"]):
        return _bad_id(frame["id"])
    rid = frame["id"]
    where = lone_surrogate({k: v for k, v in frame.items() if k != "id"})
    if where is not None:
        message = (
            f"Invalid params: {where} holds a lone UTF-16 surrogate, which is not valid Unicode "
            "(send surrogate pairs whole)"
        )
        return Answer((error_line(rid, INVALID_PARAMS, message),))
    return Answer((error_line(rid, INVALID_REQUEST, f"Invalid Request: {quote(_first_fault(exc))}"),))


def judge(line: str) -> Judgement | None:
    """What to do with one input line (``None``: a blank line, nothing to do)."""
    if not line.strip():
        return None
    try:
        message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValidationError as exc:
        refused = exc
    else:
        if isinstance(message, types.JSONRPCNotification) and '"id"' in line:
            frame = json.loads(line)  # the SDK reads a request with a bad id as a notification
            if isinstance(frame, dict) and "id" in frame:
                return _bad_id(frame["id"])
        return Forward(message)
    try:
        frame = json.loads(line)
    except ValueError:
        return Answer((error_line(None, PARSE_ERROR, f"Parse error: not JSON: {quote(line)}"),))
    except RecursionError:
        return Answer((error_line(_top_level_id(line), PARSE_ERROR, "Parse error: nested too deeply"),))
    if isinstance(frame, list):
        ids = [e["id"] for e in frame if isinstance(e, dict) and "method" in e and _valid_id(e.get("id"))]
        text = "Invalid Request: JSON-RPC batches are not supported by MCP; send one message per line"
        return Answer(
            tuple(error_line(i, INVALID_REQUEST, text) for i in ids)
            or (error_line(None, INVALID_REQUEST, text),)
        )
    if isinstance(frame, dict):
        return _judge_object(frame, refused)
    return Answer((error_line(None, INVALID_REQUEST, f"Invalid Request: not an object: {quote(frame)}"),))


_DECODER = json.JSONDecoder()


def _top_level_id(line: str) -> object:
    """The ``id`` member of the object ``line`` holds, found without decoding what is nested (a frame
    too deep to decode still names the request it answers); ``None`` when there is none to find."""
    depth, i, key, n = 0, 0, None, len(line)
    while i < n:
        c = line[i]
        if c == '"':
            try:
                text, end = _DECODER.raw_decode(line, i)
            except ValueError:
                return None
            if depth == 1 and line[end:].lstrip().startswith(":"):
                key = text
            i = end
            continue
        if c in "{[":
            depth += 1
        elif c in "}]":
            depth -= 1
        elif c == ":" and depth == 1 and key == "id":
            try:
                value, _ = _DECODER.raw_decode(line[i + 1 :].lstrip())
            except (ValueError, RecursionError):
                return None
            return value if _valid_id(value) else None
        elif c == ",":
            key = None
        i += 1
    return None


class Gate:
    """Requests the session state refuses: before the handshake, a request for a method the server
    serves, other than ``initialize`` and ``ping`` and outside the 2026 per-request envelope, gets
    "not initialized" (the SDK's own answer, -32602 "Invalid request parameters", names no cause);
    after it, a second ``initialize`` gets "already initialized" (the SDK would answer it again)."""

    def __init__(self, serves: Callable[[str], bool], *, initialized: bool = False) -> None:
        self._serves = serves
        self.initialized = initialized

    def refuse(self, message: types.JSONRPCMessage) -> str | None:
        if not isinstance(message, types.JSONRPCRequest):
            return None
        if message.method == "initialize":
            return protocol.already_initialized(message.id) if self.initialized else None
        if self.initialized or message.method == "ping" or not self._serves(message.method):
            return None
        meta = (message.params or {}).get("_meta")
        if isinstance(meta, dict) and _MODERN_KEY in meta:
            return None
        return error_line(
            message.id,
            INVALID_REQUEST,
            f"Invalid Request: the session is not initialized; send initialize (then "
            f"notifications/initialized) before {quote(message.method, 60)}",
        )


# ---------------------------------------------------------------- the session loop


class Inbox(Protocol):
    """Where the session's input lines come from: ``get`` blocks for the next one (``b""``: the end)."""

    def get(self) -> bytes: ...

    def stop(self) -> None: ...


class Wire(Protocol):
    """Where answer lines go: ``write`` blocks until one line is written; ``OSError`` when the client
    is gone."""

    def write(self, line: str) -> None: ...


def quiet_sdk_log(note: Callable[[str], None]) -> None:
    """The SDK's own log as one line per record through ``note``: never a traceback on stderr."""

    class _OneLine(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            text = record.getMessage()
            if record.exc_info and record.exc_info[1] is not None:
                text += f" ({type(record.exc_info[1]).__name__}: {record.exc_info[1]})"
            note(f"sdk: {text}")

    logger = logging.getLogger("mcp")
    logger.handlers[:] = [_OneLine(logging.WARNING)]
    logger.propagate = False
    logger.setLevel(logging.WARNING)


async def serve(
    server: Server[Any],
    inbox: Inbox,
    wire: Wire,
    *,
    opening: str | None = None,
    note: Callable[[str], None] = _stderr_note,
) -> None:
    """Serve ``server`` until ``inbox`` ends. ``opening``: an ``initialize`` the front door already
    answered, handed to the server first under ``front_door.OPENING_ID`` (its answer is dropped)."""
    gate = Gate(
        lambda method: server.get_request_handler(method) is not None, initialized=opening is not None
    )
    to_server: MemoryObjectSendStream[SessionMessage | Exception]
    from_client: MemoryObjectReceiveStream[SessionMessage | Exception]
    to_server, from_client = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    to_client: MemoryObjectSendStream[SessionMessage]
    from_server: MemoryObjectReceiveStream[SessionMessage]
    to_client, from_server = anyio.create_memory_object_stream[SessionMessage](0)
    out_send, out_recv = anyio.create_memory_object_stream[str](64)
    answered: dict[types.RequestId, anyio.Event] = {}

    async def forward(message: types.JSONRPCMessage) -> None:
        await to_server.send(SessionMessage(message))
        if isinstance(message, types.JSONRPCRequest) and message.method == "initialize":
            done = answered.setdefault(message.id, anyio.Event())
            await done.wait()  # pipelined requests wait for the handshake, as the SDK's transport does
            answered.pop(message.id, None)

    async def read_client(out: MemoryObjectSendStream[str]) -> None:
        async with to_server, out:
            if opening is not None:
                first = judge(opening)
                assert isinstance(first, Forward)
                await forward(first.message)
            while raw := await anyio.to_thread.run_sync(inbox.get):
                verdict = judge(raw.decode("utf-8", errors="replace").rstrip("\r\n"))
                if verdict is None:
                    continue
                if isinstance(verdict, Drop):
                    note(verdict.reason)
                    continue
                if isinstance(verdict, Answer):
                    for text in verdict.lines:
                        await out.send(text)
                    continue
                refusal = gate.refuse(verdict.message)
                if refusal is not None:
                    await out.send(refusal)
                    continue
                await forward(verdict.message)

    async def relay_server(out: MemoryObjectSendStream[str]) -> None:
        async with from_server, out:
            async for item in from_server:
                message = item.message
                if isinstance(message, types.JSONRPCResponse | types.JSONRPCError):
                    event = answered.get(message.id) if message.id is not None else None
                    if event is not None:
                        gate.initialized = gate.initialized or isinstance(message, types.JSONRPCResponse)
                        event.set()
                    if message.id == OPENING_ID:
                        continue  # the front door gave the client this answer already
                await out.send(message.model_dump_json(by_alias=True, exclude_unset=True))

    async def write_client() -> None:
        async with out_recv:
            async for text in out_recv:
                try:
                    await anyio.to_thread.run_sync(wire.write, text)
                except OSError:
                    inbox.stop()  # the client is gone: end as at EOF
                    return

    reader_out, relay_out = out_send.clone(), out_send.clone()
    out_send.close()  # the reader and the relay hold clones; the writer ends when both are done
    async with anyio.create_task_group() as tg:
        tg.start_soon(write_client)
        tg.start_soon(relay_server, relay_out)
        tg.start_soon(read_client, reader_out)
        await server.run(from_client, to_client, server.create_initialization_options())
