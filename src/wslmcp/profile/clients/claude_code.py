"""Claude Code: ``~/.claude.json`` and ``.mcp.json`` configs, JSONL transcripts under
``~/.claude/projects``, regimes from its settings layers, ``mcp__<server>__<tool>`` names, 2 KB
descriptions, and ``claude mcp remove`` for clean removals."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from wslmcp.boundaries.client_files import ClientFiles
from wslmcp.profile import attribution, regimes
from wslmcp.profile.clients.backend import Loading, Scan, guidance, where
from wslmcp.profile.configs import claude as config
from wslmcp.profile.model import Cli, CliDiscovery, ConfiguredServer
from wslmcp.profile.tokens import CLAUDE_TEXT_LIMIT_BYTES

if TYPE_CHECKING:
    from wslmcp.profile.prune import Removal
    from wslmcp.profile.transcripts.events import Reading

#: ``claude mcp remove --scope`` names our scopes this way.
_SCOPE = {"user": "user", "user-project": "local", "project": "project"}


class ClaudeCode:
    cli: Cli = config.CLI
    text_limit: int | None = CLAUDE_TEXT_LIMIT_BYTES
    usage_note: str | None = None
    wire: str = "anthropic"

    def detect(self, files: ClientFiles, home: str, project: str) -> bool:
        return config.detected(files, home, project)

    def discover(self, files: ClientFiles, home: str, project: str) -> CliDiscovery:
        return config.discover_claude(files, home, project)

    def scan(self, files: ClientFiles, home: str, configured: Sequence[str]) -> Scan | None:
        from wslmcp.profile.transcripts import claude as transcripts  # (discovery does not read them)

        result = Scan()
        for path in transcripts.find(files, home):
            result.transcripts.append(transcripts.parse(files, path, home, configured))
            result.keys.append(transcripts.session_key(path, home))
        return result

    def read(
        self, records: Iterable[dict[str, Any]], configured: Sequence[str], *, messages: bool = False
    ) -> Reading:
        from wslmcp.profile.transcripts import claude as transcripts

        return transcripts.ClaudeReading(records, configured, messages=messages)

    def project_key(self, project: str, cwd: str) -> str | None:
        return attribution.claude_project_key(project, cwd)

    def loading(self, files: ClientFiles | None, home: str, project: str, managed: str) -> Loading:
        warnings: list[str] = []
        signals: list[regimes.Signal] = []
        if files is not None:
            layers = regimes.read_layers(files, regimes.settings_paths(home, project, managed), warnings)
            signals = regimes.claude_signals(layers)

        def regime(server: ConfiguredServer) -> regimes.Regime:
            return regimes.claude_server_regime(server.name, server.source_path, server.always_load, signals)

        return Loading(regime, tuple(warnings))

    def visible_name(self, server: str, tool: str) -> str:
        return f"mcp__{server}__{tool}"

    def recipe(self, removal: Removal) -> dict[str, Any]:
        if removal.kind != "suggestion":
            return guidance(
                removal,
                f"Review {where(removal)} before changing Claude Code MCP server {removal.server!r}; "
                "candidates intentionally do not include removal commands.",
            )
        scope = _SCOPE.get(removal.scope, removal.scope)
        return {
            "kind": "command",
            "source_path": removal.source_path,
            "scope": removal.scope,
            "change": f"Remove {scope}-scope Claude Code MCP server {removal.server!r}; source config "
            f"{removal.source_path} ({removal.scope} scope).",
            "argv": ["claude", "mcp", "remove", "--scope", scope, removal.server],
        }
