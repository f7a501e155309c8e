"""The stdio transport our MCP servers (observe, shell) run on: every request with an id gets
exactly one answer, and SIGTERM or SIGINT ends the session the way closing stdin does.

Contract
--------
Input: newline-delimited JSON-RPC 2.0 on stdin, decoded as UTF-8 (invalid bytes become U+FFFD).
Each line is first validated by the SDK (``mcp_types.jsonrpc_message_adapter``); what it accepts
goes to the server unchanged. What it refuses is judged here (``judge``), because the SDK's own
stdio transport drops such a line without an answer and the client waits until its timeout:

- not JSON                              -32700 parse error, ``id: null``
- a JSON-RPC batch (an array)           -32600 for every element that carries an id (MCP has no
                                        batches), or one ``id: null`` error when none does
- a request whose strings hold a lone   -32602 naming where (``params.arguments.query``)
  surrogate (``"\\ud800"``)
- any other malformed request with an   -32600 naming the first fault (``params`` must be an
  id (``"params": "text"``)             object, ...)
- an id that is not a string or number  -32600, ``id: null``
- a malformed notification or reply     nothing (there is no one to answer), a line on stderr

Before the ``initialize`` handshake (and outside the 2026-07-28 per-request envelope, which has
none), a request for a method the server serves, other than ``ping``, gets -32600 "not
initialized" instead of the SDK's -32602 "Invalid request parameters". While ``initialize`` is
being answered no further line is read, as the SDK itself does, so pipelined requests are served.
Rejected input is quoted back truncated (``QUOTE_CHARS``).

Output: one JSON object per line on the real stdout. While serving, fd 0 reads the null device and
fd 1 points at stderr, so a stray ``print`` or a child's output never reaches the wire.

Shutdown: end of stdin, SIGTERM and SIGINT all close the server's input; the SDK then cancels
in-flight requests (each one's cleanup runs: the shell kills a command's process tree) and
``serve`` returns normally, so the process exits with status 0. A second signal is not caught.
The upstream faults this works around are described in docs/architecture.md ("MCP SDK faults").
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import Any

import anyio
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.server.lowlevel import Server
from mcp.server.mcpserver import MCPServer
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

QUOTE_CHARS = 200
PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS = -32700, -32600, -32602
_MODERN_KEY = types.PROTOCOL_VERSION_META_KEY
_SIGNALS = (signal.SIGTERM, signal.SIGINT)


def quote(value: object, limit: int = QUOTE_CHARS) -> str:
    """``value`` as JSON (ASCII, so lone surrogates are escapes), cut to ``limit`` characters."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=True, default=str)
    text = text.encode("ascii", "backslashreplace").decode("ascii")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def error_line(request_id: object, code: int, message: str) -> str:
    """One JSON-RPC error response, ASCII-only (an id may hold a lone surrogate)."""
    frame = {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
    return json.dumps(frame, ensure_ascii=True, separators=(",", ":"))


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


def _judge_object(frame: dict[str, Any], exc: ValidationError) -> Judgement:
    has_id = "id" in frame
    if "method" not in frame or not has_id:
        return Drop(f"malformed JSON-RPC notification or reply ignored: {quote(frame)}")
    if not _valid_id(frame["id"]):
        return Answer(
            (
                error_line(
                    None,
                    INVALID_REQUEST,
                    f"Invalid Request: id must be a string or a number, got {quote(frame['id'])}",
                ),
            )
        )
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
                bad = f"Invalid Request: id must be a string or a number, got {quote(frame['id'])}"
                return Answer((error_line(None, INVALID_REQUEST, bad),))
        return Forward(message)
    try:
        frame = json.loads(line)
    except ValueError:  # includes RecursionError-free decode errors
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
    """Requests before the handshake: answered "not initialized" unless they are ``initialize``,
    ``ping``, carry the per-request envelope, or name a method the server does not serve (which the
    SDK answers -32601 in any state)."""

    def __init__(self, serves: Callable[[str], bool]) -> None:
        self._serves = serves
        self.initialized = False

    def refuse(self, message: types.JSONRPCMessage) -> str | None:
        if self.initialized or not isinstance(message, types.JSONRPCRequest):
            return None
        if message.method in ("initialize", "ping") or not self._serves(message.method):
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


def lowlevel(server: Server[Any] | MCPServer) -> Server[Any]:
    """The low-level server an ``MCPServer`` wraps (the SDK's own ``Client`` reaches it the same way)."""
    if isinstance(server, MCPServer):
        inner: Server[Any] = server._lowlevel_server
        return inner
    return server


@contextlib.contextmanager
def _claimed_std_fds() -> Iterator[tuple[int, int]]:
    """Private duplicates of fd 0 and 1 for the wire; fd 0 reads /dev/null and fd 1 goes to stderr
    meanwhile. Both are restored on exit."""
    wire_in, wire_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        sys.stdout.flush()
        os.dup2(null, 0)
        os.dup2(2, 1)
        yield wire_in, wire_out
    finally:
        with contextlib.suppress(OSError):
            sys.stdout.flush()
        os.dup2(wire_in, 0)
        os.dup2(wire_out, 1)
        for fd in (null, wire_in, wire_out):
            os.close(fd)


def _start_line_reader(fd: int, loop: asyncio.AbstractEventLoop, queue: asyncio.Queue[bytes]) -> None:
    """A daemon thread that reads lines from ``fd`` and hands each to ``queue`` (``b""`` at EOF), one
    at a time. It never holds up shutdown: a blocked read dies with the process."""
    stream = os.fdopen(os.dup(fd), "rb", buffering=1 << 16)

    def pump() -> None:
        with stream:
            while True:
                try:
                    line = stream.readline()
                except (OSError, ValueError):
                    line = b""
                try:
                    asyncio.run_coroutine_threadsafe(queue.put(line), loop).result()
                except RuntimeError:  # the loop is gone
                    return
                if not line:
                    return

    threading.Thread(target=pump, name="wslmcp-stdin", daemon=True).start()


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


@contextlib.asynccontextmanager
async def _stop_on_signals(stop: asyncio.Event) -> AsyncIterator[None]:
    loop = asyncio.get_running_loop()
    installed: list[signal.Signals] = []
    if sys.platform != "win32":
        for sig in _SIGNALS:

            def on_signal(sig: signal.Signals = sig) -> None:
                stop.set()
                loop.remove_signal_handler(sig)  # a second signal has its default effect

            loop.add_signal_handler(sig, on_signal)
            installed.append(sig)
    try:
        yield
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)


