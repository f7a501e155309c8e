"""Codex rollouts: ``~/.codex/sessions/**/rollout-*.jsonl``, admitted by structure (a session_meta).

Each rollout is its own session group, keyed by file name. The project is the recorded ``cwd``.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

from wslmcp.boundaries.client_files import ClientFiles
from wslmcp.profile.attribution import normalize_project_key
from wslmcp.profile.transcripts.jsonl import LineStats, latest, records
from wslmcp.profile.transcripts.model import (
    UNSUPPORTED,
    CallLog,
    RecordedResult,
    ToolCall,
    Transcript,
    text_result,
)
from wslmcp.profile.transcripts.names import PREFIX

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


def session_key(path: str) -> str:
    return path.rsplit("/", 1)[-1].removesuffix(".jsonl")


def parse(files: ClientFiles, path: str) -> Transcript:
    stats = LineStats()
    saw_meta = False
    project: str | None = None
    last: datetime | None = None
    log = CallLog()
    for record in records(files, path, stats, exact_numbers=False):
        last = latest(last, record.get("timestamp"))
        payload = record.get("payload")
        if not isinstance(payload, dict):
            continue
        kind = record.get("type")
        if kind == "session_meta":
            saw_meta = True
            cwd = payload.get("cwd")
            if project is None and isinstance(cwd, str) and cwd != "":
                project = normalize_project_key(cwd)
            continue
        if kind != "response_item":
            continue
        item_type = payload.get("type")
        if item_type == "function_call_output":
            raw_id = payload.get("call_id")
            call_id = raw_id if isinstance(raw_id, str) else None
            output = payload.get("output")
            log.results.append(
                text_result(call_id, output)
                if isinstance(output, str)
                else RecordedResult(call_id, 0, UNSUPPORTED)
            )
            continue
        if item_type not in _CALL_TYPES:
            continue
        call_id = payload.get("call_id")
        if log.repeated(call_id):
            continue
        name = payload.get("name")
        if isinstance(name, str):
            namespace = payload.get("namespace")
            log.add(_call(name, namespace if isinstance(namespace, str) else None), call_id)
    if stats.error is not None:
        return Transcript(path, "skipped", stats.error)
    skip = "no session metadata found" if not saw_meta else stats.too_many_bad()
    return log.transcript(path, skip, last_ts=last, bad_lines=stats.bad, project=project)


def _call(name: str, namespace: str | None) -> ToolCall:
    if namespace is None:
        return ToolCall(name, "builtin")
    if namespace.startswith(PREFIX) and namespace != PREFIX:
        return ToolCall(name, "mcp", namespace[len(PREFIX) :], name)
    if namespace == PREFIX:
        return ToolCall(name, "mcp-unattributed")
    return ToolCall(name, "builtin")
