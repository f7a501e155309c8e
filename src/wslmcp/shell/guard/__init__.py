"""The guard: decides, before anything runs, whether a command, a working directory or a path may be used.

This module is the interface every caller uses (the shell server's exec, cwd adoption and file
tools, and ``wslmcp shell explain``). ``Guard`` is the single chokepoint.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

Access = Literal["read", "write"]


@dataclass(frozen=True)
class Policy:
    """What the operator allowed. Permissive by default; every restriction is opt-in.

    ``allow_commands`` None means any binary; ``allowed_paths`` None means any path. Paths are
    absolute POSIX paths inside the distro. ``home`` is the Linux user's home directory, when known.
    """

    readonly: bool = False
    allow_sudo: bool = False
    allow_windows: bool = False
    allow_commands: tuple[str, ...] | None = None
    deny_patterns: tuple[re.Pattern[str], ...] = ()
    allowed_paths: tuple[str, ...] | None = None
    home: str | None = None
    user: str | None = None


@dataclass(frozen=True)
class Decision:
    """The guard's answer. On ``reject``: which rule fired, the offending segment, and why."""

    verdict: Literal["allow", "reject"]
    rule: str | None = None
    segment: str | None = None
    reason: str | None = None
    details: tuple[str, ...] = field(default=())

    @property
    def allowed(self) -> bool:
        return self.verdict == "allow"

    @staticmethod
    def allow() -> Decision:
        return Decision("allow")

    @staticmethod
    def reject(rule: str, segment: str | None, reason: str) -> Decision:
        return Decision("reject", rule, segment, reason)

    def as_json(self) -> dict[str, str | None]:
        return {"verdict": self.verdict, "rule": self.rule, "segment": self.segment, "reason": self.reason}


class Guard:
    """One policy, four questions. Pure: runs nothing, reads no files, imports no I/O."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy

    def check_command(self, command: str, cwd: str | None = None) -> Decision:
        """May ``command`` (a bash script as wsl_exec receives it) run with working directory ``cwd``?"""
        from wslmcp.shell.guard.engine import check_command

        return check_command(self.policy, command, cwd)

    def check_cwd(self, path: str) -> Decision:
        """May ``path`` be used (or adopted) as a working directory?"""
        from wslmcp.shell.guard.engine import check_cwd

        return check_cwd(self.policy, path)

    def check_path(self, path: str, access: Access) -> Decision:
        """May a file tool read or write ``path`` in the distro? Callers pass the path with symlinks
        already resolved inside the distro (``realpath -m``) and check the unresolved path too."""
        from wslmcp.shell.guard.engine import check_path

        return check_path(self.policy, path, access)

    def check_local_path(self, path: str, access: Access) -> Decision:
        """May wsl_upload read (``read``) or wsl_download write (``write``) this local path?
        Accepts Windows (``C:\\...``, ``C:/...``) and POSIX paths."""
        from wslmcp.shell.guard.engine import check_local_path

        return check_local_path(self.policy, path, access)
