"""Coverage: what the profiler could and could not see, reported at the top of every output."""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from wslmcp.profile.model import QueryResult
from wslmcp.profile.transcripts.model import Transcript
from wslmcp.profile.usage_windows import ResultTally, UsageWindow

NO_ADAPTER_NOTE = "no transcript adapter for this CLI"
NO_TRANSCRIPTS_NOTE = "no transcripts found -- usage unknown"
NO_SESSIONS_NOTE = "no usable sessions in the window -- usage unknown"


@dataclass
class Coverage:
    transcripts_found: int = 0
    transcripts_parsed: int = 0
    transcripts_skipped: list[tuple[str, str]] = field(default_factory=list)
    in_window: int | None = None
    total_tool_calls: int | None = None
    mcp_tool_calls: int | None = None
    servers_queried_ok: int = 0
    servers_query_failed: list[tuple[str, str]] = field(default_factory=list)
    servers_unsupported: int = 0
    config_warnings: list[str] = field(default_factory=list)
    parsed_without_timestamp: int = 0
    bad_lines_in_parsed: int = 0
    future_sessions: int = 0
    duplicate_tool_use: int = 0
    unattributed_mcp_calls: int = 0
    usage_note: str | None = None
    unmatched_enabled_tools: list[tuple[str, list[str]]] = field(default_factory=list)
    project_filter_active: bool = False
    sessions_with_project: int = 0
    sessions_unattributed: int = 0
    sessions_matching_project: int = 0
    recorded_results: ResultTally | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "transcripts_found": self.transcripts_found,
            "transcripts_parsed": self.transcripts_parsed,
            "transcripts_skipped": [list(item) for item in self.transcripts_skipped],
            "in_window": self.in_window,
            "total_tool_calls": self.total_tool_calls,
            "mcp_tool_calls": self.mcp_tool_calls,
            "servers_queried_ok": self.servers_queried_ok,
            "servers_query_failed": [list(item) for item in self.servers_query_failed],
            "servers_unsupported": self.servers_unsupported,
            "config_warnings": list(self.config_warnings),
            "parsed_without_timestamp": self.parsed_without_timestamp,
            "bad_lines_in_parsed": self.bad_lines_in_parsed,
            "future_sessions": self.future_sessions,
            "duplicate_tool_use": self.duplicate_tool_use,
            "unattributed_mcp_calls": self.unattributed_mcp_calls,
            "usage_note": self.usage_note,
            "unmatched_enabled_tools": [
                [server, list(names)] for server, names in self.unmatched_enabled_tools
            ],
            "project_filter_active": self.project_filter_active,
            "sessions_with_project": self.sessions_with_project,
            "sessions_unattributed": self.sessions_unattributed,
            "sessions_matching_project": self.sessions_matching_project,
            "recorded_results": None if self.recorded_results is None else self.recorded_results.as_json(),
        }


def build(
    transcripts: Sequence[Transcript],
    window: UsageWindow | None,
    results: Sequence[QueryResult],
    warnings: Sequence[str],
    usage_note: str | None,
) -> Coverage:
    parsed = [t for t in transcripts if t.parsed]
    cov = Coverage(
        transcripts_found=len(transcripts),
        transcripts_parsed=len(parsed),
        transcripts_skipped=[
            (t.path, t.skip_reason or "unspecified reason") for t in transcripts if not t.parsed
        ],
        servers_queried_ok=sum(1 for r in results if r.status == "ok"),
        servers_query_failed=[(r.server, r.error or "unknown error") for r in results if r.status == "error"],
        servers_unsupported=sum(1 for r in results if r.status == "unsupported"),
        config_warnings=list(warnings),
        parsed_without_timestamp=sum(1 for t in parsed if t.last_ts is None),
        bad_lines_in_parsed=sum(t.bad_lines for t in parsed),
        duplicate_tool_use=sum(t.duplicate_tool_use for t in parsed),
        unmatched_enabled_tools=[
            (r.server, list(r.unmatched_enabled_tools)) for r in results if r.ok and r.unmatched_enabled_tools
        ],
        usage_note=usage_note,
    )
    if window is None:
        cov.usage_note = usage_note or NO_ADAPTER_NOTE
        return cov
    cov.in_window = window.sessions_considered
    cov.total_tool_calls = window.total_tool_calls
    cov.mcp_tool_calls = window.mcp_tool_calls
    cov.unattributed_mcp_calls = window.unattributed_mcp_calls
    cov.future_sessions = window.future_sessions
    cov.project_filter_active = window.project_filter is not None
    cov.sessions_with_project = window.sessions_with_project
    cov.sessions_unattributed = window.sessions_unattributed
    cov.sessions_matching_project = window.sessions_matching_project
    cov.recorded_results = window.results
    if window.sessions_considered == 0:
        cov.usage_note = usage_note or (NO_SESSIONS_NOTE if transcripts else NO_TRANSCRIPTS_NOTE)
    return cov


