"""Merging servers from several config layers by scope precedence (mcp-top §3.1)."""

from __future__ import annotations

from dataclasses import replace

from wslmcp.profile.configs.specs import ParsedTable
from wslmcp.profile.model import SCOPE_PRECEDENCE, ConfiguredServer, ShadowedEntry


def _as_shadow(server: ConfiguredServer) -> ShadowedEntry:
    return ShadowedEntry(scope=server.scope, source_path=server.source_path, enabled=server.enabled)


def _sorted_chain(chain: list[ShadowedEntry]) -> tuple[ShadowedEntry, ...]:
    return tuple(sorted(chain, key=lambda s: SCOPE_PRECEDENCE[s.scope], reverse=True))


class ServerMerger:
    """Name -> winning server, in first-seen order, with mcp-top's merge warnings.

    Warnings go to ``warnings`` (a discovery's own list, so they keep their order among the rest).
    """

    def __init__(self, warnings: list[str] | None = None) -> None:
        self._servers: dict[str, ConfiguredServer] = {}
        self.warnings: list[str] = [] if warnings is None else warnings

    def take(self, table: ParsedTable) -> None:
        """One config layer: its parse warnings, then its servers merged in."""
        self.warnings.extend(table.warnings)
        for server in table.servers:
            self.add(server)

    def add(self, incoming: ConfiguredServer) -> None:
        name = incoming.name
        current = self._servers.get(name)
        if current is None:
            self._servers[name] = incoming
        elif incoming.precedence > current.precedence:
            self.warnings.append(f"server {name!r} from {incoming.scope} overrides {current.scope}")
            chain = [_as_shadow(current), *current.shadowed]
            self._servers[name] = replace(incoming, shadowed=_sorted_chain(chain))
        elif incoming.precedence == current.precedence:
            self.warnings.append(
                f"server {name!r} defined more than once at {incoming.scope} scope"
                " -- keeping the later definition"
            )
            self._servers[name] = replace(incoming, shadowed=current.shadowed)
        else:
            chain = [*current.shadowed, _as_shadow(incoming)]
            self._servers[name] = replace(current, shadowed=_sorted_chain(chain))

    def servers(self) -> tuple[ConfiguredServer, ...]:
        return tuple(self._servers.values())
