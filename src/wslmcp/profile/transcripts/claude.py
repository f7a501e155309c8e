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
from wslmcp.profile.transcripts.jsonl import LineStats, latest, records
from wslmcp.profile.transcripts.model import (
    PAIRED,
    PARTIAL,
    UNMEASURABLE,
    UNSUPPORTED,
    CallLog,
    RecordedResult,
    ToolCall,
    Transcript,
    text_result,
    utf8_size,
)
from wslmcp.profile.transcripts.names import PREFIX, longest_first, split_mcp_name

SUPPORTED_VERSION = re.compile(r"2\.\d")


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
    log = CallLog()
    kinds: dict[str, tuple[str, str | None, str | None]] = {}  # a name's attribution, once per file
    keep_result = log.results.append
    for record in records(files, path, stats, exact_numbers=False):
        if "version" in record:
            version = record["version"]
            if not isinstance(version, str):
                malformed_version = True
            elif version not in versions:
                versions.append(version)
        last = latest(last, record.get("timestamp"))
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
                    keep_result(_result(block))
            continue
        sidechain = record.get("isSidechain") is True
        for block in content:
            if not isinstance(block, dict) or block.get("type") != "tool_use":
                continue
            name = block.get("name")
            call = None
            if isinstance(name, str):
                kind_of = kinds.get(name) or kinds.setdefault(name, _attribution(name, servers))
                call = ToolCall(name, *kind_of, sidechain=sidechain)
            log.add_new(call, block.get("id"))
    if stats.error is not None:
        return Transcript(path, "skipped", stats.error, project=project)
    skip = _skip_reason(malformed_version, versions, stats)
    return log.transcript(path, skip, last_ts=last, bad_lines=stats.bad, project=project)


def _skip_reason(malformed: bool, versions: list[str], stats: LineStats) -> str | None:
    if malformed:
        return "malformed version marker"
    for version in versions:
        if SUPPORTED_VERSION.match(version) is None:
            return f'unknown format version "{version}"'
    if not versions:
        return "no version marker found"
    return stats.too_many_bad()


def _attribution(name: str, servers: Sequence[str]) -> tuple[str, str | None, str | None]:
    """(kind, server, tool) of a tool name: an MCP server's, an unattributed MCP name, or built-in."""
    split = split_mcp_name(name, servers)
    if split is not None:
        return "mcp", split[0], split[1]
    if name.startswith(PREFIX):
        return "mcp-unattributed", None, None
    return "builtin", None, None


def _result(block: dict[str, Any]) -> RecordedResult:
    raw_id = block.get("tool_use_id")
    call_id = raw_id if isinstance(raw_id, str) else None
    content = block.get("content")
    if isinstance(content, str):
        return text_result(call_id, content)
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


def format_skip_reason(malformed: bool, versions: list[str], stats: LineStats) -> str | None:
    """Why a transcript is not read (version marker, bad lines), or None: shared with ``wslmcp eval``."""
    return _skip_reason(malformed, versions, stats)


def note_version(record: dict[str, Any], versions: list[str]) -> bool:
    """Add a record's ``version`` marker to ``versions`` (first seen first); True when it is malformed."""
    if "version" not in record:
        return False
    version = record["version"]
    if not isinstance(version, str):
        return True
    if version not in versions:
        versions.append(version)
    return False
