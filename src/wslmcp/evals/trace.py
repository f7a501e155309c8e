"""The neutral trace model and its file format ``wslmcp-trace/1`` (JSONL, header line first).

A trace is one agent session in order: user prompts, assistant texts and tool calls, each call with
its recorded result (or none: ``missing``, for hand-written traces that let replay supply results).
``server is None`` marks a builtin tool of the client (``Bash``, ``Read``, ``shell``); otherwise it is
the MCP server alias the client used. ``thinking``/``reasoning`` never appear here: they are no
part of what the agent said.

Reading is strict where meaning is at stake: the header must name ``wslmcp-trace`` with major 1
(another major is refused), events are objects of known ``type``; unknown keys are ignored.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from wslmcp.boundaries.mcp_session import ToolAnswer
from wslmcp.catalogue import INVALID_ARGUMENTS, INVALID_ARGUMENTS_LEAD
from wslmcp.profile.transcripts.jsonl import parse_timestamp
from wslmcp.protocol import INVALID_PARAMS

SCHEMA = "wslmcp-trace/1"
STATUSES = ("ok", "tool_error", "jsonrpc_error", "client_error", "missing")


class TraceError(ValueError):
    """A trace that cannot be read, with the file and the cause in one line."""


@dataclass
class Result(ToolAnswer):
    """A call's result: ``status`` (one of STATUSES), content blocks, ``structured`` and, for a
    ``jsonrpc_error``, ``error = {"code", "message"}``; the fields and JSON of a replayed answer."""

    @property
    def text(self) -> str:
        return "\n".join(
            str(b.get("text", "")) for b in self.content if isinstance(b, dict) and b.get("type") == "text"
        )

    @property
    def rejected_arguments(self) -> bool:
        """The server refused the call's arguments, in either protocol form: JSON-RPC -32602 (before
        2025-11-25), or a tool error coded ``invalid_arguments`` (its text, where a client kept
        only that, starts with ``catalogue.INVALID_ARGUMENTS_LEAD``)."""
        if self.status == "jsonrpc_error":
            return self.code == INVALID_PARAMS
        if self.status != "tool_error":
            return False
        return self.code == INVALID_ARGUMENTS or self.text.startswith(INVALID_ARGUMENTS_LEAD)

    @property
    def code(self) -> str | int | None:
        """The JSON-RPC code, or the tool error code of a structured ``{"error": {"code"}}``."""
        if self.error is not None:
            value = self.error.get("code")
            return value if isinstance(value, str | int) else None
        if self.structured is not None and isinstance(self.structured.get("error"), dict):
            value = self.structured["error"].get("code")
            return value if isinstance(value, str | int) else None
        return None


@dataclass
class Call:
    n: int
    call_id: str | None
    server: str | None
    tool: str
    arguments: Any
    group: int
    result: Result = field(default_factory=lambda: Result("missing"))
    at: float | None = None  # when it was sent (epoch seconds), where the client wrote it

    @property
    def builtin(self) -> bool:
        return self.server is None


@dataclass
class Message:
    role: str  # "user" | "assistant"
    text: str
    at: float | None = None  # when it was written (epoch seconds), where the client wrote it


Event = Message | Call


@dataclass
class Trace:
    source: dict[str, Any]
    events: list[Event] = field(default_factory=list)

    @property
    def calls(self) -> list[Call]:
        return [e for e in self.events if isinstance(e, Call)]

    @property
    def question(self) -> str:
        """The first user prompt of the last investigation."""
        prompts = [e.text for e in self.events if isinstance(e, Message) and e.role == "user"]
        return prompts[-1] if prompts else ""


def text_content(text: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": text}]


def structured_of(text: str) -> dict[str, Any] | None:
    """The text parsed as JSON when it is one of observe's answers: an object with ``snapshot`` or
    ``error``, a history (``history``) or a metric series (``metric`` and ``values``)."""
    stripped = text.strip()
    if not stripped.startswith("{"):
        return None
    try:
        value = json.loads(stripped)
    except ValueError:
        return None
    if isinstance(value, dict) and (
        "snapshot" in value or "error" in value or "history" in value or {"metric", "values"} <= set(value)
    ):
        return value
    return None


def dump(trace: Trace) -> Iterator[str]:
    """The trace as ``wslmcp-trace/1`` lines (no newlines inside)."""
    yield _line({"schema": SCHEMA, "source": trace.source})
    for event in trace.events:
        when = {} if event.at is None else {"at": _iso(event.at)}
        if isinstance(event, Message):
            yield _line({"type": event.role, "text": event.text, **when})
        else:
            yield _line(
                {
                    "type": "call",
                    "n": event.n,
                    "call_id": event.call_id,
                    "server": event.server,
                    "tool": event.tool,
                    "group": event.group,
                    "arguments": event.arguments,
                    "result": event.result.to_json(),
                    **when,
                }
            )


def _iso(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def time_of(value: object) -> float | None:
    """An event's time: an ISO 8601 timestamp (as the clients write them) or epoch seconds."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    when = parse_timestamp(value) if isinstance(value, str) else None
    return when.timestamp() if when is not None else None


