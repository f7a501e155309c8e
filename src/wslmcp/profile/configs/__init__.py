"""Config discovery for Claude Code, Codex and Cursor (mcp-top §2 and §3).

Entry point: ``discover(files, home, project, cli) -> DiscoveryResult``. Reads only through the
``ClientFiles`` boundary, never raises on what it finds, and never launches anything.
"""

from __future__ import annotations

from collections.abc import Callable

from wslmcp.boundaries.client_files import ClientFiles
from wslmcp.profile.configs import claude, codex, cursor
from wslmcp.profile.model import CLIS, CliDiscovery, DiscoveryResult

_Detect = Callable[[ClientFiles, str, str], bool]
_Discover = Callable[[ClientFiles, str, str], CliDiscovery]

_READERS: dict[str, tuple[_Detect, _Discover]] = {
    "claude-code": (claude.detected, claude.discover_claude),
    "codex": (codex.detected, codex.discover_codex),
    "cursor": (cursor.detected, cursor.discover_cursor),
}

CLI_CHOICES = (*CLIS, "all")


def discover(files: ClientFiles, home: str, project: str, cli: str = "all") -> DiscoveryResult:
    """``cli`` names one CLI (always reported, even with no files) or ``all`` (only detected ones)."""
    if cli not in CLI_CHOICES:
        raise ValueError(f"unknown cli {cli!r}; expected one of {', '.join(CLI_CHOICES)}")
    found = []
    for name in CLIS:
        if cli not in ("all", name):
            continue
        detect, read = _READERS[name]
        if cli == "all" and not detect(files, home, project):
            continue
        found.append(read(files, home, project))
    return DiscoveryResult(home=home, project=project, clis=tuple(found))


__all__ = ["CLI_CHOICES", "discover"]
