"""Assembling a profiler run from what wiring built: the client files, the launcher and the clock
it was handed, and the home, project and directory the host (or the scenario) names."""

from __future__ import annotations

import functools
import posixpath
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from wslmcp.boundaries.bundle import Boundaries, Host
from wslmcp.profile import engine
from wslmcp.profile.configs import discover
from wslmcp.profile.model import DiscoveryResult
from wslmcp.profile.options import Options

if TYPE_CHECKING:
    from wslmcp.profile import wire_tokens


@dataclass(frozen=True)
class Profiler:
    """One configured run: ``report()`` discovers, queries and scans, then says when it ran.

    ``other_homes`` ((home, side) pairs) are profiled after the primary home, each on its own
    configs and transcripts: servers from the project's own files are the primary home's, so an
    other home contributes only the servers its own files define (a server defined on both sides
    is one row per side) and only its own transcripts (nothing is counted twice)."""

    boundaries: Boundaries
    request: engine.Request
    progress: bool
    other_homes: tuple[tuple[str, str], ...] = ()
    #: Count wire tokens (the output shows them or a gate compares them); the vocabulary then
    #: loads in a thread while servers answer.
    count_tokens: bool = False
    #: Where the token ranks are kept between runs (``rank_cache.py``); None keeps nothing.
    cache_dir: str | None = None

    def report(self) -> tuple[engine.Report, datetime]:
        request = self.request
        # unqueried servers (--no-query) have no definitions to count: nothing to preload then
        queried = self.count_tokens and not request.no_query
        preload: list[wire_tokens.Preload] = []

        def launched() -> None:
            """The vocabulary loads once the servers are launched and the transcripts scanned (its
            thread would hold the launches up), while the servers still answer."""
            from wslmcp.profile import wire_tokens

            if queried and not preload:
                preload.append(wire_tokens.Preload(self.cache_dir))

        try:
            return self._report(request, launched, preload)
        finally:
            if preload:  # even when no count was needed (every query failed)
                preload[0].join()

    def _report(
        self, request: engine.Request, launched: Callable[[], None], preload: list[wire_tokens.Preload]
    ) -> tuple[engine.Report, datetime]:
        b = self.boundaries
        report = self._run(request, launched, project_files=True)
        for home, side in self.other_homes:
            other = self._run(replace(request, home=home), launched, project_files=False)
            report.other_homes.append(engine.OtherHome(home, side, other))
        launched()
        from wslmcp.profile import wire_tokens

        if not self.count_tokens:
            report.wslmcp = engine.extras(report, request)
        else:
            loader = (
                functools.partial(wire_tokens.load, cache_dir=self.cache_dir)
                if not preload
                else preload[0].result
            )
            every = [report, *(o.report for o in report.other_homes)]
            counted = [wire_tokens.for_report(one.clis, loader) for one in every]
            report.wslmcp = engine.extras(report, request, [counts for counts, _ in counted])
            note = next((note for _, note in counted if note is not None), None)
            if note is not None:
                report.wslmcp["token_note"] = note
        return report, datetime.fromtimestamp(b.clock.wall(), UTC)

    def _run(
        self, request: engine.Request, launched: Callable[[], None], *, project_files: bool
    ) -> engine.Report:
        from wslmcp.profile.querying import stderr_progress

        b = self.boundaries
        discovery = discover(b.client_files, request.home, request.project, request.cli)
        if not project_files:
            discovery = _own_files_only(discovery)
        progress = stderr_progress(sys.stderr) if self.progress else None
        return engine.run(
            b.client_files,
            b.mcp_launcher,
            b.clock,
            request,
            discovery=discovery,
            progress=progress,
            launched=launched,
        )


def _own_files_only(discovery: DiscoveryResult) -> DiscoveryResult:
    """Without the servers the project's files define (they belong to the primary home's run)."""
    clis = tuple(
        replace(found, servers=tuple(s for s in found.servers if s.scope != "project"))
        for found in discovery.clis
    )
    return replace(discovery, clis=clis)


def other_homes(
    boundaries: Boundaries, host: Host, primary: str, options: Options
) -> tuple[tuple[str, str], ...]:
    """``--also-home`` directories, then, unless ``--no-other-side``, the other side: inside a WSL
    distro the Windows user's home as the Windows side reports it, on Windows the running distros'
    homes; only those that exist, each once, never the primary home."""
    wanted = [(home, "also") for home in options.also_home]
    if not options.no_other_side:
        if host.distro is not None and boundaries.windows_home is not None:
            found = boundaries.windows_home.find()
            wanted.extend([] if found is None else [(found, "windows")])
        if host.platform == "windows" and boundaries.distro_homes is not None:
            wanted.extend((home, "wsl") for home in boundaries.distro_homes.find())
        wanted = [
            (h, side) for h, side in wanted if side == "also" or boundaries.client_files.stat(h) is not None
        ]
    seen = {posixpath.normpath(primary)}
    homes = []
    for home, side in wanted:
        key = posixpath.normpath(home)
        if key not in seen:
            seen.add(key)
            homes.append((home, side))
    return tuple(homes)


def build(boundaries: Boundaries, host: Host, options: Options) -> Profiler:
    """A configured run; ``--home``/``--project`` override the host's."""
    request = engine.Request(
        home=options.home if options.home is not None else host.home,
        project=options.project if options.project is not None else host.project,
        cwd=host.cwd,
        sessions=options.sessions,
        days=options.days,
        timeout_s=options.timeout,
        cli=options.cli,
        no_query=options.no_query,
        query_project=options.query_project,
        query_http=options.query_http,
        project_usage=options.project_usage,
        concurrency=options.concurrency,
    )
    return Profiler(
        boundaries,
        request,
        progress=host.interactive,
        other_homes=other_homes(boundaries, host, request.home, options),
        count_tokens=options.wire_tokens,
        cache_dir=host.cache_dir,
    )
