"""``wslmcp scenario``: list, show, validate, record and replay scenarios.

An entry point of the replay layer: replaying and recording drive the servers (``replay.*``), and
what they run on comes from wiring; the recorders are imported only by ``record``."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wslmcp import wiring
from wslmcp.cliargs import ArgumentParser, parser
from wslmcp.scenario.checks import run_checks
from wslmcp.scenario.loader import Scenario, discover
from wslmcp.scenario.manifest import ScenarioError
from wslmcp.wording import one_line

if TYPE_CHECKING:
    from wslmcp.scenario.recorder import ScenarioWriter

DEFAULT_DIR = "scenarios"
AREAS = ("observe", "shell", "profile")


def _build() -> ArgumentParser:
    top = parser("wslmcp scenario", "List, show, validate, record and replay scenarios.")
    sub = top.add_subparsers(dest="action", required=True, metavar="ACTION")
    p = sub.add_parser("list", help="one line per scenario under DIR")
    p.add_argument(
        "dir",
        nargs="?",
        default=DEFAULT_DIR,
        metavar="DIR",
        help="where the scenarios are (default: scenarios)",
    )
    p = sub.add_parser("show", help="a scenario's manifest summary")
    p.add_argument("dir", metavar="DIR", help="the scenario's directory")
    p.add_argument("--json", action="store_true", help="print the manifest as JSON")
    p = sub.add_parser("validate", help="check scenarios; exit 1 naming file, key and expectation")
    p.add_argument(
        "dirs",
        nargs="*",
        default=[DEFAULT_DIR],
        metavar="DIR",
        help="scenarios, or directories of them (default: scenarios)",
    )
    p = sub.add_parser("replay", help="replay scenarios end to end, one row each; exit 1 on a mismatch")
    p.add_argument(
        "dir",
        nargs="?",
        default=DEFAULT_DIR,
        metavar="DIR",
        help="a scenario, or a directory of them (default: scenarios)",
    )
    _record_arguments(
        sub.add_parser(
            "record",
            help="record an area's scenario: this host's /proc, a shell session, a client home, or what an agent session asks",
        )
    )
    return top


def _record_arguments(p: ArgumentParser) -> None:
    p.add_argument(
        "--area",
        choices=AREAS,
        help="observe: sample /proc (default); shell: run --calls through the shell server (over wsl.exe, or "
        "WSLMCP_SHELL_TRANSPORT=local); profile: take what the profiler reads of --home, with the answers of "
        "the servers its configs launch",
    )
    p.add_argument(
        "--home", metavar="DIR", help="profile: the client home to record (its client files and transcripts)"
    )
    p.add_argument(
        "--project", metavar="DIR", help="profile: the project directory (default: HOME/proj if present)"
    )
    p.add_argument(
        "--fixture-home", default="/home/user", metavar="PATH", help="profile: the path the home stands for"
    )
    p.add_argument("--out", required=True, metavar="DIR", help="new scenario directory (must not hold files)")
    p.add_argument(
        "--from-session",
        metavar="TRANSCRIPT",
        help="record what an agent session asks: its observe and shell calls replayed against this host "
        "with their timing (Claude Code, Codex or wslmcp-trace/1)",
    )
    p.add_argument(
        "--allow-writes",
        metavar="DIR",
        help="--from-session: also send the calls that change the host when they only write inside DIR",
    )
    p.add_argument(
        "--max-wait-s",
        type=_within(float, 0, 3600),
        default=60.0,
        metavar="S",
        help="--from-session: the longest wait between two calls, 0..3600 (default 60)",
    )
    p.add_argument(
        "--server",
        action="append",
        default=[],
        metavar="ALIAS=observe|shell",
        help="--from-session: what a configured server name in the transcript is (repeatable)",
    )
    p.add_argument(
        "--calls",
        metavar="FILE",
        help="shell: a JSON list of tool calls {tool, args, advance_s?}; the server's WSL_* variables come "
        "from the environment, wsl.exe from WSLMCP_WSL_EXE or PATH",
    )
    p.add_argument(
        "--duration",
        type=_within(float, 0, 3600),
        default=2.0,
        metavar="S",
        help="seconds to record, 0..3600 (default 2)",
    )
    p.add_argument(
        "--interval-ms",
        type=_within(int, 100, 60000),
        default=1000,
        metavar="N",
        help="sample interval, 100..60000 (default 1000)",
    )
    p.add_argument("--name", help="scenario name (default: the directory name)")
    p.add_argument("--description", default="", help="one line saying what the scenario shows")
    p.add_argument(
        "--keep-cmdlines",
        action="store_true",
        help="keep full command lines (default: argv[0] only, for secrets)",
    )
    p.add_argument("--windows", action="store_true", help="also record PDH counters and Windows processes")
    p.add_argument("--docker", action="store_true", help="also record the Docker Engine's answers")
    p.add_argument("--wslc", action="store_true", help="also record wslc.exe container list/stats")
    p.add_argument(
        "--distro", help="on Windows: the WSL distribution whose /proc is recorded (default: WSL's)"
    )


def _within(kind: Callable[[str], float], low: int, high: int) -> Callable[[str], float]:
    """An argparse ``type``: a number between ``low`` and ``high``, else a one-line usage error."""

    def convert(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            number = "a whole number" if kind is int else "a number"
            raise argparse.ArgumentTypeError(f"expected {number}, got {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be between {low} and {high}, got {text}")
        return value

    return convert


def main(argv: Sequence[str]) -> int:
    if not argv:  # a command of subcommands alone: its help, as `wslmcp` alone gives
        _build().print_help()
        return 0
    args = _build().parse_args(list(argv))
    try:
        handler = {"list": _list, "show": _show, "validate": _validate, "replay": _replay, "record": _record}
        return handler[args.action](args)
    except ScenarioError as exc:
        print(f"wslmcp scenario: {exc}", file=sys.stderr)
        return 1


def _list(args: argparse.Namespace) -> int:
    for path in discover(args.dir):
        try:
            sc = Scenario.load(path)
            print(f"{sc.name:<24} {sc.manifest.get('source', 'hand-written'):<13} {sc.description}")
        except ScenarioError as exc:
            print(f"{path.name:<24} {'INVALID':<13} {exc}")
    return 0


def _show(args: argparse.Namespace) -> int:
    sc = Scenario.load(args.dir)
    if args.json:
        print(json.dumps(sc.manifest, indent=2))
        return 0
    m = sc.manifest
    print(
        f"name:        {sc.name}\nschema:      {m['schema']}\nsource:      {m.get('source', 'hand-written')}"
    )
    print(f"description: {sc.description}")
    if "recorded_at" in m:
        print(f"recorded:    {m['recorded_at']} by {m.get('recorder', '?')}")
    print(
        f"timeline:    {len(sc.timeline)} samples"
        + (f", t={sc.timeline[-1].t_ms} ms last" if sc.timeline else "")
    )
    for boundary, items in m.get("exchanges", {}).items():
        print(f"exchanges:   {boundary}: {len(items)}")
    if "home" in m:
        home = sc.root / m["home"]["dir"]
        held = sorted(f.relative_to(home).as_posix() for f in home.rglob("*") if f.is_file())
        shown = one_line(", ".join(held), 300)
        print(f"home:        {m['home']['dir']} as {m['home']['path']}, {len(held)} files: {shown}")
    session = m.get("eval", {}).get("session")
    if isinstance(session, dict):
        calls = session.get("calls", [])
        skipped = [c for c in calls if "skipped" in c]
        print(
            f"session:     {len(calls) - len(skipped)} calls recorded, {len(skipped)} skipped, from {session.get('trace')}"
        )
    print(f"checks:      {', '.join(e['kind'] for e in m.get('expect', [])) or 'none'}")
    return 0


def _validate(args: argparse.Namespace) -> int:
    failed = 0
    for d in args.dirs:
        for path in discover(d):
            try:
                Scenario.load(path)
                print(f"ok       {path}")
            except ScenarioError as exc:
                failed += 1
                print(f"invalid  {exc}", file=sys.stderr)
    return 1 if failed else 0


def _replay(args: argparse.Namespace) -> int:
    paths = discover(args.dir)
    if not paths:
        print(f"wslmcp scenario: no scenarios under {args.dir}", file=sys.stderr)
        return 1
    mismatches = 0
    print(f"{'SCENARIO':<24} {'RESULT':<9} {'CHECKS':<24} DETAIL")
    for path in paths:
        try:
            sc = Scenario.load(path)
        except ScenarioError as exc:
            mismatches += 1
            print(f"{path.name:<24} {'INVALID':<9} {'-':<24} {exc}")
            continue
        results = run_checks(sc)
        ok = bool(results) and all(r.ok for r in results)
        mismatches += not ok
        counts = Counter(r.kind for r in results)
        kinds = ",".join(k if n == 1 else f"{k} x{n}" for k, n in counts.items()) or "(none declared)"
        if ok:
            detail = one_line("; ".join(r.detail for r in results), 100)
        else:
            detail = one_line("; ".join(r.detail for r in results if not r.ok), 2000) or "no checks declared"
        print(f"{sc.name:<24} {'match' if ok else 'MISMATCH':<9} {kinds:<24} {detail}")
        for r in results:
            if r.report:
                print("\n".join("    " + line for line in r.report.splitlines()))
    print(f"{len(paths) - mismatches} matched, {mismatches} mismatched")
    return 1 if mismatches else 0


def _record(args: argparse.Namespace) -> int:
    from wslmcp.replay import recording
    from wslmcp.scenario.recorder import RecordingRefused, ScenarioWriter

    if args.from_session:
        if args.area is not None:
            return _usage("--from-session records what the session asks: it takes no --area")
        return _record_session(args)
    args.area = args.area or "observe"
    calls: list[dict[str, Any]] = []
    if args.area == "profile" and (not args.home or not Path(args.home).is_dir()):
        return _usage("record --area profile needs --home DIR (an existing directory)")
    if args.area == "shell":
        if not args.calls:
            return _usage("record --area shell needs --calls FILE")
        try:
            calls = recording.shell_calls(json.loads(Path(args.calls).read_text(encoding="utf-8")))
        except (OSError, ValueError) as exc:
            return _usage(f"--calls {args.calls}: {exc}")
    out = Path(args.out)
    clock = wiring.real().clock
    try:
        if args.area == "shell":  # a transport that cannot start is refused before anything is written
            environ = wiring.environment()
            asyncio.run(recording.refuse_unless_shell_starts(environ, recording.shell_target(environ)))
        keep = args.keep_cmdlines or args.area == "shell"
        writer = ScenarioWriter(out, args.name or out.name, args.description, clock, keep_cmdlines=keep)
        print(_record_area(args, writer, calls, clock.wall()))
    except (RecordingRefused, ValueError) as exc:  # ValueError: NothingToRecord (no such source here)
        print(f"wslmcp scenario: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:  # the output cannot be written, /proc cannot be read, wsl.exe cannot start
        print(f"wslmcp scenario: recording into {out} failed, nothing was written: {exc}", file=sys.stderr)
        return 1
    return 0


def _usage(message: str) -> int:
    print(f"wslmcp scenario: {message}", file=sys.stderr)
    return 2


def _record_area(
    args: argparse.Namespace, writer: ScenarioWriter, calls: list[dict[str, Any]], wall: float
) -> str:
    """Record what ``args`` ask for into ``writer``'s scenario; returns the line that says what."""
    from wslmcp.replay import record_windows, recording
    from wslmcp.wiring.recording import recording as recording_boundaries

    out = writer.out
    if args.area == "shell":
        replies = asyncio.run(recording.record_shell(writer, calls, wiring.environment(), round(wall)))
        errors = sum(1 for r in replies if r["is_error"])
        return f"recorded {len(replies)} tool calls ({errors} error replies) into {out}"
    if args.area == "profile":
        home = Path(args.home).resolve()
        project = Path(args.project).resolve() if args.project else home / "proj"
        took, answers = recording.record_profile(writer, home, project, args.fixture_home)
        listed = "".join(f"\n  {rel}" for rel in took)
        return f"recorded {home} with {answers} server answers into {out}; took {len(took)} files:{listed}"
    if args.windows or args.docker or args.wslc:
        on_windows = wiring.real_host().platform == "windows"
        sources = record_windows.Sources(
            args.windows, args.docker, args.wslc, through_wsl_exe=on_windows, distro=args.distro
        )
        recorded = recording_boundaries(writer, keep_cmdlines=args.keep_cmdlines)
        path = asyncio.run(
            record_windows.record_host(
                recorded,
                writer,
                sources,
                args.duration,
                args.interval_ms,
                local_distro=wiring.real_host().distro,
            )
        )
    else:
        real = wiring.real()
        path = asyncio.run(
            recording.record_observe(
                real.procfs,
                writer,
                real.clock,
                args.duration,
                args.interval_ms,
                local_distro=wiring.real_host().distro,
            )
        )
    return f"recorded {len(writer.manifest['timeline'])} samples into {path}"