async def serve(server: Server[Any] | MCPServer, *, log: Callable[[str], None] | None = None) -> None:
    """Serve ``server`` over this process's stdin and stdout until EOF, SIGTERM or SIGINT. ``log``
    receives what is dropped without an answer (default: a line on stderr)."""
    inner = lowlevel(server)
    note = log or (lambda text: sys.stderr.write(f"wslmcp: {text}\n"))
    gate = Gate(lambda method: inner.get_request_handler(method) is not None)
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    lines: asyncio.Queue[bytes] = asyncio.Queue(maxsize=1)
    to_server: MemoryObjectSendStream[SessionMessage | Exception]
    from_client: MemoryObjectReceiveStream[SessionMessage | Exception]
    to_server, from_client = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    to_client: MemoryObjectSendStream[SessionMessage]
    from_server: MemoryObjectReceiveStream[SessionMessage]
    to_client, from_server = anyio.create_memory_object_stream[SessionMessage](0)
    out_send, out_recv = anyio.create_memory_object_stream[str](64)
    answered: dict[types.RequestId, asyncio.Event] = {}

    async def next_line() -> bytes:
        if stop.is_set():
            return b""
        get = asyncio.ensure_future(lines.get())
        halt = asyncio.ensure_future(stop.wait())
        done, _ = await asyncio.wait({get, halt}, return_when=asyncio.FIRST_COMPLETED)
        halt.cancel()
        if get in done:
            return get.result()
        get.cancel()
        return b""

    reader_out, relay_out = out_send.clone(), out_send.clone()
    out_send.close()  # the reader and the relay hold clones; the writer ends when both are done

    async def read_client() -> None:
        async with to_server, reader_out as out:
            while raw := await next_line():
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
                message = verdict.message
                refusal = gate.refuse(message)
                if refusal is not None:
                    await out.send(refusal)
                    continue
                await to_server.send(SessionMessage(message))
                if isinstance(message, types.JSONRPCRequest) and message.method == "initialize":
                    done = answered.setdefault(message.id, asyncio.Event())
                    halt = asyncio.ensure_future(stop.wait())
                    wait_done = asyncio.ensure_future(done.wait())
                    await asyncio.wait({halt, wait_done}, return_when=asyncio.FIRST_COMPLETED)
                    halt.cancel()
                    wait_done.cancel()
                    answered.pop(message.id, None)

    async def relay_server() -> None:
        async with from_server, relay_out as out:
            async for item in from_server:
                message = item.message
                if isinstance(message, types.JSONRPCResponse | types.JSONRPCError):
                    event = answered.get(message.id) if message.id is not None else None
                    if event is not None:
                        gate.initialized = gate.initialized or isinstance(message, types.JSONRPCResponse)
                        event.set()
                await out.send(message.model_dump_json(by_alias=True, exclude_unset=True))

    with _claimed_std_fds() as (wire_in, wire_out):
        _start_line_reader(wire_in, loop, lines)

        async def write_client() -> None:
            async with out_recv:
                async for text in out_recv:
                    try:
                        await anyio.to_thread.run_sync(_write_all, wire_out, (text + "\n").encode("utf-8"))
                    except (BrokenPipeError, OSError):
                        stop.set()  # the client is gone: end as at EOF
                        return

        async with _stop_on_signals(stop), anyio.create_task_group() as tg:
            tg.start_soon(write_client)
            tg.start_soon(relay_server)
            tg.start_soon(read_client)
            await inner.run(from_client, to_client, inner.create_initialization_options())
