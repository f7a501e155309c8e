"""The profiler's shared data model: what config discovery finds and what querying servers returns.

Pure data, no I/O, importable anywhere in the domain. Two halves meet here:

* SOURCES (config discovery + server queries) produce these objects;
* the ENGINE (tokens, regimes, transcripts, verdicts, reports) consumes them.

Public entry points of the sources half
---------------------------------------
``wslmcp.profile.configs.discover(files, home, project, cli) -> DiscoveryResult``
    Reads Claude Code / Codex / Cursor configs through a ``ClientFiles`` boundary.
    ``cli`` is ``"claude-code" | "codex" | "cursor" | "all"``; with ``all`` only detected CLIs
    appear (mcp-top §2), in the order claude-code, codex, cursor. Never raises on bad files.
``wslmcp.profile.querying.plan(server, no_query, query_project, query_http) -> QueryResult | None``
    The §4.1 gate: a finished ``unsupported``/``error`` result when the server must not be
    launched, else None.
``wslmcp.profile.querying.query_all(launcher, servers, timeout_s, concurrency=8,
        progress=None, no_query=False, query_project=False) -> dict[ServerKey, QueryResult]``
    Gates and queries every server concurrently through an ``McpLauncher`` with a bounded pool;
    one result per server (keyed by ``server.key``), including the gated ones. Never raises
    for a server's failure. ``progress(done, total, server_name)`` is called after each one.
``wslmcp.profile.querying.stderr_progress(stream) -> Progress``
    A one-line ``\\r`` progress printer (use it only when stderr is a terminal).

Boundaries and recordings
-------------------------
Real launcher: ``wslmcp.boundaries.mcp_stdio.StdioMcpLauncher`` (wired as ``Boundaries.mcp_launcher``).
Fake: ``wslmcp.fakes.mcp_launcher.FakeMcpLauncher.from_scenario(scenario)`` reads the answers file a
scenario names as ``profile.mcp_answers`` (schema ``wslmcp-mcp-answers/1``). Record one with
``wslmcp.fakes.mcp_launcher.RecordingMcpLauncher(real, path, rewrite={tmp_home: "/home/user"})``; a whole
scenario with ``wslmcp scenario record --area profile --home DIR`` (``replay.recording``), the one
way profile scenarios are recorded.

Secrets
-------
``ConfiguredServer`` carries the launch material (command, args, env values, url) because the
launcher needs it, but those fields are excluded from ``repr`` and from ``to_public_dict()``.
Nothing in this module ever serializes them; only env *keys* are exposed (``env_keys``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Cli = Literal["claude-code", "codex", "cursor"]
CLIS: tuple[Cli, ...] = ("claude-code", "codex", "cursor")
Scope = Literal["user", "project", "user-project"]
Transport = Literal["stdio", "http", "sse", "unknown"]
DefStatus = Literal["ok", "error", "unsupported"]

#: mcp-top scope precedence, higher wins: user < project < user-project ("local").
SCOPE_PRECEDENCE: Mapping[str, int] = {"user": 0, "project": 1, "user-project": 2}

#: Claude Code skips these names at load time; they are never queried nor given a recipe.
RESERVED_CLAUDE_NAMES: frozenset[str] = frozenset(
    {"workspace", "claude-in-chrome", "computer-use", "Claude Preview", "Claude Browser"}
)

#: (cli, server name): unique per discovery result.
ServerKey = tuple[str, str]


@dataclass(frozen=True)
class ShadowedEntry:
    """A lower-precedence definition of the same name that the winner hides (mcp-top §3.1)."""

    scope: Scope
    source_path: str
    enabled: bool


@dataclass(frozen=True)
class ConfiguredServer:
    """One configured MCP server after precedence resolution (the winner of its name)."""

    cli: Cli
    name: str
    scope: Scope
    source_path: str
    transport: Transport
    enabled: bool = True
    #: ``alwaysLoad`` when it was a boolean, else None (affects the Claude regime only).
    always_load: bool | None = None
    #: None = no filter; a tuple (possibly empty, which hides everything) = a real filter.
    enabled_tools: tuple[str, ...] | None = None
    disabled_tools: tuple[str, ...] | None = None
    cwd: str | None = None
    #: ``startup_timeout_sec`` when valid: replaces ``--timeout`` for this server.
    startup_timeout_s: float | None = None
    #: Claude Code reserved name: inventory only, never launched, never a recipe.
    reserved: bool = False
    #: Lower-precedence definitions of this name, highest precedence first.
    shadowed: tuple[ShadowedEntry, ...] = ()
    #: Codex: a project-layer config may redefine this server (text is mcp-top's caveat).
    resolution_caveat: str | None = None
    # ---- launch material: secret, never serialized, never in repr ----
    command: str | None = field(default=None, repr=False, compare=False)
    args: tuple[str, ...] = field(default=(), repr=False, compare=False)
    env: Mapping[str, str] = field(default_factory=dict, repr=False, compare=False)
    url: str | None = field(default=None, repr=False, compare=False)
    #: HTTP headers the config itself sets for this server (``headers``; Codex ``http_headers``):
    #: the only credentials a ``--query-http`` request carries.
    headers: Mapping[str, str] = field(default_factory=dict, repr=False, compare=False)

    @property
    def key(self) -> ServerKey:
        return (self.cli, self.name)

    @property
    def precedence(self) -> int:
        return SCOPE_PRECEDENCE[self.scope]

    @property
    def env_keys(self) -> tuple[str, ...]:
        """Names of the env variables the config sets (their values stay in ``env``)."""
        return tuple(self.env)

    @property
    def has_command(self) -> bool:
        return self.command is not None

    @property
    def has_url(self) -> bool:
        return self.url is not None

    def to_public_dict(self) -> dict[str, Any]:
        """Everything except command, args, env values, url and headers."""
        return {
            "cli": self.cli,
            "name": self.name,
            "scope": self.scope,
            "source_path": self.source_path,
            "transport": self.transport,
            "enabled": self.enabled,
            "always_load": self.always_load,
            "enabled_tools": None if self.enabled_tools is None else list(self.enabled_tools),
            "disabled_tools": None if self.disabled_tools is None else list(self.disabled_tools),
            "cwd": self.cwd,
            "startup_timeout_s": self.startup_timeout_s,
            "reserved": self.reserved,
            "shadowed": [
                {"scope": s.scope, "source_path": s.source_path, "enabled": s.enabled} for s in self.shadowed
            ],
            "resolution_caveat": self.resolution_caveat,
            "env_keys": list(self.env_keys),
            "has_command": self.has_command,
            "has_url": self.has_url,
        }


@dataclass(frozen=True)
class CliDiscovery:
    """One CLI's configured servers and the warnings met while reading its config files."""

    cli: Cli
    #: Winners in first-seen order (= mcp-top's query and row order).
    servers: tuple[ConfiguredServer, ...]
    #: mcp-top ``coverage.config_warnings`` text, in mcp-top order (settings-file warnings,
    #: which the engine's regime code produces, are appended by the engine).
    warnings: tuple[str, ...] = ()
    #: Config files that exist and were read (parsed or not), in reading order.
    files_read: tuple[str, ...] = ()
    #: Codex only: names in a project-layer .codex/config.toml (listed, never merged or launched);
    #: None when there is no project layer.
    project_layer_servers: tuple[str, ...] | None = None

    @property
    def provenance_incomplete(self) -> bool:
        """A config layer could not be parsed or read (mcp-top §10 reason 2)."""
        return any(w.startswith(("could not parse", "could not read")) for w in self.warnings)

    def to_public_dict(self) -> dict[str, Any]:
        return {
            "cli": self.cli,
            "servers": [s.to_public_dict() for s in self.servers],
            "warnings": list(self.warnings),
            "files_read": list(self.files_read),
            "project_layer_servers": None
            if self.project_layer_servers is None
            else list(self.project_layer_servers),
        }


