"""The usage window: which recent session groups count, and what was called in them.

Files group into sessions (subagents under their parent). A group's time is its latest timestamp;
groups newer than now + 5 minutes are future-dated and excluded; groups older than ``days`` are
out. The newest ``sessions`` groups count. With a project filter, only groups attributed to that
project count, and the filter applies before the session cap.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta

from wslmcp.profile.transcripts.model import PAIRED, PARTIAL, UNMEASURABLE, UNSUPPORTED, Transcript

FUTURE_GRACE = timedelta(minutes=5)
UNATTRIBUTED = "(unattributed)"


@dataclass
class ResultTally:
    paired: int = 0
    partial: int = 0
    unsupported: int = 0
    unmeasurable: int = 0
    unpaired_results: int = 0
    unpaired_calls: int = 0

    def as_json(self) -> dict[str, int]:
        return asdict(self)

    def any(self) -> bool:
        return any(self.as_json().values())


@dataclass
class UsageWindow:
    sessions: int
    days: int
    sessions_considered: int = 0
    total_tool_calls: int = 0
    server_tool_counts: dict[str, dict[str, int]] = field(default_factory=dict)
    unattributed_mcp_calls: int = 0
    future_sessions: int = 0
    project_filter: str | None = None
    sessions_with_project: int = 0
    sessions_unattributed: int = 0
    sessions_matching_project: int = 0
    server_calls_by_project: dict[str, dict[str, int]] = field(default_factory=dict)
    server_result_bytes: dict[str, list[int]] = field(default_factory=dict)
    results: ResultTally = field(default_factory=ResultTally)

    @property
    def mcp_tool_calls(self) -> int:
        return sum(sum(tools.values()) for tools in self.server_tool_counts.values())


@dataclass
class _Group:
    when: datetime
    files: list[Transcript]

    @property
    def project(self) -> str | None:
        projects = {f.project for f in self.files if f.project is not None}
        return next(iter(projects)) if len(projects) == 1 else None


def count_usage(
    transcripts: Sequence[Transcript],
    keys: Sequence[str],
    *,
    sessions: int,
    days: int,
    now: datetime,
    project_filter: str | None = None,
) -> UsageWindow:
    groups: dict[str, _Group] = {}
    for transcript, key in zip(transcripts, keys, strict=True):
        if not transcript.parsed or transcript.last_ts is None:
            continue
        group = groups.get(key)
        if group is None:
            groups[key] = _Group(transcript.last_ts, [transcript])
        else:
            group.files.append(transcript)
            group.when = max(group.when, transcript.last_ts)
    future_limit = now + FUTURE_GRACE
    cutoff = now - timedelta(days=days)
    window = UsageWindow(sessions=sessions, days=days, project_filter=project_filter)
    window.future_sessions = sum(1 for g in groups.values() if g.when > future_limit)
    eligible = sorted(
        (g for g in groups.values() if cutoff <= g.when <= future_limit),
        key=lambda g: g.when,
        reverse=True,
    )
    home_included = eligible[:sessions]
    if project_filter is None:
        verdict_groups = home_included
    else:
        verdict_groups = [g for g in eligible if g.project == project_filter][:sessions]
        window.sessions_matching_project = len(verdict_groups)
    window.sessions_considered = len(verdict_groups)
    _attribute(window, home_included)
    _tally(window, verdict_groups)
    return window


def _attribute(window: UsageWindow, groups: list[_Group]) -> None:
    for group in groups:
        project = group.project
        if project is None:
            window.sessions_unattributed += 1
        else:
            window.sessions_with_project += 1
        bucket = project or UNATTRIBUTED
        for transcript in group.files:
            for call in transcript.calls:
                if call.kind == "mcp" and call.server is not None and call.tool is not None:
                    per_project = window.server_calls_by_project.setdefault(call.server, {})
                    per_project[bucket] = per_project.get(bucket, 0) + 1


def _tally(window: UsageWindow, groups: list[_Group]) -> None:
    results = window.results
    for group in groups:
        for transcript in group.files:
            results.unpaired_results += transcript.unpaired_results
            for call in transcript.calls:
                kind = call.result_kind
                if kind == PAIRED:
                    results.paired += 1
                elif kind == PARTIAL:
                    results.partial += 1
                elif kind == UNSUPPORTED:
                    results.unsupported += 1
                elif kind == UNMEASURABLE:
                    results.unmeasurable += 1
                window.total_tool_calls += 1
                if call.kind == "mcp" and call.server is not None and call.tool is not None:
                    tools = window.server_tool_counts.setdefault(call.server, {})
                    tools[call.tool] = tools.get(call.tool, 0) + 1
                    if kind in (PAIRED, PARTIAL) and call.result_bytes is not None:
                        window.server_result_bytes.setdefault(call.server, []).append(call.result_bytes)
                    if kind is None:
                        results.unpaired_calls += 1
                elif call.kind == "mcp-unattributed":
                    window.unattributed_mcp_calls += 1
