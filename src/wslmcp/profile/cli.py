"""`wslmcp profile`: mcp-top 0.5.0's command line, reports and exit codes (0 done, 2 usage or error).

Common options are accepted before and after a subcommand (the later one wins). ``--replay DIR``
is ours: it runs on a scenario's fixture home, recorded server answers and clock.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, TextIO

from wslmcp import __version__
from wslmcp.cliargs import ArgumentParser
from wslmcp.profile import diff as diff_mod
from wslmcp.profile import engine, report_human, report_json, snapshot
from wslmcp.profile.configs import CLI_CHOICES, discover

if TYPE_CHECKING:
    from wslmcp.wiring import Boundaries

MCP_TOP_VERSION = "0.5.0"


def _positive_int(value: str) -> int:
    number = int(value)
    if number < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return number


def _positive_float(value: str) -> float:
    number = float(value)
    if not number > 0:
        raise argparse.ArgumentTypeError("must be greater than 0")
    return number


def _common(parser: argparse.ArgumentParser, *, defaults: bool) -> None:
    def d(value: object) -> object:
        return value if defaults else argparse.SUPPRESS

    parser.add_argument("--home", default=d(None), help="home directory to inspect (default: ~)")
    parser.add_argument(
        "--project", default=d(None), help="project directory (default: the current directory)"
    )
    parser.add_argument(
        "--sessions", type=_positive_int, default=d(30), help="recent session groups (default 30)"
    )
    parser.add_argument(
        "--days", type=_positive_int, default=d(30), help="maximum session age in days (default 30)"
    )
    parser.add_argument(
        "--timeout", type=_positive_float, default=d(20.0), help="per-server query seconds (20)"
    )
    parser.add_argument(
        "--cli", choices=CLI_CHOICES, default=d("all"), help="which CLI to inspect (default all)"
    )
    parser.add_argument("--no-query", action="store_true", default=d(False), help="never launch servers")
    parser.add_argument(
        "--query-project", action="store_true", default=d(False), help="also launch project-scope servers"
    )
    parser.add_argument("--json", action="store_true", default=d(False), help="emit mcp-top/v3 JSON")
    parser.add_argument(
        "--project-usage", action="store_true", default=d(False), help="count usage in --project only"
    )
    parser.add_argument("--prune", action="store_true", default=d(False), help="add removal suggestions")
    parser.add_argument(
        "--concurrency", type=_positive_int, default=d(8), help="servers queried at once (wslmcp; default 8)"
    )
    parser.add_argument("--replay", metavar="SCENARIO", default=d(None), help="run on a scenario (wslmcp)")


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog="wslmcp profile",
        description="Rank configured MCP servers by definition cost and recent usage (mcp-top 0.5.0 compatible).",
        allow_abbrev=False,
    )
    _common(parser, defaults=True)
    parser.add_argument(
        "--version",
        action="version",
        version=f"wslmcp profile {__version__} (mcp-top {MCP_TOP_VERSION} compatible)",
    )
    sub = parser.add_subparsers(dest="command")
    snap = sub.add_parser("snapshot", help="emit a redacted aggregate snapshot", allow_abbrev=False)
    _common(snap, defaults=False)
    snap.add_argument("--out", metavar="FILE", help="write the snapshot to FILE (replaced atomically)")
    snap.add_argument("--redact-identifiers", action="store_true", help="pseudonymize server and tool names")
    dif = sub.add_parser("diff", help="compare two snapshots", allow_abbrev=False)
    _common(dif, defaults=False)
    dif.add_argument("old")
    dif.add_argument("new")
    return parser


def main(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(list(argv))
    try:
        if args.command == "diff":
            return _diff(args, sys.stdout)
        from wslmcp import wiring

        boundaries = wiring.replay(args.replay) if args.replay is not None else wiring.real()
        return execute(args, boundaries, sys.stdout, interactive=sys.stderr.isatty())
    except diff_mod.DiffInputError as err:
        print(f"wslmcp profile diff: {err}", file=sys.stderr)
        return 2
    except Exception as err:
        print(f"wslmcp profile: internal error: {err}", file=sys.stderr)
        return 2


def execute(
    args: argparse.Namespace, boundaries: Boundaries, out: TextIO, *, interactive: bool = False
) -> int:
    """Build the report on ``boundaries`` and write what the arguments ask for to ``out``."""
    report, when = _report(args, boundaries, interactive)
    if args.command == "snapshot":
        doc = snapshot.build(
            report, when, sessions=args.sessions, days=args.days, redact=args.redact_identifiers
        )
        return _emit_snapshot(report_json.dumps(doc), args.out, out)
    if args.json:
        out.write(report_json.dumps(report_json.document(report, include_prune=args.prune)) + "\n")
    else:
        out.write(report_human.render(report, include_prune=args.prune) + "\n")
    return 0


def _diff(args: argparse.Namespace, out: TextIO) -> int:
    from wslmcp.boundaries.client_files import LocalClientFiles

    files = LocalClientFiles()
    doc = diff_mod.diff(diff_mod.load(files, args.old), diff_mod.load(files, args.new))
    out.write((report_json.dumps(doc) if args.json else diff_mod.render(doc)) + "\n")
    return 0


def _defaults(args: argparse.Namespace, boundaries: Boundaries) -> tuple[str, str, str]:
    """(home, project, cwd): a replayed scenario supplies its own home and project."""
    cwd = os.getcwd()
    home, project = args.home, args.project
    if boundaries.scenario is not None:
        section = boundaries.scenario.section("profile")
        if home is None:
            home = str(boundaries.scenario.section("home").get("path", ""))
        if project is None and isinstance(section.get("project"), str):
            project = str(section["project"])
            cwd = project
    if home is None:
        home = os.path.expanduser("~")
    if project is None:
        project = cwd
    return home, project, cwd


def _report(
    args: argparse.Namespace, boundaries: Boundaries, interactive: bool
) -> tuple[engine.Report, datetime]:
    from wslmcp.profile.querying import stderr_progress

    home, project, cwd = _defaults(args, boundaries)
    request = engine.Request(
        home=home,
        project=project,
        cwd=cwd,
        sessions=args.sessions,
        days=args.days,
        timeout_s=args.timeout,
        cli=args.cli,
        no_query=args.no_query,
        query_project=args.query_project,
        project_usage=args.project_usage,
        concurrency=args.concurrency,
    )
    files = boundaries.client_files
    discovery = discover(files, home, project, args.cli)
    progress = stderr_progress(sys.stderr) if interactive and boundaries.scenario is None else None
    report = engine.run(
        files, boundaries.mcp_launcher, boundaries.clock, request, discovery=discovery, progress=progress
    )
    report.wslmcp = engine.extras(report, request)
    return report, datetime.fromtimestamp(boundaries.clock.wall(), UTC)


def _emit_snapshot(text: str, path: str | None, out: TextIO) -> int:
    """To ``out``, or to ``path`` replaced atomically (never half-written)."""
    if path is None:
        out.write(text + "\n")
        return 0
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, temp = tempfile.mkstemp(prefix=".snapshot-", dir=directory)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text + "\n")
            os.replace(temp, path)
        except BaseException:
            os.unlink(temp)
            raise
    except OSError as err:
        print(f"wslmcp profile snapshot: cannot write output: {err.strerror or err}", file=sys.stderr)
        return 2
    return 0
