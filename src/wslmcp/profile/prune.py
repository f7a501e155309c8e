"""``--prune``: which ``prune`` rows are clean removals and which need review. Never applied.

A *suggestion* is a prune row whose removal is clean: no enabled lower-precedence definition that
would come back, every config layer parsed, no Codex project-layer caveat, and usage that really
covers the server's scope. Everything else that scored prune is a *candidate* with explicitly
unknown removal impact. The client's backend writes the recipe (only Claude Code suggestions get a
command; the rest get edit guidance).
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from wslmcp.profile.clients import backend
from wslmcp.profile.model import ConfiguredServer
from wslmcp.profile.tokens import Tokens
from wslmcp.profile.usage_windows import UNATTRIBUTED, UsageWindow
from wslmcp.profile.verdicts import Row


@dataclass(frozen=True)
class Reactivation:
    server: str
    scope: str
    source_path: str


@dataclass(frozen=True)
class Removal:
    kind: str  # "suggestion" | "candidate"
    cli: str
    server: str
    scope: str
    source_path: str
    removes_advertised_max_tokens: Tokens
    removes_upfront_floor_tokens: Tokens | None
    reactivates: Reactivation | None
    reasons: tuple[str, ...]

    def recipe(self) -> dict[str, Any]:
        """A command (a clean Claude Code removal) or edit guidance: the client's backend decides."""
        return backend(self.cli).recipe(self)

    def command_line(self) -> str | None:
        recipe = self.recipe()
        if recipe["kind"] != "command":
            return None
        return " ".join(shlex.quote(str(part)) for part in recipe["argv"])

    def as_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "server": self.server,
            "scope": self.scope,
            "source_path": self.source_path,
            "removes_advertised_max_tokens": self.removes_advertised_max_tokens.as_json(),
            "removes_upfront_floor_tokens": None
            if self.removes_upfront_floor_tokens is None
            else self.removes_upfront_floor_tokens.as_json(),
            "reactivates": None
            if self.reactivates is None
            else {
                "server": self.reactivates.server,
                "scope": self.reactivates.scope,
                "source_path": self.reactivates.source_path,
            },
            "reasons": list(self.reasons),
            "recipe": self.recipe(),
        }


def classify(
    cli: str,
    rows: Sequence[Row],
    servers: Mapping[str, ConfiguredServer],
    provenance_incomplete: bool,
    window: UsageWindow | None,
) -> list[Removal]:
    removals = []
    for row in rows:
        if (
            row.verdict != "prune"
            or row.advertised_max_tokens is None
            or row.advertised_max_tokens.value <= 0
        ):
            continue
        config = servers.get(row.server)
        if config is None or config.reserved:
            continue
        reasons, reactivation = _reasons(config, provenance_incomplete, window)
        removals.append(
            Removal(
                kind="candidate" if reasons else "suggestion",
                cli=cli,
                server=row.server,
                scope=config.scope,
                source_path=config.source_path,
                removes_advertised_max_tokens=row.advertised_max_tokens,
                removes_upfront_floor_tokens=row.upfront_floor_tokens,
                reactivates=reactivation,
                reasons=tuple(reasons),
            )
        )
    return removals


def _reasons(
    config: ConfiguredServer, provenance_incomplete: bool, window: UsageWindow | None
) -> tuple[list[str], Reactivation | None]:
    reasons: list[str] = []
    reactivation = None
    if config.shadowed and config.shadowed[0].enabled is not False:
        shadow = config.shadowed[0]
        reactivation = Reactivation(config.name, shadow.scope, shadow.source_path)
        reasons.append(
            f"deleting this reactivates {shadow.scope}-scope '{config.name}' from {shadow.source_path}; "
            "net removal impact is unknown -- it may be lower, unchanged, or higher"
        )
    if provenance_incomplete:
        reasons.append(
            "a config layer for this CLI could not be parsed, so a shadowing or shadowed entry may be "
            "missing; treat removal as unverified"
        )
    if config.resolution_caveat:
        reasons.append(config.resolution_caveat)
    if window is not None and window.project_filter is not None:
        by_project = window.server_calls_by_project.get(config.name, {})
        elsewhere = sum(
            n for key, n in by_project.items() if key not in (window.project_filter, UNATTRIBUTED)
        )
        unattributed = by_project.get(UNATTRIBUTED, 0)
        if config.scope == "user" and elsewhere > 0:
            reasons.append(
                f"server has {elsewhere} call(s) in other project(s); removing the user-scope entry may "
                "affect them, and name-only usage cannot prove they used this entry rather than a local "
                "override -- verify before removing"
            )
        if unattributed > 0:
            reasons.append(
                f"{unattributed} call(s) could not be attributed to a project; verify before removing"
            )
        if window.sessions_unattributed > 0:
            reasons.append(
                f"the recent window has {window.sessions_unattributed} session(s) with no recorded project, "
                "which may belong to this project; cannot confirm this server is unused here -- verify "
                "before removing"
            )
        if window.unattributed_mcp_calls > 0:
            reasons.append(
                f"{window.unattributed_mcp_calls} MCP call(s) in the window could not be attributed to a "
                "server and may be this one; verify before removing"
            )
    elif config.scope != "user":
        reasons.append(
            "usage is counted across all projects (home-wide), not per-project; pass --project-usage to "
            "scope counts to this project before removing"
        )
    return reasons, reactivation