def _record_session(args: argparse.Namespace) -> int:
    """``record --from-session``: refuse what cannot be recorded before anything is written."""
    from wslmcp.evals.extract import read
    from wslmcp.evals.grading import shell_tools
    from wslmcp.evals.session import server_kinds
    from wslmcp.evals.trace import TraceError
    from wslmcp.replay import record_session, recording
    from wslmcp.scenario.recorder import RecordingRefused, ScenarioWriter
    from wslmcp.wiring.recording import paced_clock

    servers = {}
    for item in args.server:
        alias, sep, kind = item.partition("=")
        if not sep or not alias or kind not in ("observe", "shell"):
            return _usage(f"--server {item!r}: expected ALIAS=observe|shell")
        servers[alias] = kind
    if args.allow_writes is not None and not Path(args.allow_writes).is_dir():
        return _usage(f"--allow-writes {args.allow_writes}: not a directory")
    environ = wiring.environment()
    out = Path(args.out)
    try:
        trace = read(wiring.real().client_files, str(Path(args.from_session).resolve()), tuple(servers))
        plan = record_session.Plan(
            trace,
            server_kinds(trace, servers, shell_tools()),
            str(Path(args.allow_writes).resolve()) if args.allow_writes else None,
            args.max_wait_s,
        )
        record_session.check(plan)
        if plan.aliases("shell"):
            target = recording.shell_target(environ)
            asyncio.run(recording.refuse_unless_shell_starts(environ, target))
            plan = replace(plan, shell=target)
        wall = round(wiring.real().clock.wall(), 3)  # as the manifest states it (its replay's clock)
        writer = ScenarioWriter(
            out, args.name or out.name, args.description, paced_clock(wall), keep_cmdlines=args.keep_cmdlines
        )
        writer.now_ms()  # t=0 is now, for every server recorded
        done = asyncio.run(record_session.record_session(writer, plan, environ, wall))
    except (TraceError, RecordingRefused, ValueError) as exc:
        print(f"wslmcp scenario: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"wslmcp scenario: recording into {out} failed, nothing was written: {exc}", file=sys.stderr)
        return 1
    sent = ", ".join(f"{kind}: {n}" for kind, n in sorted(done.sent.items())) or "none"
    print(f"recorded {sum(done.sent.values())} calls of {args.from_session} ({sent}) into {out}")
    for n, why in sorted(done.skipped.items()):
        print(f"  skipped call {n}: {why}")
    if done.skipped and not args.allow_writes:
        print(
            "  (a replay reports them unreplayable; --allow-writes DIR sends those that write only inside DIR)"
        )
    return 0
