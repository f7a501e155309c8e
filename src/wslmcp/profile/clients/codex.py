"""Codex: ``~/.codex/config.toml``, JSONL rollouts under ``~/.codex/sessions``, a loading regime
that local files cannot show, raw tool names, whole descriptions, and TOML edit guidance."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from wslmcp.boundaries.client_files import ClientFiles
from wslmcp.profile import attribution, regimes
from wslmcp.profile.clients.backend import Loading, Scan, guidance, where
from wslmcp.profile.configs import codex as config
from wslmcp.profile.model import Cli, CliDiscovery

if TYPE_CHECKING:
    from wslmcp.profile.prune import Removal
    from wslmcp.profile.transcripts.events import Reading

_TOML_BARE = re.compile(r"[A-Za-z0-9_-]+")
REGIME_EVIDENCE = (
    "codex: upstream Codex has a tool-search/deferred-exposure mechanism (openai/codex "
    "mcp_tool_exposure); whether it is active for this server is not observable from local config "
    "files, so effective exposure is unknown"
)


class Codex:
    cli: Cli = config.CLI
    text_limit: int | None = None
    usage_note: str | None = None
    wire: str = "openai"

    def detect(self, files: ClientFiles, home: str, project: str) -> bool:
        return config.detected(files, home, project)

    def discover(self, files: ClientFiles, home: str, project: str) -> CliDiscovery:
        return config.discover_codex(files, home, project)

    def scan(self, files: ClientFiles, home: str, configured: Sequence[str]) -> Scan | None:
        from wslmcp.profile.transcripts import codex as transcripts  # (discovery does not read them)

        result = Scan()
        for path in transcripts.find(files, home):
            result.transcripts.append(transcripts.parse(files, path))
            result.keys.append(transcripts.session_key(path))
        return result

    def read(
        self, records: Iterable[dict[str, Any]], configured: Sequence[str], *, messages: bool = False
    ) -> Reading:
        from wslmcp.profile.transcripts import codex as transcripts

        return transcripts.CodexReading(records, configured, messages=messages)

    def project_key(self, project: str, cwd: str) -> str | None:
        return attribution.codex_project_key(project, cwd)

    def loading(self, files: ClientFiles | None, home: str, project: str, managed: str) -> Loading:
        fixed = regimes.fixed_regime(REGIME_EVIDENCE)
        return Loading(lambda server: fixed)

    def visible_name(self, server: str, tool: str) -> str:
        return tool

    def recipe(self, removal: Removal) -> dict[str, Any]:
        name = removal.server
        key = name if _TOML_BARE.fullmatch(name) else json.dumps(name, ensure_ascii=True)
        return guidance(
            removal,
            f"Edit {where(removal)}: set enabled = false under [mcp_servers.{key}]. For tool-level "
            "pruning, add the unused tool name to disabled_tools in that same table.",
        )
