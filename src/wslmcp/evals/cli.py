"""``wslmcp eval``: run / extract / checks / diff.

Exit codes (run): 0 every trace passes (with --baseline: no regression); 1 some trace fails (with
--baseline: some regression); 2 usage error; 3 a harness error for at least one trace; 4 a trace is
unreplayable (the scenario cannot answer one of its calls). 3 > 4 > 1 > 0.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wslmcp.cliargs import ArgumentParser, parser

if TYPE_CHECKING:
    from wslmcp.evals.cases import Case
    from wslmcp.evals.grading import Job, Options
    from wslmcp.evals.trace import Trace

PROG = "wslmcp eval"
KINDS = ("observe", "shell")


def _build() -> ArgumentParser:
    top = parser(PROG, "Replay an agent's recorded tool calls against a scenario and grade them.")
    sub = top.add_subparsers(dest="command", metavar="COMMAND", parser_class=ArgumentParser)
    sub.required = True
    run = sub.add_parser(
        "run", help="grade traces (Claude Code, Codex or wslmcp-trace/1)", description="Grade traces."
    )
    _grading_arguments(run)
    run.add_argument("--json", metavar="FILE|-", help="write the wslmcp-eval-report/1 report")
    run.add_argument("--junit", metavar="FILE", help="write JUnit XML")
    run.add_argument("--baseline", metavar="REPORT.json", help="exit 1 only on a regression against it")
    base = sub.add_parser(
        "baseline", help="write the baseline --baseline compares with", description="Baselines."
    ).add_subparsers(dest="action", metavar="ACTION", parser_class=ArgumentParser, required=True)
    write = base.add_parser(
        "write",
        help="grade traces, then write the baseline (nothing when one cannot be graded)",
        description="Grade traces and write their baseline.",
    )
    write.add_argument("--out", required=True, metavar="FILE", help="the baseline to (re)write")
    _grading_arguments(write)
    ext = sub.add_parser(
        "extract", help="write a transcript as wslmcp-trace/1", description="Extract a trace."
    )
    ext.add_argument(
        "transcript", metavar="TRANSCRIPT", help="a Claude Code or Codex session transcript (JSONL)"
    )
    ext.add_argument("--out", metavar="FILE", help="write here instead of stdout")
    ext.add_argument("--server", action="append", default=[], metavar="ALIAS", help="configured server names")
    chk = sub.add_parser("checks", help="print every check", description="Print the rubric.")
    chk.add_argument("--json", action="store_true", help="print the checks as JSON")
    diff = sub.add_parser("diff", help="compare two --json reports", description="Compare two reports.")
    diff.add_argument("old", metavar="OLD.json", help="the earlier wslmcp-eval-report/1 report")
    diff.add_argument("new", metavar="NEW.json", help="the later report")
    diff.add_argument("--json", action="store_true", help="print the comparison as JSON")
    return top


def _grading_arguments(p: ArgumentParser) -> None:
    """What ``run`` and ``baseline write`` grade: the traces, their scenario, case and options."""
    p.add_argument(
        "traces", nargs="*", metavar="TRACE", help="trace files or directories (every *.jsonl below)"
    )
    p.add_argument("--suite", metavar="SUITE.json", help="a wslmcp-eval-suite/1 file naming runs")
    p.add_argument(
        "--scenario", dest="replay_dir", metavar="DIR", help="the scenario the session ran against"
    )
    p.add_argument("--case", metavar="ID", help="the case every trace given here answers")
    p.add_argument("--cases", metavar="FILE", help="cases file (default: DIR/eval/cases.json when present)")
    p.add_argument(
        "--server",
        action="append",
        default=[],
        metavar="ALIAS=observe|shell",
        help="what a configured server name in the transcript is (repeatable)",
    )
    p.add_argument("--no-replay", action="store_true", help="grade without starting any server")
    p.add_argument("--strict-replay", action="store_true", help="an unreplayable call is a harness error (3)")
    p.add_argument(
        "--strict-intent", action="store_true", help="inferred intent checks gate like declared ones"
    )
    p.add_argument(
        "--investigation", type=int, metavar="N", help="the investigation the case applies to (1-based)"
    )
    p.add_argument(
        "--severity",
        action="append",
        default=[],
        metavar="ID=warn|error",
        help="override a check's severity (repeatable; see 'wslmcp eval checks')",
    )
    p.add_argument("--judge", metavar="CMD", help="judge plug-in: JSON request on stdin, response on stdout")
    p.add_argument("--judge-gates", action="store_true", help="judge items fail traces (default: warn)")
    p.add_argument(
        "--judge-timeout",
        type=float,
        default=60.0,
        metavar="S",
        help="seconds the judge may take (default 60)",
    )
    p.add_argument("--jobs", type=int, default=1, metavar="N", help="grade N traces at once")
    p.add_argument(
        "-v", "--verbose", action="store_true", help="bindings and drift in the table; the servers' logs"
    )


def main(argv: Sequence[str]) -> int:
    p = _build()
    if not argv:  # a command of subcommands alone: its help, as `wslmcp` alone gives
        p.print_help()
        return 0
    args = p.parse_args(list(argv))
    if args.command == "checks":
        return _checks(args.json)
    if args.command == "extract":
        return _extract(args)
    if args.command == "diff":
        return _diff(args)
    return _run(p, args)


def _write(path: str, text: str) -> None:
    """``path`` replaced atomically (never half-written); ``-`` is stdout."""
    if path == "-":
        sys.stdout.write(text)
        return
    fd, temp = tempfile.mkstemp(prefix=".wslmcp-eval-", dir=os.path.dirname(os.path.abspath(path)))
    try:
        mask = os.umask(0)
        os.umask(mask)
        os.fchmod(fd, 0o666 & ~mask)  # as an ordinary new file (mkstemp's is private)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def _fail(message: str, code: int) -> int:
    sys.stderr.write(f"{PROG}: {message}\n")
    return code


def _checks(as_json: bool) -> int:
    from wslmcp.evals import patterns
    from wslmcp.evals.cases import INFERENCE_RULES
    from wslmcp.evals.rubric import describe

    checks = describe()
    if as_json:
        doc = {
            "schema": "wslmcp-eval-checks/1",
            "checks": checks,
            "patterns": patterns.SOURCES,
            "distros": list(patterns.DISTROS),
            "text_rules": patterns.TEXT_RULES,
            "inference_rules": [{"when": w, "then": t} for w, t in INFERENCE_RULES],
        }
        sys.stdout.write(json.dumps(doc, indent=2) + "\n")
        return 0
    out = []
    for c in checks:
        out.append(f"{c['id']}  [{c['family']}, default {c['default_severity']}]")
        out.append(f"    applies: {c['applies']}")
        out.append(f"    {c['rule']}")
        out.extend(f"    {name} = {src}" for name, src in c["patterns"].items())
    out.append("")
    out.append("Text: " + patterns.TEXT_RULES)
    out.append(
        "DISTROS: " + " ".join(patterns.DISTROS) + " + every usage.source + the scenario's observe.distro"
    )
    out.append(
        "Intent inferred from the question when no case is given (severity warn unless --strict-intent):"
    )
    out.extend(f"    {w}  ->  {t}" for w, t in INFERENCE_RULES)
    sys.stdout.write("\n".join(out) + "\n")
    return 0


def _extract(args: argparse.Namespace) -> int:
    from wslmcp import wiring
    from wslmcp.evals import extract, trace

    try:
        got = extract.read(wiring.real().client_files, os.path.abspath(args.transcript), tuple(args.server))
    except trace.TraceError as exc:
        return _fail(str(exc), 3)
    text = "".join(line + "\n" for line in trace.dump(got))
    try:
        _write(args.out or "-", text)
    except OSError as exc:
        return _fail(f"cannot write {args.out}: {exc.strerror or exc}", 3)
    if args.out:
        sys.stdout.write(f"wrote {args.out}: {_described(got)}\n")
    return 0


def _described(got: Trace) -> str:
    """``a Claude Code session: 1 question, 3 calls (observe: 3)``."""
    from wslmcp.evals.extract import FORMATS
    from wslmcp.evals.grading import shell_tools
    from wslmcp.evals.session import server_kinds
    from wslmcp.evals.trace import Message
    from wslmcp.wording import counted

    kinds = server_kinds(got, {}, shell_tools())
    per: dict[str, int] = {}
    for call in got.calls:
        kind = "builtin" if call.server is None else kinds.get(call.server, call.server)
        per[kind] = per.get(kind, 0) + 1
    questions = sum(1 for e in got.events if isinstance(e, Message) and e.role == "user")
    shown = ", ".join(f"{k}: {n}" for k, n in sorted(per.items()))
    what = FORMATS.get(str(got.source.get("format")), "wslmcp-trace/1")
    return f"a {what} session: {counted(questions, 'question')}, {counted(len(got.calls), 'call')}" + (
        f" ({shown})" if shown else ""
    )


def _diff(args: argparse.Namespace) -> int:
    from wslmcp.evals import baseline

    try:
        old, new = baseline.load(Path(args.old)), baseline.load(Path(args.new))
    except baseline.BaselineError as exc:
        return _fail(str(exc), 3)
    result = baseline.compare(old["traces"], new["traces"], args.old)
    sys.stdout.write((json.dumps(result, indent=2) if args.json else baseline.render(result)) + "\n")
    return 1 if result["regressions"] else 0


def _pairs(p: ArgumentParser, values: list[str], flag: str, allowed: Sequence[str]) -> dict[str, str]:
    out = {}
    for item in values:
        key, sep, value = item.partition("=")
        if not sep or not key or value not in allowed:
            p.error(f"{flag} {item!r}: expected NAME={'|'.join(allowed)}")
        out[key] = value
    return out


def _trace_files(p: ArgumentParser, given: Sequence[str]) -> list[Path]:
    files: list[Path] = []
    for item in given:
        path = Path(item)
        if path.is_dir():
            files.extend(
                f for f in sorted(path.rglob("*.jsonl")) if "subagents" not in f.relative_to(path).parts[:-1]
            )
        elif path.exists():
            files.append(path)
        else:
            p.error(f"no such trace file or directory: {item}")
    return files


def _job(job_id: str, trace: Path, replay_dir: Path | None, case: Case | None) -> Job:
    """A grading job; the scenario is resolved here (an entry point), so grading never reads one."""
    from wslmcp.evals.grading import Job
    from wslmcp.scenario.manifest import ScenarioError
    from wslmcp.wiring.replay import replay_target

    if replay_dir is None:
        return Job(job_id, trace, None, case)
    try:
        return Job(job_id, trace, replay_target(replay_dir), case)
    except (ScenarioError, OSError) as exc:
        return Job(job_id, trace, None, case, target_error=f"scenario {replay_dir}: {exc}")


def _run(p: ArgumentParser, args: argparse.Namespace) -> int:
    from wslmcp.evals.cases import CaseError

    options = _options(p, args)
    try:
        jobs = _suite_jobs(args.suite) if args.suite else _trace_jobs(p, args)
    except CaseError as exc:
        return _fail(str(exc), 3)
    if not jobs:
        return _fail("no trace files found", 3)
    if args.command == "baseline":
        return _write_baseline(args, asyncio.run(_grade_all(jobs, options, args.jobs)))
    baseline_doc = None
    if args.baseline:
        from wslmcp.evals import baseline

        try:
            baseline_doc = baseline.load(Path(args.baseline))
        except baseline.BaselineError as exc:
            return _fail(str(exc), 3)
    reports = asyncio.run(_grade_all(jobs, options, args.jobs))
    return _emit(args, reports, baseline_doc)


def _options(p: ArgumentParser, args: argparse.Namespace) -> Options:
    """The grading options ``run`` was given; a usage error exits 2."""
    from wslmcp.evals.grading import Options
    from wslmcp.evals.rubric import REGISTRY, SEVERITIES

    if bool(args.suite) == bool(args.traces):
        p.error("give TRACE... or --suite SUITE.json (one of them)")
    if args.traces and args.replay_dir is None and not args.no_replay:
        p.error("--scenario DIR is required to replay (or pass --no-replay)")
    if args.jobs < 1:
        p.error("--jobs must be at least 1")
    if args.investigation is not None and args.investigation < 1:
        p.error("--investigation must be at least 1")
    severities = _pairs(p, args.severity, "--severity", SEVERITIES)
    unknown = sorted(set(severities) - set(REGISTRY))
    if unknown:
        p.error(f"--severity: unknown check {unknown[0]!r} (see 'wslmcp eval checks')")
    return Options(
        no_replay=args.no_replay,
        strict_replay=args.strict_replay,
        strict_intent=args.strict_intent,
        investigation=args.investigation,
        severities=severities,
        servers=_pairs(p, args.server, "--server", KINDS),
        judge=args.judge,
        judge_gates=args.judge_gates,
        judge_timeout=args.judge_timeout,
        server_logs=args.verbose,
    )


def _suite_jobs(suite: str) -> list[Job]:
    """The runs a suite file names. Raises CaseError."""
    from wslmcp.evals.cases import load_suite

    return [_job(r.id, r.trace, r.replay_dir, r.case) for r in load_suite(Path(suite))]


def _trace_jobs(p: ArgumentParser, args: argparse.Namespace) -> list[Job]:
    """One job per trace file given, against ``--scenario`` with ``--case`` (from ``--cases``, or the
    scenario's ``eval/cases.json``). Raises CaseError."""
    from wslmcp.evals.cases import CaseError, load_cases

    replay_dir = Path(args.replay_dir) if args.replay_dir else None
    cases_file = Path(args.cases) if args.cases else None
    if cases_file is None and replay_dir is not None and (replay_dir / "eval" / "cases.json").is_file():
        cases_file = replay_dir / "eval" / "cases.json"
    if args.case is not None and cases_file is None:
        where = (
            f"{replay_dir} has no eval/cases.json"
            if replay_dir is not None
            else "no --scenario DIR was given"
        )
        p.error(f"--case {args.case} needs a cases file: pass --cases FILE ({where})")
    cases = load_cases(cases_file) if cases_file else {}
    if args.case is not None and args.case not in cases:
        known = ", ".join(sorted(cases)) or "none"
        raise CaseError(str(cases_file), "cases", f"one of the cases it holds ({known})", args.case)
    case = cases[args.case] if args.case else None
    files = _trace_files(p, args.traces)
    stems = [f.stem for f in files]
    return [_job(f.stem if stems.count(f.stem) == 1 else str(f), f, replay_dir, case) for f in files]


async def _grade_all(jobs: Sequence[Job], options: Options, n: int) -> list[dict[str, Any]]:
    from wslmcp import wiring
    from wslmcp.evals.assembly import build

    wired = wiring.wire(None)
    grader = build(wired.boundaries, wired.host, options)
    limit = asyncio.Semaphore(n)
    done = 0
    started = time.monotonic()
    tty = sys.stderr.isatty()

    async def one(job: Job) -> dict[str, Any]:
        nonlocal done
        async with limit:
            report = await grader.grade(job)
        done += 1
        if tty and time.monotonic() - started > 1.0:
            sys.stderr.write(f"\r{PROG}: graded {done}/{len(jobs)} traces")
            sys.stderr.flush()
        return report

    try:
        reports = await asyncio.gather(*(one(j) for j in jobs))
    finally:
        grader.close()
    if tty and time.monotonic() - started > 1.0:
        sys.stderr.write("\n")
    return list(reports)


def _write_baseline(args: argparse.Namespace, reports: list[dict[str, Any]]) -> int:
    """``baseline write``: the report of a run every trace of which was graded, written to
    ``--out`` (atomically); with a trace in error (3) or unreplayable (4) nothing is written."""
    from wslmcp.evals import baseline, report_human, report_json

    doc = report_json.document(reports)
    summary = doc["summary"]
    sys.stdout.write(report_human.table(reports, summary, args.verbose) + "\n")
    for r in reports:
        if r["verdict"] == "error":
            sys.stderr.write(f"{PROG}: {r['error']}\n")
    if summary["errors"] or summary["unreplayable"]:
        ungraded = "in error" if summary["errors"] else "unreplayable"
        return _fail(f"{args.out} not written: a trace is {ungraded}", 3 if summary["errors"] else 4)
    try:
        _write(args.out, baseline.baseline_of(doc))
    except OSError as exc:
        return _fail(f"cannot write {args.out}: {exc.strerror or exc}", 3)
    sys.stdout.write(
        f"wrote {args.out}: the baseline of {summary['traces']} traces "
        f"({summary['passed']} pass, {summary['failed']} fail)\n"
    )
    return 0


def _emit(
    args: argparse.Namespace, reports: list[dict[str, Any]], baseline_doc: dict[str, Any] | None
) -> int:
    from wslmcp.evals import baseline, junit, report_human, report_json

    compared = None
    if baseline_doc is not None:
        compared = baseline.compare(baseline_doc["traces"], reports, args.baseline)
    doc = report_json.document(reports, compared)
    try:
        if args.json:
            _write(args.json, json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
        if args.junit:
            _write(args.junit, junit.render(reports))
    except OSError as exc:
        return _fail(f"cannot write a report: {exc.strerror or exc}", 3)
    if args.json != "-":
        text = report_human.table(reports, doc["summary"], args.verbose)
        if compared is not None:
            text += "\n" + baseline.render(compared)
        sys.stdout.write(text + "\n")
    for r in reports:
        if r["verdict"] == "error":
            sys.stderr.write(f"{PROG}: {r['error']}\n")
    if any(r["verdict"] == "error" for r in reports):
        return 3
    if any(r["verdict"] == "unreplayable" for r in reports):
        return 4
    if compared is not None:
        return 1 if compared["regressions"] else 0
    return 1 if any(r["verdict"] == "fail" for r in reports) else 0
