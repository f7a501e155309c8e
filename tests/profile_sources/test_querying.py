"""Who gets launched (mcp-top §4.1), tool filters (§4.2) and the bounded pool."""

from __future__ import annotations

import io
import threading
import time
from dataclasses import replace
from typing import Any

import pytest

from wslmcp.boundaries.mcp_launcher import ServerAnswer, ServerSpec
from wslmcp.fakes.mcp_launcher import FakeMcpLauncher
from wslmcp.fakes.replay import ReplayMiss
from wslmcp.profile import querying
from wslmcp.profile.model import ConfiguredServer, QueryResult
from wslmcp.profile.querying import PoolStats, apply_tool_filters, plan, query_all, stderr_progress


def srv(name: str = "s", **kw: Any) -> ConfiguredServer:
    base: dict[str, Any] = {
        "cli": "claude-code",
        "name": name,
        "scope": "user",
        "source_path": "/h/.claude.json",
        "transport": "stdio",
        "command": "cmd",
    }
    return ConfiguredServer(**{**base, **kw})


def tool(name: object) -> dict[str, Any]:
    return {"name": name, "inputSchema": {"type": "object"}}


# ---- the gate, each rule and its precedence -------------------------------------------------


def test_gate_reserved_first() -> None:
    s = srv("workspace", reserved=True, scope="project", enabled=False, transport="http")
    result = plan(s, no_query=True, query_project=False)
    assert result is not None and (result.status, result.error) == (
        "unsupported",
        querying.NOT_QUERIED_RESERVED,
    )


def test_gate_project_scope_needs_query_project() -> None:
    s = srv(scope="project", enabled=False)
    gated = plan(s, no_query=False, query_project=False)
    assert gated is not None and gated.error == querying.NOT_QUERIED_PROJECT
    again = plan(s, no_query=False, query_project=True)
    assert again is not None and again.error == querying.NOT_QUERIED_DISABLED
    assert plan(replace(s, enabled=True), no_query=False, query_project=True) is None


def test_gate_user_project_scope_is_queried_by_default() -> None:
    assert plan(srv(scope="user-project"), no_query=False, query_project=False) is None


def test_gate_disabled_before_no_query() -> None:
    gated = plan(srv(enabled=False), no_query=True, query_project=False)
    assert gated is not None and gated.error == "disabled in config -- not queried"


def test_gate_no_query() -> None:
    gated = plan(srv(transport="http"), no_query=True, query_project=False)
    assert gated is not None and gated.error == "skipped by --no-query"


@pytest.mark.parametrize("transport", ["http", "sse", "unknown"])
def test_gate_non_stdio_is_never_contacted(transport: str) -> None:
    gated = plan(srv(transport=transport), no_query=False, query_project=False)
    assert gated is not None and gated.error == "unsupported transport (this version queries stdio only)"


def test_gate_stdio_without_command_is_an_error() -> None:
    gated = plan(srv(command=None, transport="stdio"), no_query=False, query_project=False)
    assert gated is not None and (gated.status, gated.error) == ("error", "stdio server has no command")


# ---- tool filters -----------------------------------------------------------------------------


def test_filters_enabled_then_disabled_and_unmatched_names() -> None:
    tools = [tool("a"), tool("b"), tool("c"), tool(5)]
    out = apply_tool_filters(srv(enabled_tools=("a", "b", "zz", "yy"), disabled_tools=("b",)), tools)
    assert [t["name"] for t in out.kept] == ["a"]
    assert out.filtered == 3
    assert out.unmatched_enabled == ("yy", "zz")


def test_empty_enabled_tools_hides_everything_and_reports_nothing_unmatched() -> None:
    out = apply_tool_filters(srv(enabled_tools=()), [tool("a"), tool("b")])
    assert (out.kept, out.filtered, out.unmatched_enabled) == ((), 2, ())


def test_no_filter_keeps_all_including_nameless_tools() -> None:
    out = apply_tool_filters(srv(), [tool("a"), {"description": "no name"}])
    assert len(out.kept) == 2 and out.filtered == 0


# ---- query_all over the fake ------------------------------------------------------------------


def test_query_all_shapes_gated_ok_and_failed_results_in_order() -> None:
    fake = FakeMcpLauncher(
        [
            ServerAnswer(
                name="good",
                server_name="G",
                server_version="1",
                protocol_version="2025-06-18",
                instructions="hi",
                tools=(tool("a"), tool("b")),
            ),
            ServerAnswer(name="bad", error="server closed stdout before response id 1"),
        ]
    )
    servers = [srv("good", disabled_tools=("b",)), srv("off", enabled=False), srv("bad")]
    results = query_all(fake, servers, timeout_s=5.0)
    assert list(results) == [s.key for s in servers]
    good = results[("claude-code", "good")]
    assert (good.status, good.server_name, good.instructions, good.tool_count, good.filtered_tools) == (
        "ok",
        "G",
        "hi",
        1,
        1,
    )
    assert results[("claude-code", "off")].status == "unsupported"
    bad = results[("claude-code", "bad")]
    assert (bad.status, bad.error, bad.tool_count) == (
        "error",
        "server closed stdout before response id 1",
        None,
    )
    assert [name for name, _ in fake.calls] == ["good", "bad"]