def _line(obj: Mapping[str, Any]) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def is_header(record: Mapping[str, Any]) -> bool:
    schema = record.get("schema")
    return isinstance(schema, str) and schema.startswith("wslmcp-trace/")


def load(path: str, records: Iterable[dict[str, Any]]) -> Trace:
    """Read ``wslmcp-trace/1`` records (already parsed JSON objects, header first)."""
    it = iter(records)
    header = next(it, None)
    if header is None or not is_header(header):
        raise TraceError(f"{path}: line 1 is not a wslmcp-trace header")
    major = str(header["schema"]).split("/", 1)[1].split(".", 1)[0]
    if major != "1":
        raise TraceError(
            f"{path}: unsupported trace schema {header['schema']!r} (this wslmcp reads {SCHEMA})"
        )
    source = header.get("source") if isinstance(header.get("source"), dict) else {}
    trace = Trace(source={"format": "wslmcp-trace", "path": path, **dict(source or {})})
    n = 0
    for i, record in enumerate(it, start=2):
        kind = record.get("type")
        if kind in ("user", "assistant"):
            text = record.get("text")
            if not isinstance(text, str):
                raise TraceError(f"{path}: event {i}: 'text' must be a string")
            trace.events.append(Message(str(kind), text, time_of(record.get("at"))))
        elif kind == "call":
            n += 1
            trace.events.append(_call(path, i, record, n))
        else:
            raise TraceError(f"{path}: event {i}: unknown type {kind!r} (user, assistant or call)")
    return trace


def _call(path: str, i: int, record: Mapping[str, Any], n: int) -> Call:
    tool = record.get("tool")
    server = record.get("server")
    if not isinstance(tool, str) or not tool:
        raise TraceError(f"{path}: event {i}: a call needs a 'tool' name")
    if server is not None and not isinstance(server, str):
        raise TraceError(f"{path}: event {i}: 'server' must be a string or null")
    group = record.get("group")
    call_id = record.get("call_id")
    return Call(
        n=record["n"] if isinstance(record.get("n"), int) and not isinstance(record.get("n"), bool) else n,
        call_id=call_id if isinstance(call_id, str) else None,
        server=server,
        tool=tool,
        arguments=record.get("arguments", {}),
        group=group if isinstance(group, int) else n,
        result=_result(path, i, record.get("result")),
        at=time_of(record.get("at")),
    )


def _result(path: str, i: int, raw: object) -> Result:
    if raw is None:
        return Result("missing")
    if not isinstance(raw, dict):
        raise TraceError(f"{path}: event {i}: 'result' must be an object")
    status = raw.get("status", "ok")
    if status not in STATUSES:
        raise TraceError(f"{path}: event {i}: result status {status!r} is not one of {', '.join(STATUSES)}")
    content = raw.get("content")
    if isinstance(content, str):
        content = text_content(content)
    if not isinstance(content, list):
        content = []
    if "text" in raw and isinstance(raw["text"], str) and not content:
        content = text_content(raw["text"])
    structured = raw.get("structured")
    if not isinstance(structured, dict):
        structured = structured_of(Result("ok", content).text) if content else None
    error = raw.get("error")
    return Result(str(status), content, structured, error if isinstance(error, dict) else None)
