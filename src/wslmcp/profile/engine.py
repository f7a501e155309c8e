"""The profiler engine: configs + server answers + transcripts -> one report per CLI.

``run(...)`` is the whole pipeline. Server queries (I/O-bound, through the McpLauncher boundary) run
concurrently with transcript scanning (CPU-bound, through ClientFiles, in a worker thread).
``build_cli_report`` is the pure join, used directly by tests.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from wslmcp.boundaries.client_files import ClientFiles
from wslmcp.boundaries.clock import Clock
from wslmcp.boundaries.mcp_launcher import McpLauncher
from wslmcp.profile import attribution, coverage, definitions, prune, regimes, verdicts
from wslmcp.profile.model import CliDiscovery, ConfiguredServer, DiscoveryResult, QueryResult, ServerKey
from wslmcp.profile.querying import query_all
from wslmcp.profile.transcripts import claude, codex
from wslmcp.profile.transcripts.model import Transcript
from wslmcp.profile.usage_windows import UsageWindow, count_usage

GENERATED_NOTE = "Definition token counts use the chars/4 heuristic; ~ means estimate."
CURSOR_USAGE_NOTE = "Cursor stores chats in undocumented SQLite; no transcript adapter -- usage unknown"


@dataclass(frozen=True)
class Request:
    home: str
    project: str
    cwd: str
    sessions: int = 30
    days: int = 30
    timeout_s: float = 20.0
    cli: str = "all"
    no_query: bool = False
    query_project: bool = False
    project_usage: bool = False
    concurrency: int = 8
    managed_settings: str = regimes.MANAGED_SETTINGS_LINUX


@dataclass
class CliReport:
    cli: str
    rows: list[verdicts.Row]
    window: UsageWindow | None
    coverage: coverage.Coverage
    removals: list[prune.Removal]
    queries: list[QueryResult] = field(default_factory=list)


@dataclass
class Report:
    clis: list[CliReport]
    note: str | None = None
    generated_note: str = GENERATED_NOTE
    wslmcp: dict[str, Any] = field(default_factory=dict)


@dataclass
class Scan:
    """Transcripts of one CLI: every file found, in sorted order, with its session key."""

    transcripts: list[Transcript] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)


def scan(files: ClientFiles, cli: str, home: str, configured: Sequence[str]) -> Scan | None:
    """None for a CLI without a transcript adapter (Cursor)."""
    result = Scan()
    if cli == "claude-code":
        for path in claude.find(files, home):
            result.transcripts.append(claude.parse(files, path, home, configured))
            result.keys.append(claude.session_key(path, home))
        return result
    if cli == "codex":
        for path in codex.find(files, home):
            result.transcripts.append(codex.parse(files, path))
            result.keys.append(codex.session_key(path))
        return result
    return None


def project_key(cli: str, project: str, cwd: str) -> str | None:
    if cli == "claude-code":
        return attribution.claude_project_key(project, cwd)
    if cli == "codex":
        return attribution.codex_project_key(project, cwd)
    return None


Progress = Callable[[int, int, str], None]


async def run(
    files: ClientFiles,
    launcher: McpLauncher,
    clock: Clock,
    request: Request,
    *,
    discovery: DiscoveryResult,
    progress: Progress | None = None,
) -> Report:
    """Query every server (bounded pool) while scanning transcripts, then join per CLI."""
    servers = discovery.servers()
    scans_task = asyncio.to_thread(
        lambda: {c.cli: scan(files, c.cli, request.home, [s.name for s in c.servers]) for c in discovery.clis}
    )
    queries_task = query_all(
        launcher,
        servers,
        request.timeout_s,
        concurrency=request.concurrency,
        progress=progress,
        no_query=request.no_query,
        query_project=request.query_project,
    )
    scans, results = await asyncio.gather(scans_task, queries_task)
    now = datetime.fromtimestamp(clock.wall(), UTC)
    settings_warnings: list[str] = []
    signals: list[regimes.Signal] = []
    if discovery.cli("claude-code") is not None:
        layers = regimes.read_layers(
            files,
            regimes.settings_paths(request.home, request.project, request.managed_settings),
            settings_warnings,
        )
        signals = regimes.claude_signals(layers)
    reports = []
    for found in discovery.clis:
        found_scan = scans[found.cli]
        window = None
        if found_scan is not None:
            window = count_usage(
                found_scan.transcripts,
                found_scan.keys,
                sessions=request.sessions,
                days=request.days,
                now=now,
                project_filter=project_key(found.cli, request.project, request.cwd)
                if request.project_usage
                else None,
            )
        warnings = list(found.warnings) + (settings_warnings if found.cli == "claude-code" else [])
        reports.append(
            build_cli_report(
                found,
                results,
                [] if found_scan is None else found_scan.transcripts,
                window,
                warnings=warnings,
                signals=signals,
            )
        )
    note = None
    if request.cli == "all" and not discovery.clis:
        note = f"no supported CLIs detected under {request.home}"
    return Report(clis=reports, note=note)


def regime_for(server: ConfiguredServer, signals: Sequence[regimes.Signal]) -> regimes.Regime:
    if server.cli == "claude-code":
        return regimes.claude_server_regime(server.name, server.source_path, server.always_load, signals)
    return regimes.fixed_regime(server.cli)


def build_cli_report(
    found: CliDiscovery,
    results: Mapping[ServerKey, QueryResult],
    transcripts: Sequence[Transcript],
    window: UsageWindow | None,
    *,
    warnings: Sequence[str],
    signals: Sequence[regimes.Signal] = (),
) -> CliReport:
    if window is None:
        usage_status = "unsupported"
    elif window.sessions_considered == 0:
        usage_status = "no-data"
    else:
        usage_status = "measured"
    called = {} if window is None else window.server_tool_counts
    byte_counts = {} if window is None else window.server_result_bytes
    rows: list[verdicts.Row] = []
    queries: list[QueryResult] = []
    for server in found.servers:
        result = results.get(server.key) or QueryResult(
            server.cli, server.name, "unsupported", "definitions not queried"
        )
        queries.append(result)
        regime = regime_for(server, signals)
        advertised, floor = definitions.token_range(result, server.name, found.cli, regime.name)
        tools = dict(called.get(server.name, {}))
        calls = sum(tools.values()) if usage_status == "measured" else None
        rows.append(
            verdicts.Row(
                server=server.name,
                scope=server.scope,
                transport=server.transport,
                advertised_max_tokens=advertised,
                upfront_floor_tokens=floor,
                loading_regime=regime.name,
                regime_evidence=list(regime.evidence),
                def_status=result.status,
                def_error=result.error,
                tool_count=result.tool_count,
                calls=calls,
                usage_status=usage_status,
                called_tools=tools,
                verdict=verdicts.verdict(calls, result.status, usage_status),
                filtered_tools=result.filtered_tools,
                recorded_result_footprint=verdicts.footprint(byte_counts.get(server.name, [])),
            )
        )
    configured = {s.name for s in found.servers}
    for name, tools in called.items():
        if name in configured:
            continue
        calls = sum(tools.values())
        rows.append(
            verdicts.Row(
                server=name,
                scope=verdicts.NOT_CONFIGURED,
                transport="unknown",
                advertised_max_tokens=None,
                upfront_floor_tokens=None,
                loading_regime="unknown",
                regime_evidence=[],
                def_status="unsupported",
                def_error="server is not configured",
                tool_count=None,
                calls=calls,
                usage_status="measured",
                called_tools=dict(tools),
                verdict=verdicts.verdict(calls, "unsupported", "measured"),
                recorded_result_footprint=verdicts.footprint(byte_counts.get(name, [])),
            )
        )
    verdicts.sort_rows(rows)
    removals = prune.classify(
        found.cli, rows, {s.name: s for s in found.servers}, _provenance_incomplete(warnings), window
    )
    usage_note = CURSOR_USAGE_NOTE if found.cli == "cursor" else None
    cov = coverage.build(transcripts, window, queries, warnings, usage_note)
    return CliReport(found.cli, rows, window, cov, removals, queries)


def _provenance_incomplete(warnings: Sequence[str]) -> bool:
    return any(w.startswith(("could not parse", "could not read")) for w in warnings)


def extras(report: Report, request: Request) -> dict[str, Any]:
    """What we add to the v3 document, under its one extra key "wslmcp" (v3 readers ignore it)."""
    return {
        "version": _version(),
        "query": {"concurrency": request.concurrency, "timeout_s": request.timeout_s},
        "servers": [
            {
                "cli": q.cli,
                "server": q.server,
                "def_status": q.status,
                "server_name": q.server_name,
                "server_version": q.server_version,
                "protocol_version": q.protocol_version,
                "returned_tools": q.returned_tools,
                "timeout_s": q.timeout_s,
            }
            for c in report.clis
            for q in c.queries
        ],
    }


def _version() -> str:
    from wslmcp import __version__

    return __version__
