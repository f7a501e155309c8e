"""Attributing Claude Code tool names (``mcp__<server>__<tool>``) to a server."""

from __future__ import annotations

from collections.abc import Sequence

PREFIX = "mcp__"


def longest_first(configured: Sequence[str]) -> list[str]:
    return sorted(configured, key=len, reverse=True)


def split_mcp_name(name: str, configured_longest_first: Sequence[str]) -> tuple[str, str] | None:
    """(server, tool) or None. Configured names win, longest first; else split at the first ``__``."""
    if not name.startswith(PREFIX):
        return None
    for server in configured_longest_first:
        head = f"{PREFIX}{server}__"
        if name.startswith(head):
            return server, name[len(head) :]
    server, sep, tool = name[len(PREFIX) :].partition("__")
    if not sep or not server or not tool:
        return None
    return server, tool
