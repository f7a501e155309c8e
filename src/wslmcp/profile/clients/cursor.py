"""Cursor: ``~/.cursor/mcp.json`` and ``PROJECT/.cursor/mcp.json``, no readable transcripts (its chats
are in undocumented SQLite), a loading regime local files cannot show, raw tool names, whole
descriptions, and edit guidance."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from wslmcp.boundaries.client_files import ClientFiles
from wslmcp.profile import regimes
from wslmcp.profile.clients.backend import Loading, Scan, guidance, where
from wslmcp.profile.configs import cursor as config
from wslmcp.profile.model import Cli, CliDiscovery

if TYPE_CHECKING:
    from wslmcp.profile.prune import Removal
    from wslmcp.profile.transcripts.events import Reading

REGIME_EVIDENCE = "cursor: Dynamic Context Discovery regime is not observable from local MCP config"
USAGE_NOTE = "Cursor stores chats in undocumented SQLite; no transcript adapter -- usage unknown"


class Cursor:
    cli: Cli = config.CLI
    text_limit: int | None = None
    usage_note: str | None = USAGE_NOTE
    wire: str = "openai"

    def detect(self, files: ClientFiles, home: str, project: str) -> bool:
        return config.detected(files, home, project)

    def discover(self, files: ClientFiles, home: str, project: str) -> CliDiscovery:
        return config.discover_cursor(files, home, project)

    def scan(self, files: ClientFiles, home: str, configured: Sequence[str]) -> Scan | None:
        return None

    def read(
        self, records: Iterable[dict[str, Any]], configured: Sequence[str], *, messages: bool = False
    ) -> Reading | None:
        return None

    def project_key(self, project: str, cwd: str) -> str | None:
        return None

    def loading(self, files: ClientFiles | None, home: str, project: str, managed: str) -> Loading:
        fixed = regimes.fixed_regime(REGIME_EVIDENCE)
        return Loading(lambda server: fixed)

    def visible_name(self, server: str, tool: str) -> str:
        return tool

    def recipe(self, removal: Removal) -> dict[str, Any]:
        return guidance(
            removal,
            f"Edit {where(removal)}: review mcpServers.{removal.server!r} and disable or remove it in "
            "that exact mcp.json file only after checking the candidate reasons.",
        )