@dataclass(frozen=True)
class DiscoveryResult:
    """Every inspected CLI, in the order claude-code, codex, cursor.

    With ``--cli all`` and nothing detected, ``clis`` is empty (the engine then prints mcp-top's
    "no supported CLIs detected under <home>" note).
    """

    home: str
    project: str
    clis: tuple[CliDiscovery, ...]

    def servers(self) -> list[ConfiguredServer]:
        return [s for c in self.clis for s in c.servers]

    def cli(self, name: str) -> CliDiscovery | None:
        return next((c for c in self.clis if c.cli == name), None)

    def to_public_dict(self) -> dict[str, Any]:
        return {
            "home": self.home,
            "project": self.project,
            "clis": [c.to_public_dict() for c in self.clis],
        }


@dataclass(frozen=True)
class QueryResult:
    """What one server advertised, or why it was not (or could not be) queried.

    ``status`` / ``error`` are mcp-top's ``def_status`` / ``def_error``. ``tools`` are the kept
    tools (after enabled_tools/disabled_tools), each the JSON object exactly as the server
    listed it; ``filtered_tools`` and ``unmatched_enabled_tools`` follow mcp-top §4.2.
    """

    cli: Cli
    server: str
    status: DefStatus
    error: str | None = None
    server_name: str | None = None
    server_version: str | None = None
    protocol_version: str | None = None
    instructions: str | None = None
    tools: tuple[Mapping[str, Any], ...] = ()
    returned_tools: int = 0
    filtered_tools: int = 0
    unmatched_enabled_tools: tuple[str, ...] = ()
    #: Wall seconds spent on the query (0 when not launched).
    duration_s: float = 0.0
    #: The deadline that applied (``startup_timeout_sec`` or ``--timeout``); None if not launched.
    timeout_s: float | None = None
    #: Extra diagnostics beside ``error`` (junk stdout lines, exit code); wslmcp-only.
    detail: str | None = None

    @property
    def key(self) -> ServerKey:
        return (self.cli, self.server)

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def tool_count(self) -> int | None:
        return len(self.tools) if self.ok else None

    def to_public_dict(self) -> dict[str, Any]:
        return {
            "cli": self.cli,
            "server": self.server,
            "status": self.status,
            "error": self.error,
            "server_name": self.server_name,
            "server_version": self.server_version,
            "protocol_version": self.protocol_version,
            "instructions": self.instructions,
            "tools": [dict(t) for t in self.tools],
            "returned_tools": self.returned_tools,
            "filtered_tools": self.filtered_tools,
            "unmatched_enabled_tools": list(self.unmatched_enabled_tools),
            "duration_s": self.duration_s,
            "timeout_s": self.timeout_s,
            "detail": self.detail,
        }
