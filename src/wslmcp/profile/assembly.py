"""Assembling a profiler run from what wiring built: the client files, the launcher and the clock
it was handed, and the home, project and directory the host (or the scenario) names."""

from __future__ import annotations

import argparse
import asyncio
import sys
from dataclasses import dataclass
from datetime import UTC, datetime

from wslmcp.boundaries.bundle import Boundaries, Host
from wslmcp.profile import engine
from wslmcp.profile.configs import discover


@dataclass(frozen=True)
class Profiler:
    """One configured run: ``report()`` discovers, queries and scans, then says when it ran."""

    boundaries: Boundaries
    request: engine.Request
    progress: bool

    def report(self) -> tuple[engine.Report, datetime]:
        from wslmcp.profile.querying import stderr_progress

        b, request = self.boundaries, self.request
        discovery = discover(b.client_files, request.home, request.project, request.cli)
        progress = stderr_progress(sys.stderr) if self.progress else None
        report = asyncio.run(
            engine.run(
                b.client_files, b.mcp_launcher, b.clock, request, discovery=discovery, progress=progress
            )
        )
        report.wslmcp = engine.extras(report, request)
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
    return Profiler(boundaries, request, progress=host.interactive)
