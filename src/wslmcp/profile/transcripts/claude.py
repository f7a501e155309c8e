"""Claude Code transcripts: ``~/.claude/projects/<slug>/**/*.jsonl``, format 2.x only.

A file's session group is ``<slug>/<first component under the slug>``, so subagent transcripts
(``<slug>/<session>/subagents/agent-x.jsonl``) group with their parent. The project is the slug.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Any

from wslmcp.boundaries.client_files import ClientFiles
from wslmcp.profile.transcripts.jsonl import LineStats, parse_timestamp, records
from wslmcp.profile.transcripts.model import (
    PAIRED,
    PARTIAL,
    UNMEASURABLE,
    UNSUPPORTED,
    RecordedResult,
    ToolCall,
    Transcript,
    pair_results,
    utf8_size,
)
from wslmcp.profile.transcripts.names import PREFIX, longest_first, split_mcp_name

SUPPORTED_VERSION = re.compile(r"2\.\d")
MAX_BAD_RATIO = 0.1


def projects_root(home: str) -> str:
    return f"{home.rstrip('/')}/.claude/projects"


def find(files: ClientFiles, home: str) -> Iterator[str]:
    """Every ``*.jsonl`` at least one directory below ``projects/``, skipping dot-names, sorted."""
    root = projects_root(home)
    for info in files.iter_files(root, ".jsonl"):
        rel = info.path[len(root) + 1 :].split("/")
        if len(rel) < 2 or any(part.startswith(".") for part in rel):
            continue
        yield info.path


def session_key(path: str, home: str) -> str:
    slug, first = path[len(projects_root(home)) + 1 :].split("/")[:2]
    return f"{slug}/{first.removesuffix('.jsonl')}"


def project_of(path: str, home: str) -> str | None:
    slug = path[len(projects_root(home)) + 1 :].split("/", maxsplit=1)[0]
    return slug or None


def parse(files: ClientFiles, path: str, home: str, configured: Sequence[str]) -> Transcript:
    project = project_of(path, home)
    servers = longest_first(configured)
    stats = LineStats()
    versions: list[str] = []
    malformed_version = False
    last: datetime | None = None
    calls: list[ToolCall] = []
    calls_by_id: dict[str, ToolCall] = {}
    seen_ids: set[str] = set()
    collisions: set[str] = set()
    results: list[RecordedResult] = []
    duplicates = 0
    for record in records(files, path, stats):
        if "version" in record:
            version = record["version"]
            if not isinstance(version, str):
                malformed_version = True
            elif version not in versions:
                versions.append(version)
        stamp = record.get("timestamp")
        if isinstance(stamp, str):
            when = parse_timestamp(stamp)
            if when is not None and (last is None or when > last):
                last = when
        kind = record.get("type")
        if kind not in {"user", "assistant"}:
            continue
        message = record.get("message")
        if not isinstance(message, dict):
            continue
        content = message.get("content")
        if not isinstance(content, list):
            continue
        if kind == "user":
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    results.append(_result(block))
            continue
        sidechain = record.get("isSidechain") is True
        for block in content:
            if not isinstance(block, dict) or block.get("type") != "tool_use":
                continue
            call_id = block.get("id")
            if isinstance(call_id, str):
                if call_id in seen_ids:
                    collisions.add(call_id)
                    duplicates += 1
                    continue
                seen_ids.add(call_id)
            name = block.get("name")
            if not isinstance(name, str):
                continue
            call = _call(name, sidechain, servers)
            calls.append(call)
            if isinstance(call_id, str):
                calls_by_id[call_id] = call
    if stats.error is not None:
        return Transcript(path, "skipped", stats.error, project=project)
    skip = _skip_reason(malformed_version, versions, stats)
    if skip is not None:
        return Transcript(
            path,
            "skipped",
            skip,
            last_ts=last,
            bad_lines=stats.bad,
            duplicate_tool_use=duplicates,
            project=project,
        )
    unpaired = pair_results(calls_by_id, collisions, results)
    return Transcript(
        path,
        "parsed",
        calls=calls,
        last_ts=last,
        bad_lines=stats.bad,
        duplicate_tool_use=duplicates,
        project=project,
        unpaired_results=unpaired,
    )


def _skip_reason(malformed: bool, versions: list[str], stats: LineStats) -> str | None:
    if malformed:
        return "malformed version marker"
    for version in versions:
        if SUPPORTED_VERSION.match(version) is None:
            return f'unknown format version "{version}"'
    if not versions:
        return "no version marker found"
    if stats.non_empty and stats.bad / stats.non_empty > MAX_BAD_RATIO:
        return f"{stats.bad} of {stats.non_empty} lines unparseable"
    return None


def _call(name: str, sidechain: bool, servers: Sequence[str]) -> ToolCall:
    split = split_mcp_name(name, servers)
    if split is not None:
        return ToolCall(name, "mcp", split[0], split[1], sidechain)
    if name.startswith(PREFIX):
        return ToolCall(name, "mcp-unattributed", sidechain=sidechain)
    return ToolCall(name, "builtin", sidechain=sidechain)


def _result(block: dict[str, Any]) -> RecordedResult:
    raw_id = block.get("tool_use_id")
    call_id = raw_id if isinstance(raw_id, str) else None
    content = block.get("content")
    if isinstance(content, str):
        size = utf8_size(content)
        return (
            RecordedResult(call_id, 0, UNMEASURABLE)
            if size is None
            else RecordedResult(call_id, size, PAIRED)
        )
    if not isinstance(content, list):
        return RecordedResult(call_id, 0, UNSUPPORTED)
    total = 0
    non_text = False
    for item in content:
        if isinstance(item, dict) and item.get("type") == "text" and isinstance(item.get("text"), str):
            size = utf8_size(item["text"])
            if size is None:
                return RecordedResult(call_id, 0, UNMEASURABLE)
            total += size
        else:
            non_text = True
    if non_text and total == 0:
        return RecordedResult(call_id, 0, UNSUPPORTED)
    return RecordedResult(call_id, total, PARTIAL if non_text else PAIRED)
