"""Codex rollouts: ``~/.codex/sessions/**/rollout-*.jsonl``, admitted by structure (a session_meta).

Each rollout is its own session group, keyed by file name. The project is the recorded ``cwd``.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

from wslmcp.boundaries.client_files import ClientFiles
from wslmcp.profile.attribution import normalize_project_key
from wslmcp.profile.transcripts.jsonl import LineStats, parse_timestamp, records
from wslmcp.profile.transcripts.model import (
    PAIRED,
    UNMEASURABLE,
    UNSUPPORTED,
    RecordedResult,
    ToolCall,
    Transcript,
    pair_results,
    utf8_size,
)
from wslmcp.profile.transcripts.names import PREFIX

MAX_BAD_RATIO = 0.1
_CALL_TYPES = ("function_call", "custom_tool_call")


def sessions_root(home: str) -> str:
    return f"{home.rstrip('/')}/.codex/sessions"


def find(files: ClientFiles, home: str) -> Iterator[str]:
    """Every ``rollout-*.jsonl`` below ``sessions/`` outside dot-directories, sorted."""
    root = sessions_root(home)
    for info in files.iter_files(root, ".jsonl"):
        rel = info.path[len(root) + 1 :].split("/")
        if rel[-1].startswith("rollout-") and not any(part.startswith(".") for part in rel[:-1]):
            yield info.path


def session_key(path: str, home: str) -> str:
    return path.rsplit("/", 1)[-1].removesuffix(".jsonl")


def parse(files: ClientFiles, path: str, home: str) -> Transcript:
    stats = LineStats()
    saw_meta = False
    project: str | None = None
    cwd_seen = False
    last: datetime | None = None
    calls: list[ToolCall] = []
    calls_by_id: dict[str, ToolCall] = {}
    seen_ids: set[str] = set()
    collisions: set[str] = set()
    results: list[RecordedResult] = []
    duplicates = 0
    for record in records(files, path, stats):
        stamp = record.get("timestamp")
        if isinstance(stamp, str):
            when = parse_timestamp(stamp)
            if when is not None and (last is None or when > last):
                last = when
        payload = record.get("payload")
        if not isinstance(payload, dict):
            continue
        kind = record.get("type")
        if kind == "session_meta":
            saw_meta = True
            cwd = payload.get("cwd")
            if not cwd_seen and isinstance(cwd, str) and cwd != "":
                cwd_seen = True
                project = normalize_project_key(cwd)
            continue
        if kind != "response_item":
            continue
        item_type = payload.get("type")
        if item_type == "function_call_output":
            raw_id = payload.get("call_id")
            call_id = raw_id if isinstance(raw_id, str) else None
            output = payload.get("output")
            if isinstance(output, str):
                size = utf8_size(output)
                results.append(
                    RecordedResult(call_id, 0, UNMEASURABLE)
                    if size is None
                    else RecordedResult(call_id, size, PAIRED)
                )
            else:
                results.append(RecordedResult(call_id, 0, UNSUPPORTED))
            continue
        if item_type not in _CALL_TYPES:
            continue
        call_id = payload.get("call_id")
        if isinstance(call_id, str) and call_id in seen_ids:
            collisions.add(call_id)
            duplicates += 1
            continue
        name = payload.get("name")
        if not isinstance(name, str):
            continue
        if isinstance(call_id, str):
            seen_ids.add(call_id)
        namespace = payload.get("namespace")
        call = _call(name, namespace if isinstance(namespace, str) else None)
        calls.append(call)
        if isinstance(call_id, str):
            calls_by_id[call_id] = call
    if stats.error is not None:
        return Transcript(path, "skipped", stats.error)
    common = {"last_ts": last, "bad_lines": stats.bad, "duplicate_tool_use": duplicates, "project": project}
    if not saw_meta:
        return Transcript(path, "skipped", "no session metadata found", **common)  # type: ignore[arg-type]
    if stats.non_empty and stats.bad / stats.non_empty > MAX_BAD_RATIO:
        reason = f"{stats.bad} of {stats.non_empty} lines unparseable"
        return Transcript(path, "skipped", reason, **common)  # type: ignore[arg-type]
    unpaired = pair_results(calls_by_id, collisions, results)
    return Transcript(path, "parsed", calls=calls, unpaired_results=unpaired, **common)  # type: ignore[arg-type]


def _call(name: str, namespace: str | None) -> ToolCall:
    if namespace is None:
        return ToolCall(name, "builtin")
    if namespace.startswith(PREFIX) and namespace != PREFIX:
        return ToolCall(name, "mcp", namespace[len(PREFIX) :], name)
    if namespace == PREFIX:
        return ToolCall(name, "mcp-unattributed")
    return ToolCall(name, "builtin")
