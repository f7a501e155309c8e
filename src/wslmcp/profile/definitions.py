"""A server's definition cost: the advertised maximum and the upfront floor, in estimated tokens.

advertised max = instructions + every kept tool's whole definition.
upfront floor  = instructions + for each kept tool, its whole definition when it loads upfront (the
                 server's regime is upfront, or the tool carries ``_meta["anthropic/alwaysLoad"]``),
                 else just its client-visible name.
A tool's name is the one the client shows (Claude Code: ``mcp__<server>__<tool>``) and
descriptions and instructions are cut at the client's text limit (Claude Code: 2 KB of UTF-8)
first; both come from the client's backend. Each component is rounded up on its own, then summed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from wslmcp.profile.clients import backend
from wslmcp.profile.model import QueryResult
from wslmcp.profile.tokens import (
    Tokens,
    estimate_definition,
    estimate_text,
    total,
    truncate_utf8,
)


def token_range(
    result: QueryResult, server: str, cli: str, regime: str
) -> tuple[Tokens | None, Tokens | None]:
    """(advertised_max, upfront_floor), both None unless the query succeeded."""
    if not result.ok:
        return None, None
    client = backend(cli)
    limit = client.text_limit
    advertised: list[Tokens] = []
    floor: list[Tokens] = []
    if isinstance(result.instructions, str) and result.instructions:
        instructions = estimate_text(truncate_utf8(result.instructions, limit))
        advertised.append(instructions)
        floor.append(instructions)
    for tool in result.tools:
        raw_name = tool.get("name")
        visible = client.visible_name(server, raw_name) if isinstance(raw_name, str) else None
        whole = estimate_definition(_as_client_sees(tool, visible, limit))
        advertised.append(whole)
        if regime == "upfront" or always_loaded(tool):
            floor.append(whole)
        elif visible is not None:
            floor.append(estimate_text(visible))
    high, low = total(advertised), total(floor)
    if low.value > high.value:  # impossible by construction; a broken invariant must not print
        raise AssertionError("upfront floor exceeds advertised maximum")
    return high, low


def _as_client_sees(tool: Mapping[str, Any], visible: str | None, limit: int | None) -> dict[str, Any]:
    definition = dict(tool)
    if visible is not None:
        definition["name"] = visible
    description = definition.get("description")
    if isinstance(description, str):
        definition["description"] = truncate_utf8(description, limit)
    return definition


def always_loaded(tool: Mapping[str, Any]) -> bool:
    meta = tool.get("_meta")
    return isinstance(meta, dict) and meta.get("anthropic/alwaysLoad") is True
