"""Codex rollouts into the neutral trace.

Read through the profiler's reader and rules (a ``session_meta`` record is required; the bad-line
ratio). ``function_call``/``custom_tool_call`` with a ``namespace`` of ``mcp__<server>`` are MCP calls
on that server; without one they are builtin. ``arguments`` is a JSON string. An output is a string:
an MCP envelope ``{"content": [...], "isError": ...}`` (or a bare list of content blocks) gives the
text blocks; anything else is the text itself. ``<environment_context>``/``<user_instructions>``
user messages and ``reasoning`` items are no part of the conversation.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from wslmcp.evals.trace import Call, Message, Result, Trace, TraceError, structured_of, text_content
from wslmcp.profile.transcripts.jsonl import LineStats
from wslmcp.profile.transcripts.names import PREFIX

_CALL_TYPES = ("function_call", "custom_tool_call")
_CONTEXT = ("<environment_context>", "<user_instructions>")
_MCP_ERROR = re.compile(r"(?:MCP error|tool call error:.*?) ?(-3\d{4}): ?(.*)", re.DOTALL)


def extract(path: str, records: Iterable[dict[str, Any]], stats: LineStats) -> Trace:
    trace = Trace(source={"format": "codex", "path": path})
    saw_meta = False
    by_id: dict[str, Call] = {}
    seen: set[str] = set()
    n = group = 0
    open_group = False
    for record in records:
        payload = record.get("payload")
        if not isinstance(payload, dict):
            continue
        kind = record.get("type")
        if kind == "session_meta":
            saw_meta = True
            for key, name in (("id", "session_id"), ("cli_version", "client_version")):
                if isinstance(payload.get(key), str):
                    trace.source.setdefault(name, payload[key])
            continue
        if kind == "turn_context" and isinstance(payload.get("model"), str):
            trace.source.setdefault("model", payload["model"])
        if kind != "response_item":
            continue
        item = payload.get("type")
        if item == "message":
            open_group = False
            _message(trace, payload)
        elif item in _CALL_TYPES and isinstance(payload.get("name"), str):
            call_id = payload.get("call_id") if isinstance(payload.get("call_id"), str) else None
            if call_id is not None and call_id in seen:
                continue
            if call_id is not None:
                seen.add(call_id)
            n += 1
            if not open_group:
                group += 1
                open_group = True
            call = Call(
                n, call_id, _server(payload.get("namespace")), payload["name"], _arguments(payload), group
            )
            trace.events.append(call)
            if call_id is not None:
                by_id[call_id] = call
        elif item in ("function_call_output", "custom_tool_call_output"):
            open_group = False
            done = by_id.get(str(payload.get("call_id")))
            if done is not None:
                done.result = output_of(payload.get("output"))
    if stats.error is not None:
        raise TraceError(f"{path}: {stats.error}")
    reason = "no session metadata found" if not saw_meta else stats.too_many_bad()
    if reason is not None:
        raise TraceError(f"{path}: not a readable Codex rollout: {reason}")
    return trace


def _server(namespace: object) -> str | None:
    if isinstance(namespace, str) and namespace.startswith(PREFIX) and namespace != PREFIX:
        return namespace[len(PREFIX) :]
    return None


def _arguments(payload: dict[str, Any]) -> Any:
    raw = payload.get("arguments", payload.get("input"))
    if not isinstance(raw, str):
        return raw if raw is not None else {}
    try:
        return json.loads(raw) if raw.strip() else {}
    except ValueError:
        return raw


def _message(trace: Trace, payload: dict[str, Any]) -> None:
    role = payload.get("role")
    content = payload.get("content")
    if role not in ("user", "assistant") or not isinstance(content, list):
        return
    wanted = "input_text" if role == "user" else "output_text"
    texts = [
        str(b["text"])
        for b in content
        if isinstance(b, dict) and b.get("type") in (wanted, "text") and isinstance(b.get("text"), str)
    ]
    text = "\n".join(texts)
    if not texts or (role == "user" and text.lstrip().startswith(_CONTEXT)):
        return
    trace.events.append(Message(str(role), text))


def output_of(output: object) -> Result:
    """A function_call_output's ``output`` as a recorded result."""
    is_error = False
    structured: dict[str, Any] | None = None
    if isinstance(output, dict):  # older rollouts: {"content": str, "success": bool}
        is_error = output.get("success") is False
        output = output.get("content", "")
    if not isinstance(output, str):
        return Result("ok", [])
    blocks = text_content(output)
    try:
        parsed = json.loads(output) if output.lstrip()[:1] in ("{", "[") else None
    except ValueError:
        parsed = None
    if isinstance(parsed, dict) and isinstance(parsed.get("content"), list):
        blocks = [b for b in parsed["content"] if isinstance(b, dict)]
        is_error = is_error or parsed.get("isError") is True or parsed.get("is_error") is True
        if isinstance(parsed.get("structuredContent"), dict):
            structured = parsed["structuredContent"]
    elif isinstance(parsed, list) and all(isinstance(b, dict) and "type" in b for b in parsed):
        blocks = parsed
    result = Result("tool_error" if is_error else "ok", blocks)
    match = _MCP_ERROR.match(result.text.strip())
    if match:
        result.status = "jsonrpc_error"
        result.error = {"code": int(match.group(1)), "message": match.group(2)}
        return result
    result.structured = structured or structured_of(result.text)
    return result
