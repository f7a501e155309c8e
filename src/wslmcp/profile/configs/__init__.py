"""Config discovery for Claude Code, Codex and Cursor (mcp-top §2 and §3), one reader module each
(each client's backend in ``profile.clients`` detects and discovers through it).

Entry point: ``discover(files, home, project, cli) -> DiscoveryResult``. Reads only through the
``ClientFiles`` boundary, never raises on what it finds, and never launches anything.
"""

from __future__ import annotations

from wslmcp.boundaries.client_files import ClientFiles
from wslmcp.profile.model import CLIS, DiscoveryResult

CLI_CHOICES = (*CLIS, "all")


def discover(files: ClientFiles, home: str, project: str, cli: str = "all") -> DiscoveryResult:
    """``cli`` names one CLI (always reported, even with no files) or ``all`` (only detected ones)."""
    if cli not in CLI_CHOICES:
        raise ValueError(f"unknown cli {cli!r}; expected one of {', '.join(CLI_CHOICES)}")
    from wslmcp.profile.clients import BACKENDS  # the backends read through this package's modules

    found = []
    for name, client in BACKENDS.items():
        if cli not in ("all", name):
            continue
        if cli == "all" and not client.detect(files, home, project):
            continue
        found.append(client.discover(files, home, project))
    return DiscoveryResult(home=home, project=project, clis=tuple(found))


__all__ = ["CLI_CHOICES", "discover"]
