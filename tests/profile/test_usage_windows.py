"""§8: the usage window (grouping, future and old sessions, caps, project filter, tallies)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from wslmcp.profile.attribution import (
    claude_project_key,
    claude_slug,
    codex_project_key,
    normalize_project_key,
)
from wslmcp.profile.transcripts.model import ToolCall, Transcript
from wslmcp.profile.usage_windows import count_usage

NOW = datetime(2026, 1, 15, tzinfo=UTC)


def t(
    when: datetime | None,
    calls: list[ToolCall] | None = None,
    project: str | None = "p",
    status: str = "parsed",
    unpaired: int = 0,
) -> Transcript:
    return Transcript(
        "/x", status, calls=calls or [], last_ts=when, project=project, unpaired_results=unpaired
    )


def mcp(server: str, tool: str, kind: str | None = "paired", size: int | None = 8) -> ToolCall:
    return ToolCall(f"mcp__{server}__{tool}", "mcp", server, tool, result_kind=kind, result_bytes=size)


def test_subagent_files_share_their_parent_group_and_its_latest_time() -> None:
    old = NOW - timedelta(days=40)
    parent = t(old, [mcp("s", "a")])
    child = t(NOW - timedelta(days=1), [mcp("s", "b")])
    window = count_usage([parent, child], ["g/1", "g/1"], sessions=30, days=30, now=NOW)
    assert window.sessions_considered == 1
    assert window.server_tool_counts == {"s": {"a": 1, "b": 1}}


def test_future_groups_beyond_five_minutes_are_excluded_and_counted() -> None:
    soon = t(NOW + timedelta(minutes=4), [mcp("s", "a")])
    later = t(NOW + timedelta(minutes=6), [mcp("s", "b")])
    window = count_usage([soon, later], ["a", "b"], sessions=30, days=30, now=NOW)
    assert window.future_sessions == 1
    assert window.server_tool_counts == {"s": {"a": 1}}


def test_old_groups_fall_out_and_the_newest_n_count() -> None:
    files = [t(NOW - timedelta(days=d), [mcp("s", f"d{d}")]) for d in (1, 2, 3, 31)]
    window = count_usage(files, ["a", "b", "c", "d"], sessions=2, days=30, now=NOW)
    assert window.sessions_considered == 2
    assert window.server_tool_counts == {"s": {"d1": 1, "d2": 1}}


def test_files_without_timestamp_or_not_parsed_never_count() -> None:
    files = [t(None, [mcp("s", "a")]), t(NOW, [mcp("s", "b")], status="skipped")]
    window = count_usage(files, ["a", "b"], sessions=30, days=30, now=NOW)
    assert window.sessions_considered == 0 and window.total_tool_calls == 0


def test_project_filter_applies_before_the_session_cap() -> None:
    files = [
        t(NOW - timedelta(hours=1), [mcp("s", "other")], project="q"),
        t(NOW - timedelta(hours=2), [mcp("s", "mine")], project="p"),
        t(NOW - timedelta(hours=3), [mcp("s", "none")], project=None),
    ]
    window = count_usage(files, ["a", "b", "c"], sessions=1, days=30, now=NOW, project_filter="p")
    assert window.sessions_matching_project == 1 == window.sessions_considered
    assert window.server_tool_counts == {"s": {"mine": 1}}
    # attribution facts come from the home-wide top-N (here: only the newest group)
    assert window.server_calls_by_project == {"s": {"q": 1}}
    assert (window.sessions_with_project, window.sessions_unattributed) == (1, 0)


def test_group_with_two_projects_is_unattributed() -> None:
    files = [t(NOW, [mcp("s", "a")], project="p"), t(NOW, [], project="q")]
    window = count_usage(files, ["g", "g"], sessions=30, days=30, now=NOW)
    assert window.sessions_unattributed == 1
    assert window.server_calls_by_project == {"s": {"(unattributed)": 1}}


def test_result_tallies_and_footprint_bytes() -> None:
    calls = [
        mcp("s", "a", "paired", 10),
        mcp("s", "b", "partial", 0),
        mcp("s", "c", "unsupported", 0),
        mcp("s", "d", None, None),
        ToolCall("Read", "builtin", result_kind="unmeasurable", result_bytes=0),
        ToolCall("mcp__x", "mcp-unattributed"),
    ]
    window = count_usage([t(NOW, calls, unpaired=2)], ["g"], sessions=30, days=30, now=NOW)
    r = window.results
    assert (r.paired, r.partial, r.unsupported, r.unmeasurable, r.unpaired_results, r.unpaired_calls) == (
        1,
        1,
        1,
        1,
        2,
        1,
    )
    assert window.server_result_bytes == {"s": [10, 0]}
    assert (window.total_tool_calls, window.mcp_tool_calls, window.unattributed_mcp_calls) == (6, 4, 1)


def test_claude_slug_is_lossy_one_dash_per_code_point() -> None:
    assert claude_slug("/home/u/my_proj.v2") == "-home-u-my-proj-v2"
    assert claude_slug("/tmp/a_b") == claude_slug("/tmp/a.b")
    assert claude_slug("/tmp/é") == "-tmp--"
    assert claude_project_key("proj/./x/", "/home/u") == "-home-u-proj-x"


def test_codex_project_key_normalizes_the_path() -> None:
    assert normalize_project_key("/work//a/../proj/") == "/work/proj"
    assert normalize_project_key("/") == ""
    assert codex_project_key("proj", "/home/u") == "/home/u/proj"
