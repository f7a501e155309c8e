"""Cursor: ~/.cursor/mcp.json (user) and PROJECT/.cursor/mcp.json (project, which wins)."""

from __future__ import annotations

import os

from wslmcp.boundaries.client_files import ClientFiles
from wslmcp.profile.configs.merge import ServerMerger
from wslmcp.profile.configs.reading import note, read_json
from wslmcp.profile.configs.specs import parse_table
from wslmcp.profile.model import Cli, CliDiscovery, Scope

CLI: Cli = "cursor"


def detected(files: ClientFiles, home: str, project: str) -> bool:
    return any(files.stat(os.path.join(base, ".cursor", "mcp.json")) is not None for base in (home, project))


def discover_cursor(files: ClientFiles, home: str, project: str) -> CliDiscovery:
    warnings: list[str] = []
    files_read: list[str] = []
    merger = ServerMerger(warnings)
    layers: tuple[tuple[str, Scope], ...] = (
        (os.path.join(home, ".cursor", "mcp.json"), "user"),
        (os.path.join(project, ".cursor", "mcp.json"), "project"),
    )
    for path, scope in layers:
        root = note(read_json(files, path, unicode_is="read", empty_warns=True), path, files_read, warnings)
        if root is not None:
            merger.take(parse_table(CLI, root.get("mcpServers"), scope, path))
    return CliDiscovery(
        cli=CLI, servers=merger.servers(), warnings=tuple(warnings), files_read=tuple(files_read)
    )
