"""Codex: ~/.codex/config.toml ``[mcp_servers.<name>]`` (user scope), plus the project layer.

The project layer PROJECT/.codex/config.toml is read and listed as conditional inventory only:
never merged, never launched (mcp-top §3.3). Its warnings come before the user config's.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace

from wslmcp.boundaries.client_files import ClientFiles
from wslmcp.clients import client
from wslmcp.profile.configs.merge import ServerMerger
from wslmcp.profile.configs.reading import note, read_toml
from wslmcp.profile.configs.specs import parse_table
from wslmcp.profile.model import Cli, CliDiscovery

CLI: Cli = "codex"
CLIENT = client(CLI)

CAVEAT_REDEFINED = (
    "a project-layer .codex/config.toml also defines this server; in a trusted project Codex may"
    " override or merge it, so removal may not save the full cost"
)
CAVEAT_UNREADABLE = (
    "a project-layer .codex/config.toml exists but could not be read; in a trusted project it may"
    " redefine this server, so removal may not save the full cost"
)
_LAYER_NOTE = (
    " -- not queried and not merged. Codex applies project layers only to trusted projects"
    " (unobservable here) and layer merge semantics are undocumented, so these are shown as a"
    " conditional inventory only."
)


def detected(files: ClientFiles, home: str, project: str) -> bool:
    return any(
        files.stat(p) is not None
        for p in (
            CLIENT.path("user", home),
            os.path.join(home, ".codex", "sessions"),
            CLIENT.path("project", project),
        )
    )


def discover_codex(files: ClientFiles, home: str, project: str) -> CliDiscovery:
    warnings: list[str] = []
    files_read: list[str] = []
    user_path = CLIENT.path("user", home)
    layer_path = CLIENT.path("project", project)

    layer_names: tuple[str, ...] | None = None
    layer_unreadable = False
    if files.stat(layer_path) is not None and not files.same_file(layer_path, user_path):
        layer = note(read_toml(files, layer_path), layer_path, files_read, warnings)
        if layer is None:
            warnings.append(
                f"project-layer codex config {layer_path} detected but could not be read"
                " -- not queried and not merged"
            )
            layer_unreadable = True
            layer_names = ()
        else:
            table = layer.get("mcp_servers")
            layer_names = tuple(sorted(table)) if isinstance(table, Mapping) and table else ()
            listed = f": {', '.join(layer_names)}" if layer_names else " (no mcp_servers table)"
            warnings.append(f"project-layer codex config detected at {layer_path}{listed}{_LAYER_NOTE}")

    merger = ServerMerger(warnings)
    user = note(read_toml(files, user_path), user_path, files_read, warnings)
    if user is not None:
        merger.take(
            parse_table(
                CLI, user.get("mcp_servers"), "user", user_path, "mcp_servers", headers_key="http_headers"
            )
        )

    servers = []
    for found in merger.servers():
        if layer_unreadable:
            found = replace(found, resolution_caveat=CAVEAT_UNREADABLE)  # noqa: PLW2901
        elif layer_names and found.name in layer_names:
            found = replace(found, resolution_caveat=CAVEAT_REDEFINED)  # noqa: PLW2901
        servers.append(found)
    return CliDiscovery(
        cli=CLI,
        servers=tuple(servers),
        warnings=tuple(warnings),
        files_read=tuple(files_read),
        project_layer_servers=layer_names,
    )
