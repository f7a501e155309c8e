"""The guard: decides, before anything runs, whether a command, a working directory or a path may be used.

This module is the interface every caller uses (the shell server's exec, cwd adoption and file
tools, and ``wslmcp shell explain``). ``Guard`` is the single chokepoint. A command is judged in
two passes: the flow pass turns it into effects (``flow.py``, asking the program registry in
``registry/``), the rule passes judge the effects (``rules/``).
"""

from __future__ import annotations

from wslmcp.shell.guard import engine
from wslmcp.shell.guard.policy import Access, Decision, Policy

__all__ = ["Access", "Decision", "Guard", "Policy"]


class Guard:
    """One policy, four questions. Pure: runs nothing, reads no files, imports no I/O."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy

    def check_command(self, command: str, cwd: str | None = None) -> Decision:
        """May ``command`` (a bash script as wsl_exec receives it) run with working directory ``cwd``?"""
        return engine.check_command(self.policy, command, cwd)

    def effects(self, command: str, cwd: str | None = None) -> list[dict[str, object]]:
        """What the flow pass finds ``command`` does, batch by batch, as plain data (``explain``)."""
        return engine.effects_as_data(self.policy, command, cwd)

    def check_cwd(self, path: str) -> Decision:
        """May ``path`` be used (or adopted) as a working directory?"""
        return engine.check_cwd(self.policy, path)

    def check_path(self, path: str, access: Access) -> Decision:
        """May a file tool read or write ``path`` in the distro? Callers pass the path with symlinks
        already resolved inside the distro (``realpath -m``) and check the unresolved path too."""
        return engine.check_path(self.policy, path, access)

    def check_local_path(self, path: str, access: Access) -> Decision:
        """May wsl_upload read (``read``) or wsl_download write (``write``) this local path?
        Accepts Windows (``C:\\...``, ``C:/...``) and POSIX paths."""
        return engine.check_local_path(self.policy, path, access)
