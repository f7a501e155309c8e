"""The MCP clients, and the other programs whose files hold an operator's credentials: one table.

Where each client keeps its MCP configuration on each side of WSL (a path relative to the user's
home, or to a project), the file's format and the key of its server table, what else of it holds
credentials or settings, and what shows it is installed. One fact, one place: the table is read by

- the shell's guard and sandbox (``shell/guard/paths.py``): every place listed here, of every client
  and credential store, is an operator path, refused to commands and file tools and hidden by the
  sandbox under the home and under every Windows user profile; a project's configuration files run
  later, so they are read-only inside the sandbox;
- the profiler's client backends (``profile/configs``): the files they read;
- ``wslmcp install`` and ``wslmcp doctor``: the files they write and check.

Paths are ``/``-separated and relative; ``sides`` says on which side of WSL a client keeps a file
there: ``linux`` (a distro's home) or ``windows`` (``%USERPROFILE%``; ``%APPDATA%`` is
``AppData/Roaming`` under it). Pure data and lookups: nothing here touches a file.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

Side = Literal["linux", "windows"]
Scope = Literal["user", "project"]
Format = Literal["json", "jsonc", "toml"]

SIDES: tuple[Side, ...] = ("linux", "windows")
LINUX: tuple[Side, ...] = ("linux",)
WINDOWS: tuple[Side, ...] = ("windows",)

CLIENT_CONFIGURATION = "MCP client configuration"
SERVER_CONFIGURATION = "MCP server configuration"
#: ``wslmcp install`` keeps the file as it was before its last change beside it, under this suffix;
#: a backup holds what the file holds, so it is an operator path too.
BACKUP_SUFFIX = ".wslmcp-backup"


@dataclass(frozen=True)
class Place:
    """A file or directory of operator state; ``label`` says what it holds (the guard's reasons)."""

    path: str
    sides: tuple[Side, ...] = SIDES
    label: str = CLIENT_CONFIGURATION


@dataclass(frozen=True)
class ConfigFile:
    """One MCP configuration file: where (``path`` under the home, or the project for ``project``
    scope), its ``format`` (``jsonc``: JSON with comments and trailing commas, as VS Code and Gemini CLI
    read it) and the key of its server table (``table``); ``typed``: its stdio entries carry
    ``"type": "stdio"``; ``found_by``: the directory whose presence says the client keeps this file;
    ``only_when_found``: install writes it only where the client is found (not when asked for by name
    and found nowhere: another file of the client is its usual one)."""

    path: str
    format: Format
    table: str
    sides: tuple[Side, ...] = SIDES
    scope: Scope = "user"
    typed: bool = False
    found_by: str = ""
    only_when_found: bool = False

    @property
    def label(self) -> str:
        return SERVER_CONFIGURATION if self.path == ".mcp.json" else CLIENT_CONFIGURATION

    @property
    def marker(self) -> str:
        return self.found_by or self.path


@dataclass(frozen=True)
class Client:
    """An MCP client: ``name`` is its ``--client`` name (and the profiler's), ``title`` how people
    call it; ``configs`` its MCP configuration files, the primary one of each scope and side first;
    ``private`` its credentials and other state no agent should read (hidden as its configs are)."""

    name: str
    title: str
    configs: tuple[ConfigFile, ...]
    private: tuple[Place, ...] = ()

    def files(self, scope: Scope, side: Side) -> tuple[ConfigFile, ...]:
        return tuple(c for c in self.configs if c.scope == scope and side in c.sides)

    def path(self, scope: Scope, base: str, side: Side = "linux") -> str:
        """Where the primary ``scope`` file of ``side`` lies under ``base`` (a home or a project)."""
        return under(base, self.files(scope, side)[0].path)


def under(base: str, relative: str) -> str:
    """``relative`` (``/``-separated) joined to ``base`` with this system's separator."""
    return os.path.join(base, *relative.split("/"))


def _vscode(title: str, server: str, usual: bool) -> tuple[ConfigFile, ...]:
    """VS Code and its Insiders build: the desktop's user file on each side, and the one of the VS Code
    server a remote window (WSL, SSH) runs in the distro ("MCP: Open Remote User Configuration")."""
    return (
        ConfigFile(f".config/{title}/User/mcp.json", "jsonc", "servers", LINUX, typed=True, found_by=f".config/{title}", only_when_found=not usual),
        ConfigFile(f"AppData/Roaming/{title}/User/mcp.json", "jsonc", "servers", WINDOWS, typed=True, found_by=f"AppData/Roaming/{title}", only_when_found=not usual),
        ConfigFile(f"{server}/data/User/mcp.json", "jsonc", "servers", LINUX, typed=True, found_by=server, only_when_found=True),
    )  # fmt: skip


CLIENTS: tuple[Client, ...] = (
    Client(
        "claude-code",
        "Claude Code",
        (
            ConfigFile(".claude.json", "json", "mcpServers", typed=True, found_by=".claude"),
            ConfigFile(".mcp.json", "json", "mcpServers", scope="project", typed=True),
        ),
        (Place(".claude.json"), Place(".claude.json.backup"), Place(".claude")),
    ),
    Client(
        "codex",
        "Codex",
        (
            ConfigFile(".codex/config.toml", "toml", "mcp_servers", found_by=".codex"),
            ConfigFile(".codex/config.toml", "toml", "mcp_servers", scope="project"),
        ),
        (Place(".codex"),),
    ),
    Client(
        "cursor",
        "Cursor",
        (
            ConfigFile(".cursor/mcp.json", "json", "mcpServers", found_by=".cursor"),
            ConfigFile(".cursor/mcp.json", "json", "mcpServers", scope="project"),
        ),
        (Place(".config/Cursor/User/globalStorage", LINUX), Place("AppData/Roaming/Cursor/User/globalStorage", WINDOWS)),
    ),
    Client(
        "vscode",
        "VS Code",
        (
            *_vscode("Code", ".vscode-server", usual=True),
            ConfigFile(".vscode/mcp.json", "jsonc", "servers", scope="project", typed=True),
            *_vscode("Code - Insiders", ".vscode-server-insiders", usual=False),
        ),
    ),
    Client(
        "claude-desktop",
        "Claude Desktop",
        (
            ConfigFile("AppData/Roaming/Claude/claude_desktop_config.json", "json", "mcpServers", WINDOWS, found_by="AppData/Roaming/Claude"),
            ConfigFile(".config/Claude/claude_desktop_config.json", "json", "mcpServers", LINUX, found_by=".config/Claude", only_when_found=True),
        ),
        (Place("AppData/Roaming/Claude", WINDOWS), Place(".config/Claude", LINUX)),
    ),
    Client(
        "gemini-cli",
        "Gemini CLI",
        (
            ConfigFile(".gemini/settings.json", "jsonc", "mcpServers", found_by=".gemini"),
            ConfigFile(".gemini/settings.json", "jsonc", "mcpServers", scope="project"),
        ),
        tuple(
            Place(f".gemini/{name}", label="Gemini CLI credentials")
            for name in ("oauth_creds.json", "google_accounts.json", "mcp-oauth-tokens.json", ".env")
        ),
    ),
    Client(
        "windsurf",
        "Windsurf",
        (ConfigFile(".codeium/windsurf/mcp_config.json", "json", "mcpServers", found_by=".codeium/windsurf"),),
        (Place(".config/Windsurf/User/globalStorage", LINUX), Place("AppData/Roaming/Windsurf/User/globalStorage", WINDOWS)),
    ),
)  # fmt: skip

#: Credentials of programs that are not MCP clients (the GitHub CLI's token is in its hosts.yml).
CREDENTIAL_STORES: tuple[Place, ...] = (
    Place(".ssh", label="SSH keys and configuration"),
    Place(".aws", label="AWS credentials"),
    Place(".azure", label="Azure credentials"),
    Place(".kube", label="kubeconfig"),
    Place(".docker/config.json", label="docker credentials"),
    Place(".git-credentials", label="git credentials"),
    Place(".npmrc", label="npm credentials"),
    Place(".pypirc", label="PyPI credentials"),
    Place(".netrc", label="netrc credentials"),
    Place(".gnupg", label="GPG keyring"),
    Place(".config/gh", LINUX, "GitHub CLI configuration"),
    Place("AppData/Roaming/GitHub CLI", WINDOWS, "GitHub CLI configuration"),
    Place(".config/gcloud", LINUX, "gcloud configuration"),
    Place("AppData/Roaming/gcloud", WINDOWS, "gcloud configuration"),
)

NAMES: tuple[str, ...] = tuple(c.name for c in CLIENTS)


def client(name: str) -> Client:
    """The client called ``name``; ``KeyError`` for a name that is not one."""
    for known in CLIENTS:
        if known.name == name:
            return known
    raise KeyError(name)


def home_places() -> tuple[Place, ...]:
    """Every file and directory of operator state under a home, both sides, each path once: every
    client's user-scope configuration files (and the backups install keeps of them) and private
    state, and the credential stores."""
    found: dict[str, Place] = {}
    for known in CLIENTS:
        for config in known.configs:
            if config.scope == "user":
                found.setdefault(config.path, Place(config.path, config.sides, config.label))
                backup = config.path + BACKUP_SUFFIX
                found.setdefault(backup, Place(backup, config.sides, config.label))
        for place in known.private:
            found.setdefault(place.path, place)
    for place in CREDENTIAL_STORES:
        found.setdefault(place.path, place)
    return tuple(place for place in found.values() if not _covered(place, found.values()))


def _covered(place: Place, places: Iterable[Place]) -> bool:
    """Whether another of ``places`` is a directory holding ``place`` on each of its sides."""
    return any(
        place.path.startswith(other.path + "/") and set(place.sides) <= set(other.sides) for other in places
    )


def project_configs() -> tuple[ConfigFile, ...]:
    """Every client's project-scope configuration file, each path once: what a client launches when
    someone works in the project."""
    found: dict[str, ConfigFile] = {}
    for known in CLIENTS:
        for config in known.configs:
            if config.scope == "project":
                found.setdefault(config.path, config)
    return tuple(found.values())


def project_places() -> tuple[Place, ...]:
    """The project-scope configuration files and the backups install keeps of them."""
    return tuple(
        Place(path, config.sides, config.label)
        for config in project_configs()
        for path in (config.path, config.path + BACKUP_SUFFIX)
    )
