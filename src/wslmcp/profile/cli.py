"""`wslmcp profile`: mcp-top 0.5.0's command line, reports and exit codes (0 done, 2 usage or error).

Common options are accepted before and after a subcommand (the later one wins). Ours only:
``--replay DIR`` runs on a scenario's fixture home, recorded server answers and clock; ``--tokens``
adds the wire token column; the CI gates (``--fail-over``, ``--fail-on``, ``diff
--fail-on-growth``) set the exit codes of ``gates.py``.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TextIO

from wslmcp import __version__
from wslmcp.cliargs import ArgumentParser, usage_line
from wslmcp.profile import gates
from wslmcp.profile.configs import CLI_CHOICES
from wslmcp.profile.options import Options

if TYPE_CHECKING:
    from wslmcp.boundaries.client_files import ClientFiles
    from wslmcp.profile.assembly import Profiler

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


#: what shapes the printed report only: a snapshot, always its JSON, takes none of them
REPORT_ONLY = ("--json", "--prune", "--tokens")


def _common(parser: argparse.ArgumentParser, *, defaults: bool, report: bool = True) -> None:
    """The options of a run; ``report``: also those of the printed report (``REPORT_ONLY``)."""

    def d(value: object) -> object:
        return value if defaults else argparse.SUPPRESS

    def add(*names: str, **kwargs: Any) -> None:
        if report or names[0] not in REPORT_ONLY:
            parser.add_argument(*names, **kwargs)

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
    parser.add_argument(
        "--query-http",
        action="store_true",
        default=d(False),
        help="also query streamable-HTTP servers (wslmcp; sends only headers their config holds)",
    )
    parser.add_argument(
        "--also-home",
        action="append",
        metavar="DIR",
        default=d([]),
        help="also profile this home (repeatable; wslmcp: rows under the wslmcp key)",
    )
    parser.add_argument(
        "--no-other-side",
        action="store_true",
        default=d(False),
        help="inside WSL, do not add the Windows user's home (wslmcp)",
    )
    add("--json", action="store_true", default=d(False), help="emit mcp-top/v3 JSON")
    parser.add_argument(
        "--project-usage", action="store_true", default=d(False), help="count usage in --project only"
    )
    add("--prune", action="store_true", default=d(False), help="add removal suggestions")
    parser.add_argument(
        "--concurrency", type=_positive_int, default=d(8), help="servers queried at once (wslmcp; default 8)"
    )
    parser.add_argument("--replay", metavar="SCENARIO", default=d(None), help="run on a scenario (wslmcp)")
    add(
        "--tokens",
        action="store_true",
        default=d(False),
        help="add the WIRE TOKENS column (o200k_base of the provider wire form; wslmcp)",
    )
    parser.add_argument(
        "--fail-over",
        metavar="TOKENS",
        type=gates.parse_budget,
        action="append",
        default=d(None),
        help="exit 4 when advertised wire tokens exceed N: TOKENS is N or total=N (per client) or server=N (wslmcp)",
    )
    parser.add_argument(
        "--fail-on",
        choices=gates.FAIL_ON_CHOICES,
        action="append",
        default=d(None),
        help="exit 8 when a server's verdict is prune (wslmcp)",
    )


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
    _common(snap, defaults=False, report=False)
    snap.add_argument("--out", metavar="FILE", help="write the snapshot to FILE (replaced atomically)")
    snap.add_argument("--redact-identifiers", action="store_true", help="pseudonymize server and tool names")
    dif = sub.add_parser("diff", help="compare two snapshots", allow_abbrev=False)
    dif.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="emit the diff as JSON")
    dif.add_argument("old", metavar="OLD", help="the earlier snapshot (wslmcp profile snapshot)")
    dif.add_argument("new", metavar="NEW", help="the later snapshot")
    dif.add_argument(
        "--fail-on-growth",
        metavar="PCT",
        type=gates.parse_percent,
        default=None,
        help="exit 16 when a client's advertised total grew by more than PCT percent (wslmcp)",
    )
    return parser


#: The options a command line sets (argparse's namespace also holds what it uses itself).
_FIELDS = frozenset(f.name for f in dataclasses.fields(Options))


def parse_options(argv: Sequence[str]) -> Options:
    """The command line as one typed value; a usage error exits 2 with one line (argparse)."""
    parser = build_parser()
    values = {k: v for k, v in vars(parser.parse_args(list(argv))).items() if k in _FIELDS}
    given = [name for name in REPORT_ONLY if values.get(name.removeprefix("--"))]
    if values.get("command") == "snapshot" and given:  # given before the word snapshot
        shape = "shapes" if len(given) == 1 else "shape"
        parser.error(f"{', '.join(given)} {shape} the printed report; a snapshot is always its JSON")
    for repeated in ("also_home", "fail_over", "fail_on"):
        values[repeated] = tuple(values.get(repeated) or ())
    return Options(**values)


def main(argv: Sequence[str]) -> int:
    options = parse_options(argv)
    from wslmcp import wiring

    try:
        if options.command == "diff":
            return _diff(options, wiring.real().client_files, sys.stdout)
        from wslmcp.profile.assembly import build

        if not options.no_query and options.replay is None:
            # the launcher's module now, not in the first query thread while this one imports and
            # scans: that held every launch up
            import wslmcp.boundaries.mcp_stdio  # noqa: F401
        wired = wiring.wire(options.replay, interactive=sys.stderr.isatty())
        missing = [
            h
            for h in (options.home, *options.also_home)
            if h and wired.boundaries.client_files.stat(h) is None
        ]
        if missing:  # a home that is not there is a mistake, not a home without clients
            sys.stderr.write(usage_line("wslmcp profile", f"{missing[0]}: no such directory"))
            return 2
        return execute(options, build(wired.boundaries, wired.host, options), sys.stdout)
    except Exception as err:
        print(f"wslmcp profile: internal error: {err}", file=sys.stderr)
        return 2


def execute(options: Options, profiler: Profiler, out: TextIO) -> int:
    """Build the report and write what the arguments ask for to ``out``.

    Returns the exit status: 0, a failed snapshot write's 2, or the failed gates' bits."""
    budgets, fail_on = options.fail_over, options.fail_on
    report, when = profiler.report()
    from wslmcp.profile import report_json, wire_tokens  # (after the servers were launched)

    counts = wire_tokens.counts_of(report.wslmcp, profiler.request.home)
    rows = (((c.cli, r.server), r.verdict) for c in report.clis for r in c.rows)
    outcome = gates.check(budgets, fail_on, rows, counts)
    if outcome.document:
        report.wslmcp["gates"] = list(outcome.document)
    if options.command == "snapshot":
        from wslmcp.profile import snapshot

        doc = snapshot.build(
            report, when, sessions=options.sessions, days=options.days, redact=options.redact_identifiers
        )
        return _emit_snapshot(report_json.dumps(doc.to_json()), options.out, out) or _gate_status(outcome)
    if options.json:
        out.write(report_json.dumps(report_json.document(report, include_prune=options.prune)) + "\n")
    else:
        from wslmcp.profile import report_homes, report_human

        shown = counts if options.tokens or budgets else None
        note = report.wslmcp.get("token_note")
        out.write(report_human.render(report, include_prune=options.prune, wire=shown, wire_note=note) + "\n")
        if report.other_homes:
            out.write("\n" + report_homes.render(report, wire=shown is not None) + "\n")
    return _gate_status(outcome)


def _gate_status(outcome: gates.Outcome) -> int:
    for message in outcome.messages:
        print(f"wslmcp profile: {message}", file=sys.stderr)
    return outcome.code


def _diff(options: Options, files: ClientFiles, out: TextIO) -> int:
    from wslmcp.profile import diff as diff_mod

    try:
        old, new = diff_mod.load(files, options.old), diff_mod.load(files, options.new)
        doc = diff_mod.diff(old, new)
    except diff_mod.DiffInputError as err:
        print(f"wslmcp profile diff: {err}", file=sys.stderr)
        return 2
    if options.json:
        from wslmcp.profile import report_json

        out.write(report_json.dumps(doc) + "\n")
    else:
        totals = (gates.advertised_totals(old), gates.advertised_totals(new))
        out.write(diff_mod.render(doc, totals) + "\n")
    if options.fail_on_growth is None:
        return 0
    outcome = gates.growth(old, new, options.fail_on_growth)
    for message in outcome.messages:
        print(f"wslmcp profile diff: {message}", file=sys.stderr)
    return outcome.code


def _emit_snapshot(text: str, path: str | None, out: TextIO) -> int:
    """To ``out``, or to ``path`` replaced atomically (never half-written)."""
    import tempfile

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