def test_startup_timeout_replaces_the_default_deadline() -> None:
    fake = FakeMcpLauncher([ServerAnswer(name="a"), ServerAnswer(name="b")])
    query_all(fake, [srv("a", startup_timeout_s=2.5), srv("b")], timeout_s=7.0)
    assert sorted(fake.calls) == [("a", 2.5), ("b", 7.0)]


def test_fake_replays_a_slow_recording_as_a_timeout() -> None:
    fake = FakeMcpLauncher([ServerAnswer(name="slow", duration_s=3.0)])
    results = query_all(fake, [srv("slow")], timeout_s=1.5)
    assert results[("claude-code", "slow")].error == "timeout after 1.5 seconds"


def test_fake_miss_is_loud() -> None:
    with pytest.raises(ReplayMiss, match="not recorded: server 'nope'"):
        query_all(FakeMcpLauncher([ServerAnswer(name="nop")]), [srv("nope")], timeout_s=1.0)


def test_no_query_launches_nothing() -> None:
    fake = FakeMcpLauncher([])
    results = query_all(fake, [srv("a"), srv("b")], timeout_s=1.0, no_query=True)
    assert fake.calls == [] and {r.error for r in results.values()} == {"skipped by --no-query"}


class GateLauncher:
    """A boundary double that holds every query until released, counting those in flight."""

    def __init__(self) -> None:
        self.in_flight = 0
        self.peak = 0
        self.release = threading.Event()
        self.lock = threading.Lock()

    def query(self, spec: ServerSpec, timeout_s: float) -> ServerAnswer:
        with self.lock:
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)
            if self.peak >= 3:
                self.release.set()
        assert self.release.wait(10)
        time.sleep(0.001)  # let another worker try to start while this one is still in flight
        with self.lock:
            self.in_flight -= 1
        return ServerAnswer(name=spec.name)


def test_pool_never_exceeds_its_bound_and_reports_progress() -> None:
    launcher = GateLauncher()
    stats = PoolStats()
    seen: list[tuple[int, int]] = []
    servers = [srv(f"s{i}") for i in range(10)]
    results = query_all(
        launcher,
        servers,
        timeout_s=1.0,
        concurrency=3,
        stats=stats,
        progress=lambda done, total, name: seen.append((done, total)),
    )
    assert launcher.peak == 3 and stats.max_in_flight == 3
    assert len(results) == 10 and all(r.ok for r in results.values())
    assert seen == [(i, 10) for i in range(1, 11)]


def test_bad_pool_arguments_are_rejected() -> None:
    with pytest.raises(ValueError, match="concurrency"):
        query_all(FakeMcpLauncher([]), [], timeout_s=1.0, concurrency=0)
    with pytest.raises(ValueError, match="timeout"):
        query_all(FakeMcpLauncher([]), [], timeout_s=float("nan"))


def test_progress_line_overwrites_itself_and_clears_at_the_end() -> None:
    out = io.StringIO()
    show = stderr_progress(out)
    show(1, 2, "first\x1b[31m")
    show(2, 2, "second")
    text = out.getvalue()
    assert text.startswith("\rwslmcp profile: queried 1/2 server(s) (last: first?[31m)")
    assert "\x1b" not in text and "\n" not in text
    assert text.endswith("\r") and text.split("\r")[-2].strip() == ""


def test_reserved_and_project_scope_servers_are_never_launched_by_default() -> None:
    fake = FakeMcpLauncher([ServerAnswer(name="shared"), ServerAnswer(name="mine")])
    servers = [srv("computer-use", reserved=True), srv("shared", scope="project"), srv("mine")]
    results = query_all(fake, servers, timeout_s=1.0)
    assert [name for name, _ in fake.calls] == ["mine"]
    assert results[("claude-code", "shared")].error == querying.NOT_QUERIED_PROJECT
    query_all(fake, servers, timeout_s=1.0, query_project=True)
    assert [name for name, _ in fake.calls] == ["mine", "shared", "mine"]


def test_gate_http_servers_only_with_query_http_and_a_url() -> None:
    remote = srv("r", transport="http", command=None, url="https://example.invalid/mcp", headers={"K": "v"})
    assert plan(remote, no_query=False, query_project=False) == QueryResult(
        "claude-code", "r", "unsupported", querying.NOT_QUERIED_TRANSPORT
    )
    assert plan(remote, no_query=False, query_project=False, query_http=True) is None
    spec = querying.launch_spec(remote)
    assert (spec.url, dict(spec.headers), spec.command) == ("https://example.invalid/mcp", {"K": "v"}, "")
    assert "example.invalid" not in repr(spec) and "'v'" not in repr(spec)
    nourl = srv("n", transport="http", command=None)
    assert plan(nourl, no_query=False, query_project=False, query_http=True) == QueryResult(
        "claude-code", "n", "error", querying.NO_URL
    )
    old_sse = srv("e", transport="sse", command=None, url="https://example.invalid/sse")
    gated = plan(old_sse, no_query=False, query_project=False, query_http=True)
    assert gated is not None and gated.error == querying.NOT_QUERIED_TRANSPORT
    assert plan(remote, no_query=True, query_project=False, query_http=True) is not None  # --no-query wins
