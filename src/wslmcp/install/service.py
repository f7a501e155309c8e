"""``wslmcp install``: plan every file, write the ones that change, then start every entry of ours.

Each file is written atomically with a backup beside it (``ConfigFiles.replace``), and only when it
still holds what was read. Then every entry the files hold for us is started exactly as its client
starts it (command, args, env) through the profiler's launcher (``McpLauncher``): it must answer
``initialize`` and ``tools/list``. Pure but for the two boundaries it is handed.
"""

from __future__ import annotations

import shlex
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace

from wslmcp.boundaries.config_files import ConfigFiles
from wslmcp.boundaries.mcp_launcher import McpLauncher, ServerSpec
from wslmcp.clients import BACKUP_SUFFIX
from wslmcp.install.entries import Installed, Launch, started
from wslmcp.install.plan import EntryPlan, FilePlan, Request, Target, plan, targets
from wslmcp.wording import one_line

DEFAULT_TIMEOUT_S = 20.0
CONCURRENCY = 8


@dataclass(frozen=True)
class Check:
    """How an entry answered when started: ``ok``, what it said (its tools, or the error), the fix."""

    ok: bool
    said: str
    fix: str = ""


@dataclass
class Report:
    files: list[FilePlan]
    notes: list[str] = field(default_factory=list)
    checks: dict[tuple[str, str], Check] = field(default_factory=dict)  # (path, entry name) -> check
    dry_run: bool = False
    uninstall: bool = False

    @property
    def ok(self) -> bool:
        return all(f.refused is None for f in self.files) and all(c.ok for c in self.checks.values())


def run(
    request: Request,
    installed: Installed,
    files: ConfigFiles,
    launcher: McpLauncher | None,
    *,
    dry_run: bool = False,
    timeout_s: float = DEFAULT_TIMEOUT_S,
) -> Report:
    """Plan, then (unless ``dry_run``) write and check. ``launcher`` None: entries are not started."""
    chosen, notes = targets(request, files)
    plans = [plan(files, target, request, installed) for target in chosen]
    report = Report(plans, notes, dry_run=dry_run, uninstall=request.uninstall)
    if dry_run:
        return report
    report.files = [_write(files, p) for p in plans]
    if launcher is not None and not request.uninstall:
        report.checks = check_all(launcher, _kept(report.files), timeout_s)
    return report


def _write(files: ConfigFiles, planned: FilePlan) -> FilePlan:
    if not planned.changes or planned.after is None:
        return planned
    path = planned.target.path
    try:
        files.replace(path, planned.after, expected=planned.before, backup=path + BACKUP_SUFFIX)
    except OSError as exc:
        return replace(planned, refused=f"not written: {exc}", fix="run again once nothing else edits it")
    return planned


def _kept(plans: list[FilePlan]) -> list[tuple[Target, EntryPlan]]:
    return [(p.target, e) for p in plans if p.refused is None for e in p.entries if e.entry is not None]


def check_all(
    launcher: McpLauncher, entries: list[tuple[Target, EntryPlan]], timeout_s: float
) -> dict[tuple[str, str], Check]:
    """Start each entry (at most ``CONCURRENCY`` at once), as its client would."""

    def one(item: tuple[Target, EntryPlan]) -> tuple[tuple[str, str], Check]:
        target, planned = item
        assert planned.entry is not None
        return (target.path, planned.name), check(launcher, planned.name, started(planned.entry), timeout_s)

    if not entries:
        return {}
    with ThreadPoolExecutor(min(CONCURRENCY, len(entries)), thread_name_prefix="wslmcp-check") as pool:
        return dict(pool.map(one, entries))


def check(launcher: McpLauncher, name: str, launch: Launch, timeout_s: float) -> Check:
    spec = ServerSpec(name=name, command=launch.command, args=launch.args, env=dict(launch.env))
    answer = launcher.query(spec, timeout_s)
    if answer.error is None:
        tools = len(answer.tools)
        return Check(True, f"answers: {tools} tool{'s' if tools != 1 else ''}")
    said = answer.error + (f" ({answer.detail})" if answer.detail else "")
    return Check(False, one_line(said, 160), by_hand(launch))


def by_hand(launch: Launch) -> str:
    """The command that shows why an entry does not start (the shell server's own check)."""
    argv = [launch.command, *launch.args]
    carried = {k: v for k, v in launch.env.items() if k != "WSLENV"}
    shell = argv[-1] == "shell"
    if shell:
        argv.append("--check")
    if "--" in argv and carried:  # through wsl.exe: the variables go to the distro's side
        at = argv.index("--") + 1
        argv[at:at] = ["env", *(f"{k}={v}" for k, v in carried.items())]
        carried = {}
    line = " ".join([*(f"{k}={shlex.quote(v)}" for k, v in carried.items()), *map(shlex.quote, argv)])
    return f"run it by hand to see why: {line}"
