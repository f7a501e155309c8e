"""Assembling a profiler run from what wiring built: the client files, the launcher and the clock
it was handed, and the home, project and directory the host (or the scenario) names."""

from __future__ import annotations

import argparse
import asyncio
import sys
from dataclasses import dataclass
from datetime import UTC, datetime

from wslmcp.boundaries.bundle import Boundaries, Host
from wslmcp.profile import engine, wire_tokens
from wslmcp.profile.configs import discover


@dataclass(frozen=True)
class Profiler:
    """One configured run: ``report()`` discovers, queries and scans, then says when it ran."""

    boundaries: Boundaries
    request: engine.Request
    progress: bool
    #: Count wire tokens (the output shows them or a gate compares them); the vocabulary then
    #: loads in a thread while servers answer.
    count_tokens: bool = False

    def report(self) -> tuple[engine.Report, datetime]:
        from wslmcp.profile.querying import stderr_progress

        # unqueried servers (--no-query) have no definitions to count: nothing to preload then
        queried = self.count_tokens and not self.request.no_query
        preload = wire_tokens.Preload() if queried else None
        b, request = self.boundaries, self.request
        discovery = discover(b.client_files, request.home, request.project, request.cli)
        progress = stderr_progress(sys.stderr) if self.progress else None
        report = asyncio.run(
            engine.run(
                b.client_files, b.mcp_launcher, b.clock, request, discovery=discovery, progress=progress
            )
        )
        if not self.count_tokens:
            report.wslmcp = engine.extras(report, request)
        else:
            counts, note = wire_tokens.for_report(
                report.clis, wire_tokens.load if preload is None else preload.result
            )
            report.wslmcp = engine.extras(report, request, counts)
            if note is not None:
                report.wslmcp["token_note"] = note
        return report, datetime.fromtimestamp(b.clock.wall(), UTC)


def assemble(boundaries: Boundaries, host: Host, args: argparse.Namespace) -> Profiler:
    """``args`` are the parsed common options; ``--home``/``--project`` override the host's."""
    request = engine.Request(
        home=args.home if args.home is not None else host.home,
        project=args.project if args.project is not None else host.project,
        cwd=host.cwd,
        sessions=args.sessions,
        days=args.days,
        timeout_s=args.timeout,
        cli=args.cli,
        no_query=args.no_query,
        query_project=args.query_project,
        project_usage=args.project_usage,
        concurrency=args.concurrency,
    )
    return Profiler(boundaries, request, progress=host.interactive, count_tokens=wants_wire_tokens(args))


def wants_wire_tokens(args: argparse.Namespace) -> bool:
    """JSON reports carry them, the human one with ``--tokens``; a budget compares them (also on a
    snapshot, which never prints them)."""
    if bool(args.fail_over):
        return True
    return getattr(args, "command", None) != "snapshot" and bool(args.json or args.tokens)
