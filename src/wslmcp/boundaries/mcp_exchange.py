"""The read-only ``initialize`` + ``tools/list`` exchange as a pure state machine, and its judgement.

No I/O, no processes, no SDK: a transport (``mcp_stdio`` over a server's stdin/stdout,
``mcp_http`` over streamable HTTP) feeds it what the server sent and writes what it returns.

Contract
--------
``ToolsListing(client_version)``
    ``opening()`` is the first message to send (``initialize``, id 1). ``receive_line(bytes)``
    takes one stdout line (UTF-8 with replacement, the stdlib JSON parser, as mcp-top reads it);
    ``receive(message)`` takes one parsed JSON value. Both return the messages to send next, in
    order: after the initialize answer ``notifications/initialized`` and ``tools/list`` id 2
    (``params {}``), then one ``tools/list`` per ``nextCursor`` (ids 3, 4, ...); an answer to a
    request the server sent (``ping`` gets ``{}``, anything else ``-32601``). ``finished`` is set
    once every page is in or the exchange failed; then ``failure`` holds the one-line reason or
    None, and ``answer(name)`` gives the ``ServerAnswer``.
Reading (mcp-top 0.5.0)
    A response to the request in flight is an object with no ``method``, a ``result`` or an
    ``error``, and an ``id`` equal to the request's (``2.0`` answers ``2``); any other response is
    ignored. An error is ``{method} failed (code N)`` (an integer, not boolean, code) or ``(no
    code)``, never the server's message. A result that is not an object, a page with no ``tools``
    list, or a non-string ``nextCursor`` fails with mcp-top's texts; tool entries that are not
    objects are dropped, everything else is kept as listed. Lines that are not JSON objects, and
    objects that are neither such a response nor a well-formed request or notification, are
    counted as junk (``junk_lines``).
Reasons for what the transport sees: ``timeout_reason``, ``closed_reason`` (EOF before the
answer), ``exceeded_reason``, and ``failure_detail`` (junk and exit notes beside an error).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from wslmcp.boundaries.mcp_launcher import ServerAnswer

#: The revision offered in ``initialize``: the newest one reachable through the handshake (the
#: SDK's ``LATEST_HANDSHAKE_VERSION``; a test keeps them equal).
PROTOCOL_VERSION = "2025-11-25"
CLIENT_NAME = "wslmcp"
METHOD_NOT_FOUND = -32601

Message = dict[str, Any]


def encode(message: Message) -> bytes:
    """One compact JSON line (UTF-8, ``\\n``-terminated), as sent on stdio."""
    return (json.dumps(message, separators=(",", ":")) + "\n").encode("utf-8")


def timeout_reason(timeout_s: float) -> str:
    return f"timeout after {timeout_s:g} seconds"


def exceeded_reason(limit: int) -> str:
    return f"server output exceeded {limit} bytes"


def error_category(error: object) -> str:
    """``code N`` when the error object carries an integer (not boolean) code, else ``no code``."""
    code = error.get("code") if isinstance(error, dict) else None
    if isinstance(code, int) and not isinstance(code, bool):
        return f"code {code}"
    return "no code"


@dataclass
class ToolsListing:
    client_version: str
    #: The request in flight: its method and id (initialize = 1, pages 2, 3, ...).
    method: str = "initialize"
    request_id: int = 1
    finished: bool = False
    failure: str | None = None
    junk_lines: int = 0
    init: dict[str, Any] = field(default_factory=dict)
    tools: list[dict[str, Any]] = field(default_factory=list)

    def opening(self) -> Message:
        params = {
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": CLIENT_NAME, "version": self.client_version},
        }
        return {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}

    def receive_line(self, line: bytes) -> list[Message]:
        text = line.decode("utf-8", errors="replace")
        if not text.strip(" \t\r\n"):
            return []
        try:
            message = json.loads(text)
        except (ValueError, RecursionError):
            message = None
        return self.receive(message)

    def receive(self, message: object) -> list[Message]:
        if self.finished:
            return []
        if not isinstance(message, dict):
            self.junk_lines += 1
            return []
        if "method" not in message and ("result" in message or "error" in message):
            if message.get("id") != self.request_id:
                return []  # a stray response, ignored like mcp-top does
            return self._answered(message)
        if not _well_formed(message):
            self.junk_lines += 1
            return []
        if "id" in message:  # the server's own request: answered, never acted on
            return [_reply_to(message)]
        return []  # a notification

    def closed_reason(self) -> str:
        return f"server closed stdout before response id {self.request_id}"

    def answer(self, name: str, detail: str | None = None) -> ServerAnswer:
        if self.failure is not None:
            return ServerAnswer(name=name, error=self.failure, detail=detail)
        raw_info = self.init.get("serverInfo")
        info: dict[str, Any] = raw_info if isinstance(raw_info, dict) else {}
        return ServerAnswer(
            name=name,
            server_name=_text(info.get("name")),
            server_version=_text(info.get("version")),
            protocol_version=_text(self.init.get("protocolVersion")),
            instructions=_text(self.init.get("instructions")),
            tools=tuple(self.tools),
            detail=detail,
        )

    def junk_detail(self, what: str = "stdout line(s)") -> str | None:
        """Beside a successful answer: how many lines (``what``) were not JSON-RPC."""
        if not self.junk_lines:
            return None
        return f"ignored {self.junk_lines} {what} that were not JSON-RPC"

    def failure_detail(self, exit_code: int | None, what: str = "stdout line(s)") -> str | None:
        """Beside an error: junk seen, and how the server ended when it did (``exit_code``)."""
        notes = []
        if self.junk_lines:
            notes.append(f"{self.junk_lines} {what} were not JSON-RPC")
        if exit_code is not None:
            notes.append(
                f"server exited with code {exit_code}"
                if exit_code >= 0
                else f"server killed by signal {-exit_code}"
            )
        return "; ".join(notes) or None

    # ---- judging ---------------------------------------------------------------------------

    def fail(self, reason: str) -> list[Message]:
        """End the exchange with ``reason`` (the transport's own: timeout, EOF, overflow); a
        finished exchange keeps its outcome."""
        if not self.finished:
            self.finished, self.failure = True, reason
        return []

    def _answered(self, response: dict[str, Any]) -> list[Message]:
        if "error" in response:  # the server's message and data are never shown
            return self.fail(f"{self.method} failed ({error_category(response['error'])})")
        result = response.get("result")
        if self.method == "initialize":
            self.init = result if isinstance(result, dict) else {}  # mcp-top reads on
            return [{"jsonrpc": "2.0", "method": "notifications/initialized"}, self._page({})]
        if not isinstance(result, dict):
            return self.fail("tools/list response has no result object")
        page = result.get("tools")
        if not isinstance(page, list):
            return self.fail("tools/list response has no tools list")
        self.tools.extend(t for t in page if isinstance(t, dict))
        cursor = result.get("nextCursor")
        if cursor is None or cursor == "":
            self.finished = True
            return []
        if not isinstance(cursor, str):
            return self.fail("tools/list nextCursor is not a string")
        return [self._page({"cursor": cursor})]

    def _page(self, params: dict[str, Any]) -> Message:
        self.method = "tools/list"
        self.request_id += 1
        return {"jsonrpc": "2.0", "id": self.request_id, "method": "tools/list", "params": params}


def _well_formed(message: dict[str, Any]) -> bool:
    """A JSON-RPC 2.0 request or notification a client would accept."""
    if message.get("jsonrpc") != "2.0" or not isinstance(message.get("method"), str):
        return False
    if "params" in message and not isinstance(message["params"], dict):
        return False
    rid = message.get("id", "")
    return isinstance(rid, str | int | float) and not isinstance(rid, bool)


def _reply_to(request: dict[str, Any]) -> Message:
    if request["method"] == "ping":
        return {"jsonrpc": "2.0", "id": request["id"], "result": {}}
    error = {"code": METHOD_NOT_FOUND, "message": "Method not found"}
    return {"jsonrpc": "2.0", "id": request["id"], "error": error}


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def expects_answer(message: Message) -> bool:
    """A request (a ``method`` and an ``id``), as opposed to a notification or a reply."""
    return "id" in message and "method" in message
