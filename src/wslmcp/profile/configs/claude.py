"""Claude Code: ~/.claude.json (user and user-project/"local" scopes) and PROJECT/.mcp.json.

Reading order (mcp-top §3.2): user, then each matching ``projects[key]`` entry, then the
project file; with precedence user-project > project > user, so local beats project silently.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

from wslmcp.boundaries.client_files import ClientFiles
from wslmcp.clients import client
from wslmcp.profile.configs.merge import ServerMerger
from wslmcp.profile.configs.reading import note, read_json
from wslmcp.profile.configs.specs import parse_table
from wslmcp.profile.model import RESERVED_CLAUDE_NAMES, Cli, CliDiscovery

CLI: Cli = "claude-code"
CLIENT = client(CLI)
#: Claude Code skips these at load time: listed, never launched, never given a recipe.
RESERVED = RESERVED_CLAUDE_NAMES


def project_key(path: str) -> str:
    """Both sides of the ``projects`` match: normpath, forward slashes, no trailing slash.

    Not made absolute: a relative --project never matches the absolute keys (as in mcp-top).
    """
    norm = os.path.normpath(path).replace("\\", "/").rstrip("/")
    return norm.casefold() if sys.platform == "win32" else norm


def detected(files: ClientFiles, home: str, project: str) -> bool:
    return any(
        files.stat(p) is not None
        for p in (
            CLIENT.path("user", home),
            os.path.join(home, ".claude", "projects"),
            CLIENT.path("project", project),
        )
    )


def discover_claude(files: ClientFiles, home: str, project: str) -> CliDiscovery:
    warnings: list[str] = []
    files_read: list[str] = []
    merger = ServerMerger(warnings)

    user_path = CLIENT.path("user", home)
    user = note(read_json(files, user_path), user_path, files_read, warnings)
    if user is not None:
        merger.take(parse_table(CLI, user.get("mcpServers"), "user", user_path, reserved=RESERVED))
        projects = user.get("projects")
        if isinstance(projects, Mapping):
            wanted = project_key(project)
            for key, entry in projects.items():
                if project_key(str(key)) == wanted and isinstance(entry, Mapping):
                    merger.take(
                        parse_table(
                            CLI, entry.get("mcpServers"), "user-project", user_path, reserved=RESERVED
                        )
                    )

    project_path = CLIENT.path("project", project)
    shared = note(read_json(files, project_path), project_path, files_read, warnings)
    if shared is not None:
        merger.take(parse_table(CLI, shared.get("mcpServers"), "project", project_path, reserved=RESERVED))

    return CliDiscovery(
        cli=CLI,
        servers=merger.servers(),
        warnings=tuple(warnings),
        files_read=tuple(files_read),
    )
