"""Cursor: ~/.cursor/mcp.json (user) and PROJECT/.cursor/mcp.json (project, which wins)."""

from __future__ import annotations

from wslmcp.boundaries.client_files import ClientFiles
from wslmcp.clients import client
from wslmcp.profile.configs.merge import ServerMerger
from wslmcp.profile.configs.reading import note, read_json
from wslmcp.profile.configs.specs import parse_table
from wslmcp.profile.model import Cli, CliDiscovery, Scope

CLI: Cli = "cursor"
CLIENT = client(CLI)


def detected(files: ClientFiles, home: str, project: str) -> bool:
    return any(
        files.stat(path) is not None for path in (CLIENT.path("user", home), CLIENT.path("project", project))
    )


def discover_cursor(files: ClientFiles, home: str, project: str) -> CliDiscovery:
    warnings: list[str] = []
    files_read: list[str] = []
    merger = ServerMerger(warnings)
    layers: tuple[tuple[str, Scope], ...] = (
        (CLIENT.path("user", home), "user"),
        (CLIENT.path("project", project), "project"),
    )
    for path, scope in layers:
        root = note(read_json(files, path, unicode_is="read", empty_warns=True), path, files_read, warnings)
        if root is not None:
            merger.take(parse_table(CLI, root.get("mcpServers"), scope, path))
    return CliDiscovery(
        cli=CLI, servers=merger.servers(), warnings=tuple(warnings), files_read=tuple(files_read)
    )
