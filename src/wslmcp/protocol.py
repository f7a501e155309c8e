"""Facts of the MCP protocol our servers act on, without the SDK: the revisions, how a handshake
negotiates one, and which form an argument error takes in each.

The revision lists are the SDK's (``mcp_types.version``); ``tests/foundation/test_protocol.py``
holds them equal, so the front door and the SDK negotiate alike.
"""

from __future__ import annotations

import json

HANDSHAKE_VERSIONS: tuple[str, ...] = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
"""Revisions reached through the ``initialize`` handshake, oldest first."""

MODERN_VERSIONS: tuple[str, ...] = ("2026-07-28",)
"""Revisions that carry the protocol version in every request's ``_meta`` (no handshake)."""

KNOWN_VERSIONS = HANDSHAKE_VERSIONS + MODERN_VERSIONS
VERSION_META_KEY = "io.modelcontextprotocol/protocolVersion"

ARGUMENT_ERRORS_AS_RESULTS = "2025-11-25"
"""From this revision on (SEP-1303), arguments that fail validation are a tool result with
``isError: true``, so the model reads the message and corrects the call; before it they are a
JSON-RPC invalid-params error (-32602)."""


def at_least(version: str, minimum: str) -> bool:
    """``version`` is a known revision no older than ``minimum`` (an unknown one is not)."""
    return version in KNOWN_VERSIONS and KNOWN_VERSIONS.index(version) >= KNOWN_VERSIONS.index(minimum)


def negotiate(requested: str) -> str:
    """The revision a server answers ``initialize`` with: the client's when we speak it, else our
    newest handshake revision (the client then decides whether it can go on)."""
    return requested if requested in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]


def argument_errors_are_results(version: str) -> bool:
    return at_least(version, ARGUMENT_ERRORS_AS_RESULTS)


PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602
INTERNAL_ERROR = -32603
CONNECTION_CLOSED = -32000
"""The SDK's answer to a request still running when the session's input ends."""
QUOTE_CHARS = 200


def quote(value: object, limit: int = QUOTE_CHARS) -> str:
    """``value`` as JSON (ASCII, so lone surrogates are escapes), cut to ``limit`` characters."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=True, default=str)
    text = text.encode("ascii", "backslashreplace").decode("ascii")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def error_line(request_id: object, code: int, message: str) -> str:
    """One JSON-RPC error response, ASCII-only (an id may hold a lone surrogate)."""
    frame = {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
    return json.dumps(frame, ensure_ascii=True, separators=(",", ":"))


def result_line(request_id: object, result: object) -> str:
    frame = {"jsonrpc": "2.0", "id": request_id, "result": result}
    return json.dumps(frame, ensure_ascii=False, separators=(",", ":"))


def already_initialized(request_id: object) -> str:
    """The answer to a second ``initialize`` on a live session: a session is opened once."""
    return error_line(
        request_id,
        INVALID_REQUEST,
        "Invalid Request: this session is already initialized; initialize is sent once per session",
    )
