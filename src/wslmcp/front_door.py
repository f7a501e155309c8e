"""The handshake answered while the server is still loading.

Importing the MCP SDK takes most of a second (it builds several hundred pydantic models), and our
servers' domains a few hundred milliseconds more; a client pays that at every session start. So
``wslmcp.stdio`` starts reading at once and this front door answers, from plain data, what a
session opens with: ``initialize``, ``ping`` and, once initialized, ``tools/list`` in the
revisions whose tool fields we fill (2025-06-18 on). Anything else, or anything it is not sure it
reads exactly as the SDK would, it parks: the SDK answers it once loaded, after being handed the
opening ``initialize`` so that its session is in the same state (``opening_for_sdk``).
``tests/foundation/test_front_door.py`` holds every answer here equal to the SDK's own.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from wslmcp import protocol
from wslmcp.catalogue import ServerSpec

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


@dataclass
class FrontDoor:
    spec: ServerSpec
    version: str
    negotiated: str | None = None
    opening: dict[str, Any] | None = None

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
            return protocol.result_line(rid, self.handshake())
        if method == "ping" and set(params) <= {"_meta"}:
            return protocol.result_line(rid, {})
        if method == "tools/list" and self._lists_tools(params):
            return protocol.result_line(rid, {"tools": [t.listing() for t in self.spec.tools]})
        return None

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