def render(cov: Coverage) -> str:
    if cov.in_window is None:
        usage = "usage: unknown (no transcript adapter)"
    else:
        usage = f"{cov.in_window} in window; {cov.total_tool_calls} tool calls ({cov.mcp_tool_calls} MCP)"
    lines = [
        f"Coverage: {cov.transcripts_found} transcripts found, {cov.transcripts_parsed} parsed, "
        f"{len(cov.transcripts_skipped)} skipped; {usage}; server queries: {cov.servers_queried_ok} ok, "
        f"{len(cov.servers_query_failed)} failed, {cov.servers_unsupported} not queried"
    ]
    if cov.parsed_without_timestamp:
        lines.append(
            f"  {cov.parsed_without_timestamp} parsed transcript(s) had no usable timestamp and were "
            "excluded from the window"
        )
    if cov.bad_lines_in_parsed:
        lines.append(
            f"  {cov.bad_lines_in_parsed} line(s) were unparseable across parsed transcripts and are not counted"
        )
    if cov.future_sessions:
        lines.append(
            f"  {cov.future_sessions} transcript group(s) had future-dated timestamps and were excluded "
            "from the window"
        )
    if cov.duplicate_tool_use:
        lines.append(f"  {cov.duplicate_tool_use} duplicate tool_use block(s) were excluded from call counts")
    if cov.unattributed_mcp_calls:
        lines.append(
            f"  {cov.unattributed_mcp_calls} MCP-prefixed call(s) could not be attributed to a server"
        )
    tally = cov.recorded_results
    if tally is not None and tally.any():
        lines.append(
            f"  recorded results: {tally.paired} paired, {tally.partial} partial, {tally.unsupported} "
            f"unsupported, {tally.unmeasurable} unmeasurable, {tally.unpaired_results} unpaired result(s), "
            f"{tally.unpaired_calls} unpaired call(s) (recorded result footprint is a recorded-bytes lower bound)"
        )
    if cov.project_filter_active:
        lines.append(
            f"  usage scoped to the current project: {cov.sessions_matching_project} in-project session(s), "
            f"{cov.sessions_unattributed} unattributed session(s) excluded"
        )
    if cov.usage_note is not None:
        lines.append(f"  usage: {cov.usage_note}")
    for server, names in cov.unmatched_enabled_tools:
        lines.append(
            f"  {server}: enabled_tools names not returned by this tools/list snapshot: {', '.join(names)}"
        )
    for path, reason in cov.transcripts_skipped:
        lines.append(f"  skipped {shorten(path)}: {reason}")
    for server, error in cov.servers_query_failed:
        lines.append(f"  server query failed {server}: {error}")
    for warning in cov.config_warnings:
        lines.append(f"  config warning: {warning}")
    return "\n".join(lines)


def shorten(path: str) -> str:
    normalized = posixpath.normpath(path).replace("\\", "/")
    for marker in ("/.claude/projects/", "/.codex/sessions/"):
        at = normalized.casefold().find(marker)
        if at >= 0:
            return "~" + normalized[at:]
    return normalized
