"""Placeholder rule engine: refuses the obvious catastrophes until the full guard lands (issue 5).

Owned by the guard work; the shell server only uses ``wslmcp.shell.guard.Guard``.
"""

from __future__ import annotations

import re

from wslmcp.shell.guard import Access, Decision, Policy

_CATASTROPHES = [
    (re.compile(r"\brm\s+(-\w+\s+)*(/|/\*)(\s|$)"), "catastrophe.rm_root", "removes the root filesystem"),
    (re.compile(r"\bmkfs(\.\w+)?\b"), "catastrophe.mkfs", "formats a filesystem"),
    (re.compile(r"\b(shutdown|reboot|poweroff|halt)\b"), "catastrophe.power", "powers the machine off"),
    (re.compile(r":\(\)\s*\{"), "catastrophe.fork_bomb", "is a fork bomb"),
]


def check_command(policy: Policy, command: str, cwd: str | None) -> Decision:
    for pattern, rule, why in _CATASTROPHES:
        m = pattern.search(command)
        if m:
            return Decision.reject(rule, m.group(0).strip(), f"the command {why}; nothing was run")
    return Decision.allow()


def check_cwd(policy: Policy, path: str) -> Decision:
    return Decision.allow()


def check_path(policy: Policy, path: str, access: Access) -> Decision:
    return Decision.allow()


def check_local_path(policy: Policy, path: str, access: Access) -> Decision:
    return Decision.allow()
