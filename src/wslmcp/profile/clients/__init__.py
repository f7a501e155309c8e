"""The client backends, chosen from one table (as psutil picks its platform module).

``BACKENDS`` maps each client, in mcp-top's detection order (claude-code, codex, cursor), to the
one module that knows it (``backend.Backend`` is the contract). Adding a client is a module and a
row here; nothing else names a client.
"""

from __future__ import annotations

from wslmcp.profile.clients.backend import Backend, Loading, Scan
from wslmcp.profile.clients.claude_code import ClaudeCode
from wslmcp.profile.clients.codex import Codex
from wslmcp.profile.clients.cursor import Cursor
from wslmcp.profile.model import CLIS, Cli

BACKENDS: dict[Cli, Backend] = {b.cli: b for b in (ClaudeCode(), Codex(), Cursor())}

if tuple(BACKENDS) != CLIS:  # pragma: no cover - a table out of step with model.CLIS
    raise ImportError(f"client backends {tuple(BACKENDS)} do not match {CLIS}")


def backend(cli: str) -> Backend:
    """The backend of ``cli``; ``KeyError`` for a name that is not a client."""
    return BACKENDS[cli]  # type: ignore[index]


__all__ = ["BACKENDS", "Backend", "Loading", "Scan", "backend"]
