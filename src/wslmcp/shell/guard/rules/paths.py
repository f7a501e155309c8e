"""The path rules, one module for commands and file tools alike.

A command's effects name paths (written, deleted, read); a file tool names one path with an access.
Both are judged by the functions here: operator files, writes under a Windows drive, the read-only
profile, the allowed paths, and what a write destroys or plants for later (critical files, system
programs and libraries, block devices, files that run later).
"""

from __future__ import annotations

import re

from wslmcp.shell.guard.paths import as_pattern, mount_of, normalize, operator_label, resolve, runs_later
from wslmcp.shell.guard.policy import Policy
from wslmcp.shell.guard.rules.base import Finding
from wslmcp.shell.guard.values import shown


def operator_hit(text: str, cwd: str | None, home: str | None) -> tuple[str, str] | None:
    """(label, path) when a word of a command names (or globs) an operator file."""
    if not text:
        return None
    value = text.split("=", 1)[1] if re.match(r"-{1,2}[\w-]+=", text) else text
    candidates = [normalize(value) if "/" in value else value]
    if "/" in value or value.startswith("~") or cwd is not None:
        candidates.append(resolve(value, cwd, home))
    for c in candidates:
        label = operator_label(c)
        if label:
            return label, c
    return None


def operator_finding(text: str, cwd: str | None, home: str | None, written: bool) -> Finding | None:
    hit = operator_hit(text, cwd, home)
    if hit is None:
        return None
    label, path = hit
    verb = "written to" if written else "read or used"
    where = " (reached through the Windows drive mount)" if mount_of(path) else ""
    return Finding(
        "operator_path",
        f"{shown(path)} is operator {label} and cannot be {verb} by the agent, even with Windows access open{where}",
    )


def mnt_write_finding(policy: Policy, path: str, shown_as: str | None) -> Finding | None:
    """A write under ``/mnt/<drive>/`` while Windows is closed (``shown_as`` None: by a file tool)."""
    drive = mount_of(path)
    if drive is None or policy.allow_windows:
        return None
    if shown_as is None:
        return Finding(
            "windows.mnt_write",
            f"writes under /mnt/{drive}/ land on the Windows filesystem of the machine running this server "
            "(set WSL_ALLOW_WINDOWS=true to permit them)",
        )
    return Finding(
        "windows.mnt_write",
        f"writing to {shown_as} lands on the Windows filesystem of the machine running this server "
        f"(set WSL_ALLOW_WINDOWS=true to permit writes under /mnt/{drive}/; reads and copies out of it are allowed)",
    )


def persistence_finding(policy: Policy, path: str, glob: bool = False) -> Finding | None:
    """A write to something that runs later: a shell startup file, a service, a cron job, a hook.
    (Under a closed Windows drive the ``/mnt`` rule answers first.)"""
    if mount_of(path) is not None and not policy.allow_windows:
        return None
    label = runs_later(as_pattern(path, glob), policy.home)
    if label is None:
        return None
    return Finding(
        "persistence",
        f"writing {shown(path)} ({label}) plants something that runs later, outside this call (in another "
        "shell, service, session or job), so the agent may not change it",
    )


def allowed_paths_finding(policy: Policy, value: str, norm: str) -> Finding | None:
    """A file-tool path outside ``WSL_ALLOWED_PATHS``."""
    if policy.allowed_paths is None:
        return None
    listing = ", ".join(policy.allowed_paths)
    if not norm.startswith("/"):
        return Finding(
            "allowed_paths", f"this profile restricts file access to {listing}, so the path must be absolute"
        )
    if not any(_within(norm, entry) for entry in policy.allowed_paths):
        return Finding("allowed_paths", f"path is outside this profile's allowed paths ({listing})")
    return None


def _within(path: str, entry: str) -> bool:
    base = normalize(entry).rstrip("/")
    if base in ("", "/"):
        return entry.startswith("/")
    candidate = path.rstrip("/")
    return candidate == base or candidate.startswith(base + "/")
