"""The profiler engine: configs + server answers + transcripts -> one report per CLI.

``run(...)`` is the whole pipeline. Server queries (I/O-bound, through the McpLauncher boundary) run
concurrently (a pool of threads) with transcript scanning (CPU-bound, through ClientFiles, in a
worker thread).
``build_cli_report`` is the pure join, used directly by tests.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypeVar

from wslmcp.boundaries.client_files import ClientFiles
from wslmcp.boundaries.clock import Clock
from wslmcp.boundaries.mcp_launcher import McpLauncher
from wslmcp.profile import regimes
from wslmcp.profile.model import Cli, CliDiscovery, DiscoveryResult, QueryResult, ServerKey
from wslmcp.profile.querying import query_all

if TYPE_CHECKING:  # the report side is imported once the servers are launched (``run``)
    from wslmcp.profile import coverage, prune, verdicts
    from wslmcp.profile.clients import Loading, Scan
    from wslmcp.profile.transcripts.model import Transcript
    from wslmcp.profile.usage_windows import UsageWindow

GENERATED_NOTE = "Definition token counts use the chars/4 heuristic; ~ means estimate."


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
    query_http: bool = False
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
    #: More homes profiled in the same run (``--also-home``, the other side of WSL); the mcp-top
    #: parts describe this report's own (primary) home only.
    other_homes: list[OtherHome] = field(default_factory=list)


@dataclass
class OtherHome:
    home: str
    #: ``"also"`` (``--also-home``) or ``"windows"`` (the Windows side, found from inside WSL)
    side: str
    report: Report


Progress = Callable[[int, int, str], None]
T = TypeVar("T")


def run(
    files: ClientFiles,
    launcher: McpLauncher,
    clock: Clock,
    request: Request,
    *,
    discovery: DiscoveryResult,
    progress: Progress | None = None,
    launched: Callable[[], None] | None = None,
) -> Report:
    """Query every server (bounded pool) while scanning transcripts, then join per CLI. The servers
    are launched first: their start-up runs in their own processes while this one imports the
    report side and scans; ``launched`` is told then, while they still answer (what it starts then
    holds no launch up)."""
    servers = discovery.servers()
    results = _in_thread(
        lambda: query_all(
            launcher,
            servers,
            request.timeout_s,
            concurrency=request.concurrency,
            progress=progress,
            no_query=request.no_query,
            query_project=request.query_project,
            query_http=request.query_http,
        )
    )
    from wslmcp.profile.clients import backend  # while the servers start

    scans = {
        c.cli: backend(c.cli).scan(files, request.home, [s.name for s in c.servers]) for c in discovery.clis
    }
    if launched is not None:
        launched()
    return _join(files, clock, request, discovery, scans=scans, results=results())


def _in_thread(work: Callable[[], T]) -> Callable[[], T]:
    """Start ``work`` in a thread; the returned call waits for its result (or raises its error)."""
    box: list[T] = []
    error: list[BaseException] = []

    def target() -> None:
        try:
            box.append(work())
        except BaseException as err:
            error.append(err)

    thread = threading.Thread(target=target, name="wslmcp-profile")
    thread.start()

    def result() -> T:
        thread.join()
        if error:
            raise error[0]
        return box[0]

    return result


def _join(
    files: ClientFiles,
    clock: Clock,
    request: Request,
    discovery: DiscoveryResult,
    *,
    scans: Mapping[Cli, Scan | None],
    results: Mapping[ServerKey, QueryResult],
) -> Report:
    from wslmcp.profile.clients import backend
    from wslmcp.profile.usage_windows import count_usage

    now = datetime.fromtimestamp(clock.wall(), UTC)
    reports = []
    for found in discovery.clis:
        client = backend(found.cli)
        found_scan = scans[found.cli]
        window = None
        if found_scan is not None:
            window = count_usage(
                found_scan.transcripts,
                found_scan.keys,
                sessions=request.sessions,
                days=request.days,
                now=now,
                project_filter=client.project_key(request.project, request.cwd)
                if request.project_usage
                else None,
            )
        loading = client.loading(files, request.home, request.project, request.managed_settings)
        reports.append(
            build_cli_report(
                found,
                results,
                [] if found_scan is None else found_scan.transcripts,
                window,
                warnings=[*found.warnings, *loading.warnings],
                loading=loading,
            )
        )
    note = None
    if request.cli == "all" and not discovery.clis:
        note = f"no supported CLIs detected under {request.home}"
    return Report(clis=reports, note=note)


def build_cli_report(
    found: CliDiscovery,
    results: Mapping[ServerKey, QueryResult],
    transcripts: Sequence[Transcript],
    window: UsageWindow | None,
    *,
    warnings: Sequence[str],
    loading: Loading | None = None,
) -> CliReport:
    """``loading`` defaults to the client's regimes with no settings read."""
    from wslmcp.profile import coverage, definitions, prune, verdicts
    from wslmcp.profile.clients import backend

    client = backend(found.cli)
    if loading is None:
        loading = client.loading(None, "", "", "")
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
        regime = loading.regime(server)
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
    cov = coverage.build(transcripts, window, queries, warnings, client.usage_note)
    return CliReport(found.cli, rows, window, cov, removals, queries)


def _provenance_incomplete(warnings: Sequence[str]) -> bool:
    return any(w.startswith(("could not parse", "could not read")) for w in warnings)


def extras(
    report: Report,
    request: Request,
    tokens: Sequence[Mapping[ServerKey, Sequence[Mapping[str, Any]]]] | None = None,
) -> dict[str, Any]:
    """What we add to the v3 document, under its one extra key "wslmcp" (v3 readers ignore it):
    one server row per home that defines it, each naming its ``home``; ``tokens``: each home's wire
    token counts, primary first (``wire_tokens.for_report``)."""
    homes = [(request.home, "primary", report), *((o.home, o.side, o.report) for o in report.other_homes)]
    counts = [None] * len(homes) if tokens is None else list(tokens)
    return {
        "version": _version(),
        "query": {"concurrency": request.concurrency, "timeout_s": request.timeout_s},
        "homes": [{"home": home, "side": side} for home, side, _ in homes],
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
                "home": home,
                **({} if home_counts is None else {"tokens": list(home_counts.get(q.key, ()))}),
            }
            for (home, _, one), home_counts in zip(homes, counts, strict=True)
            for c in one.clis
            for q in c.queries
        ],
    }


def _version() -> str:
    from wslmcp import __version__

    return __version__
