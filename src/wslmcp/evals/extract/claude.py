"""Claude Code transcripts (format 2.x) into the neutral trace.

Lines are read by the profiler's reader (``profile.transcripts.jsonl.records``) and gated by its
rules (version marker, bad-line ratio, repeated ``tool_use`` ids dropped), so ``wslmcp profile`` and
``wslmcp eval`` never disagree on what a transcript holds. Claude Code writes one record per content
block; blocks of one ``message.id`` share a call group (parallel calls). ``thinking`` blocks are
never part of the answer; ``isSidechain`` records (subagents), ``isMeta`` prompts and the texts
Claude Code writes itself (slash commands and their output, interruptions) are skipped.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from wslmcp.evals.trace import Call, Message, Result, Trace, TraceError, structured_of, text_content
from wslmcp.profile.transcripts.claude import format_skip_reason, note_version
from wslmcp.profile.transcripts.jsonl import LineStats
from wslmcp.profile.transcripts.names import longest_first, split_mcp_name

_MCP_ERROR = re.compile(r"MCP error (-?\d+): ?(.*)", re.DOTALL)
# user texts Claude Code writes itself (slash commands, their output, interruptions): no prompt
_CLIENT_TEXT = ("<command-name>", "<command-message>", "<local-command-stdout>", "[Request interrupted")


def extract(path: str, records: Iterable[dict[str, Any]], stats: LineStats, servers: Sequence[str]) -> Trace:
    configured = longest_first(servers)
    trace = Trace(source={"format": "claude-code", "path": path})
    by_id: dict[str, Call] = {}
    seen_ids: set[str] = set()
    groups: dict[str, int] = {}
    versions: list[str] = []
    malformed = False
    n = 0
    for record in records:
        malformed = note_version(record, versions) or malformed
        if isinstance(record.get("sessionId"), str):
            trace.source.setdefault("session_id", record["sessionId"])
        kind = record.get("type")
        message = record.get("message")
        if kind not in ("user", "assistant") or not isinstance(message, dict):
            continue
        if record.get("isSidechain") is True or record.get("isMeta") is True:
            continue
        content = message.get("content")
        if kind == "user":
            _user(trace, content, by_id)
            continue
        if isinstance(message.get("model"), str):
            trace.source.setdefault("model", message["model"])
        if not isinstance(content, list):
            continue
        key = message.get("id") if isinstance(message.get("id"), str) else f"record {n}"
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                trace.events.append(Message("assistant", block["text"]))
            elif block.get("type") == "tool_use" and isinstance(block.get("name"), str):
                call_id = block.get("id") if isinstance(block.get("id"), str) else None
                if call_id is not None and call_id in seen_ids:
                    continue  # a repeated id: dropped, as the profiler does
                if call_id is not None:
                    seen_ids.add(call_id)
                n += 1
                group = groups.setdefault(str(key), len(groups) + 1)
                split = split_mcp_name(block["name"], configured)
                server, tool = split if split is not None else (None, block["name"])
                call = Call(n, call_id, server, tool, block.get("input", {}), group)
                trace.events.append(call)
                if call_id is not None:
                    by_id[call_id] = call
    if stats.error is not None:
        raise TraceError(f"{path}: {stats.error}")
    reason = format_skip_reason(malformed, versions, stats)
    if reason is not None:
        raise TraceError(f"{path}: not a readable Claude Code transcript: {reason}")
    trace.source["client_version"] = versions[-1]
    return trace


def _user(trace: Trace, content: object, by_id: dict[str, Call]) -> None:
    if isinstance(content, str):
        if not content.lstrip().startswith(_CLIENT_TEXT):
            trace.events.append(Message("user", content))
        return
    if not isinstance(content, list):
        return
    blocks = [b for b in content if isinstance(b, dict)]
    results = [b for b in blocks if b.get("type") == "tool_result"]
    if not results:
        texts = [str(b["text"]) for b in blocks if b.get("type") == "text" and isinstance(b.get("text"), str)]
        if texts and not texts[0].lstrip().startswith(_CLIENT_TEXT):
            trace.events.append(Message("user", "\n".join(texts)))
        return
    for block in results:
        call = by_id.get(str(block.get("tool_use_id")))
        if call is not None:
            call.result = result_of(block.get("content"), block.get("is_error") is True)


def result_of(content: object, is_error: bool) -> Result:
    """A tool_result's content (a string or a list of blocks) as a recorded result."""
    if isinstance(content, str):
        blocks = text_content(content)
    elif isinstance(content, list):
        blocks = [b for b in content if isinstance(b, dict)]
    else:
        blocks = []
    result = Result("tool_error" if is_error else "ok", blocks)
    text = result.text
    if is_error:
        match = _MCP_ERROR.match(text.strip())
        if match:
            result.status = "jsonrpc_error"
            result.error = {"code": int(match.group(1)), "message": match.group(2)}
            return result
        if "<tool_use_error>" in text:
            result.status = "client_error"
            return result
    result.structured = structured_of(text)
    return result
