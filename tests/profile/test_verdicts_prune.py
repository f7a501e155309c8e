"""§9-10: verdicts, row order, recorded-result footprint, and both --prune tiers."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from wslmcp.profile.engine import build_cli_report
from wslmcp.profile.model import CliDiscovery, ConfiguredServer, QueryResult, ShadowedEntry
from wslmcp.profile.tokens import Tokens
from wslmcp.profile.transcripts.model import ToolCall, Transcript
from wslmcp.profile.usage_windows import UsageWindow, count_usage
from wslmcp.profile.verdicts import footprint, nearest_rank, verdict

NOW = datetime(2026, 1, 15, tzinfo=UTC)
TOOLS = ({"name": "a", "description": "does a"},)


@pytest.mark.parametrize(
    ("calls", "status", "usage", "expected"),
    [
        (None, "ok", "unsupported", "unknown"),
        (0, "ok", "no-data", "unknown"),
        (0, "ok", "measured", "prune"),
        (0, "error", "measured", "review"),
        (0, "unsupported", "measured", "review"),
        (1, "ok", "measured", "review"),
        (3, "ok", "measured", "review"),
        (4, "ok", "measured", "keep"),
    ],
)
def test_every_verdict_branch(calls: int | None, status: str, usage: str, expected: str) -> None:
    assert verdict(calls, status, usage) == expected


def test_nearest_rank_percentiles_and_ceiling_of_the_sum() -> None:
    assert nearest_rank([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 90) == 9
    assert nearest_rank([7], 50) == 7
    fp = footprint([1, 1, 1, 0])
    assert fp is not None
    assert fp.total_tokens == Tokens(1, False)  # ceil(3/4), not 1+1+1
    assert (fp.max_tokens.value, fp.p50_tokens.value, fp.p90_tokens.value, fp.results) == (1, 1, 1, 4)
    assert footprint([]) is None


def server(name: str, scope: str = "user", **kw: object) -> ConfiguredServer:
    return ConfiguredServer(
        cli=kw.pop("cli", "claude-code"),
        name=name,
        scope=scope,
        source_path="/h/.claude.json",
        transport="stdio",
        **kw,
    )  # type: ignore[arg-type]


def window_with(
    calls: list[ToolCall], project: str | None = "p", project_filter: str | None = None
) -> UsageWindow:
    return count_usage(
        [Transcript("/t", "parsed", calls=calls, last_ts=NOW, project=project)],
        ["g"],
        sessions=30,
        days=30,
        now=NOW,
        project_filter=project_filter,
    )


def report(
    servers: list[ConfiguredServer],
    window: UsageWindow | None,
    warnings: tuple[str, ...] = (),
    ok: tuple[str, ...] = (),
):  # type: ignore[no-untyped-def]
    cli = servers[0].cli if servers else "claude-code"
    found = CliDiscovery(cli=cli, servers=tuple(servers), warnings=warnings)
    results = {s.key: QueryResult(s.cli, s.name, "ok", tools=TOOLS) for s in servers if s.name in ok}
    return build_cli_report(found, results, [], window, warnings=list(warnings))


def call(server: str, tool: str = "a") -> ToolCall:
    return ToolCall(f"mcp__{server}__{tool}", "mcp", server, tool, result_kind="paired", result_bytes=40)


def test_rows_sort_by_verdict_then_cost_then_name_and_unconfigured_servers_appear() -> None:
    servers = [server("b"), server("a"), server("keep"), server("unqueried")]
    got = report(servers, window_with([call("keep")] * 4 + [call("ghost")]), ok=("a", "b", "keep"))
    assert [(r.server, r.verdict) for r in got.rows] == [
        ("a", "prune"),
        ("b", "prune"),
        ("ghost", "review"),
        ("unqueried", "review"),
        ("keep", "keep"),
    ]
    ghost = next(r for r in got.rows if r.server == "ghost")
    assert (ghost.scope, ghost.def_error, ghost.calls) == ("(not configured)", "server is not configured", 1)
    kept = next(r for r in got.rows if r.server == "keep")
    assert kept.recorded_result_footprint is not None and kept.recorded_result_footprint.total_bytes == 160


def test_no_window_means_unknown_usage_and_no_calls() -> None:
    got = report([server("c", cli="cursor")], None, ok=("c",))
    assert [(r.calls, r.usage_status, r.verdict) for r in got.rows] == [(None, "unsupported", "unknown")]


def test_empty_window_is_no_data_never_prune() -> None:
    empty = count_usage([], [], sessions=30, days=30, now=NOW)
    got = report([server("a")], empty, ok=("a",))
    assert (
        got.rows[0].verdict == "unknown"
        and got.coverage.usage_note == "no transcripts found -- usage unknown"
    )


def test_clean_user_scope_prune_is_a_suggestion_with_a_command() -> None:
    got = report([server("a")], window_with([]), ok=("a",))
    (item,) = got.removals
    assert item.kind == "suggestion" and item.reasons == ()
    assert item.recipe()["argv"] == ["claude", "mcp", "remove", "--scope", "user", "a"]


def test_zero_cost_reserved_and_unqueried_rows_get_no_removal() -> None:
    zero = ConfiguredServer("claude-code", "z", "user", "/h", "stdio")
    found = CliDiscovery("claude-code", (zero, server("workspace", reserved=True)))
    results = {
        zero.key: QueryResult("claude-code", "z", "ok"),
        ("claude-code", "workspace"): QueryResult("claude-code", "workspace", "ok", tools=TOOLS),
    }
    got = build_cli_report(found, results, [], window_with([]), warnings=[])
    assert [r.verdict for r in got.rows] == ["prune", "prune"]
    assert got.removals == []


def test_enabled_shadow_reactivates_and_disabled_shadow_does_not() -> None:
    shadow_on = (ShadowedEntry("user", "/h/.claude.json", True),)
    shadow_off = (ShadowedEntry("user", "/h/.claude.json", False),)
    on = report(
        [server("a", "user-project", shadowed=shadow_on)], window_with([], project_filter="p"), ok=("a",)
    )
    off = report(
        [server("a", "user-project", shadowed=shadow_off)], window_with([], project_filter="p"), ok=("a",)
    )
    assert on.removals[0].kind == "candidate" and on.removals[0].reactivates is not None
    assert off.removals[0].kind == "suggestion"
    assert off.removals[0].recipe()["argv"][4] == "local"


def test_unparsed_config_layer_makes_a_candidate() -> None:
    got = report([server("a")], window_with([]), warnings=("could not parse /h/x.json: boom",), ok=("a",))
    assert got.removals[0].kind == "candidate"
    assert "could not be parsed" in got.removals[0].reasons[0]


def test_codex_resolution_caveat_and_guidance_recipe() -> None:
    caveat = "a project-layer .codex/config.toml also defines this server"
    got = report(
        [server("dotted.name", cli="codex", resolution_caveat=caveat)], window_with([]), ok=("dotted.name",)
    )
    (item,) = got.removals
    assert item.reasons == (caveat,)
    assert '[mcp_servers."dotted.name"]' in item.recipe()["change"]


def test_non_user_scope_without_project_usage_is_a_candidate() -> None:
    got = report([server("a", "user-project")], window_with([]), ok=("a",))
    assert got.removals[0].kind == "candidate"
    assert got.removals[0].reasons[0].startswith("usage is counted across all projects")


def test_project_usage_reasons_for_other_projects_and_unattributed_calls() -> None:
    calls = [call("a"), ToolCall("mcp__x", "mcp-unattributed")]
    window = count_usage(
        [
            Transcript("/1", "parsed", calls=calls, last_ts=NOW, project="elsewhere"),
            Transcript("/2", "parsed", calls=[call("a")], last_ts=NOW, project=None),
            Transcript(
                "/3", "parsed", calls=[ToolCall("mcp__y", "mcp-unattributed")], last_ts=NOW, project="p"
            ),
        ],
        ["1", "2", "3"],
        sessions=30,
        days=30,
        now=NOW,
        project_filter="p",
    )
    got = report([server("a")], window, ok=("a",))
    (item,) = got.removals
    assert [r.split(" ", 3)[:3] for r in item.reasons] == [
        ["server", "has", "1"],
        ["1", "call(s)", "could"],
        ["the", "recent", "window"],
        ["1", "MCP", "call(s)"],
    ]
