"""What ``wslmcp install`` says: a table (client, side, file, entry, result, and the fix of each
failure), a unified diff per file for ``--dry-run``, or the same as JSON."""

from __future__ import annotations

import difflib
from typing import Any

from wslmcp.clients import BACKUP_SUFFIX
from wslmcp.install.plan import FilePlan
from wslmcp.install.service import Check, Report
from wslmcp.wording import counted

HEADER = ("CLIENT", "SIDE", "FILE", "ENTRY", "RESULT")


def diff(planned: FilePlan) -> str:
    """The unified diff of one file's change ('' when nothing changes)."""
    if not planned.changes or planned.after is None:
        return ""
    before = (planned.before or b"").decode("utf-8", "replace").splitlines(keepends=True)
    after = planned.after.decode("utf-8", "replace").splitlines(keepends=True)
    path = planned.target.path
    lines = difflib.unified_diff(before, after, path if planned.before is not None else "/dev/null", path)
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )


def _result(planned: FilePlan, action: str, check: Check | None, report: Report) -> str:
    if report.dry_run and action in ("added", "updated", "removed"):
        action = {"added": "would add", "updated": "would update", "removed": "would remove"}[action]
    if check is None:
        return action
    return f"{action} · {check.said}" if check.ok else f"{action} · FAILED: {check.said}"


def rows(report: Report) -> list[tuple[tuple[str, ...], str]]:
    """One row per entry (or per refused file), each with its fix ('' when none)."""
    out: list[tuple[tuple[str, ...], str]] = []
    for planned in report.files:
        t = planned.target
        head: tuple[str, ...] = (t.client.title, t.side, t.path)
        if planned.refused is not None:
            out.append(((*head, "—", f"refused, left untouched: {planned.refused}"), planned.fix or ""))
            continue
        for e in planned.entries:
            check = report.checks.get((t.path, e.name))
            out.append(
                (
                    (*head, e.name, _result(planned, e.action, check, report)),
                    "" if check is None else check.fix,
                )
            )
    return out


def human(report: Report) -> str:
    table = rows(report)
    lines = [_summary(report)]
    if table:
        widths = [max(len(r[i]) for r in [HEADER, *(row for row, _ in table)]) for i in range(4)]
        fmt = "  ".join(f"{{:<{w}}}" for w in widths) + "  {}"
        lines += ["", fmt.format(*HEADER)]
        for row, fix in table:
            lines.append(fmt.format(*row))
            if fix:
                lines.append(" " * (sum(widths) + 8) + "fix: " + fix)
    lines += [f"note: {note}" for note in report.notes]
    return "\n".join(lines) + "\n"


def _summary(report: Report) -> str:
    changed = [p for p in report.files if p.changes]
    refused = [p for p in report.files if p.refused is not None]
    if not report.files:
        return "wslmcp install: no client found (name one with --client NAME, or --windows-home DIR)"
    verb = "would change" if report.dry_run else "changed"
    said = f"wslmcp install: {counted(len(changed), 'file')} {verb}"
    if not changed and not refused:
        said = "wslmcp install: nothing to change: " + (
            "no entry of ours is there" if report.uninstall else "every entry is already there"
        )
    if refused:
        said += f", {counted(len(refused), 'file')} refused"
    if changed and not report.dry_run:
        said += f" (each kept as it was in FILE{BACKUP_SUFFIX})"
    if report.dry_run:
        said += "; dry run: nothing was written"
    return said


def as_json(report: Report) -> dict[str, Any]:
    return {
        "ok": report.ok,
        "dry_run": report.dry_run,
        "uninstall": report.uninstall,
        "changed": sum(p.changes for p in report.files),
        "files": [_file(report, p) for p in report.files],
        "notes": list(report.notes),
    }


def _file(report: Report, planned: FilePlan) -> dict[str, Any]:
    t = planned.target
    state = (
        "refused"
        if planned.refused is not None
        else "unchanged"
        if not planned.changes
        else ("would change" if report.dry_run else "written")
    )
    out: dict[str, Any] = {
        "client": t.client.name,
        "title": t.client.title,
        "side": t.side,
        "scope": t.config.scope,
        "path": t.path,
        "format": t.config.format,
        "result": state,
        "backup": t.path + BACKUP_SUFFIX if state == "written" and planned.before is not None else None,
        "refused": planned.refused,
        "fix": planned.fix,
        "entries": [],
    }
    if report.dry_run:
        out["diff"] = diff(planned)
    for e in planned.entries:
        check = report.checks.get((t.path, e.name))
        out["entries"].append(
            {
                "name": e.name,
                "server": e.server,
                "action": e.action,
                "entry": dict(e.entry) if e.entry is not None else None,
                "check": None
                if check is None
                else {"ok": check.ok, "said": check.said, "fix": check.fix or None},
            }
        )
    return out
