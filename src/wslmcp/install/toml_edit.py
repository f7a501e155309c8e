"""Editing Codex's ``[mcp_servers.<name>]`` tables in a TOML file, everything else kept as it was.

tomlkit (a style-preserving TOML library: comments, key order, spacing and quoting survive a parse
and a dump) holds the document; only the tables of our entries are added, changed or removed. An
existing entry is changed key by key (``command``, ``args``, ``env``), so the keys a user added to
it (``startup_timeout_sec``, ``enabled_tools``...) and their comments stay.

Pure: text in, text out. ``Malformed`` (the JSON editor's) says why a file cannot be edited.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import tomlkit
from tomlkit.exceptions import TOMLKitError
from tomlkit.items import InlineTable, Table

from wslmcp.install.json_edit import Malformed


def check(text: str) -> dict[str, Any]:
    """The document as plain data; ``Malformed`` when ``text`` is not TOML."""
    try:
        return tomlkit.parse(text).unwrap()
    except (TOMLKitError, ValueError) as exc:
        raise Malformed(f"not valid TOML: {exc}") from None


def _table(entry: Mapping[str, Any]) -> Table:
    table = tomlkit.table()
    for key, value in entry.items():
        table[key] = _inline(value) if isinstance(value, Mapping) else value
    table.add(tomlkit.nl())
    return table


def _inline(values: Mapping[str, Any]) -> InlineTable:
    inline = tomlkit.inline_table()
    inline.update(values)
    return inline


def edit(text: str, table: str, changes: Mapping[str, Mapping[str, Any] | None]) -> str:
    """``text`` with each ``changes`` entry set (a table) or removed (None) under ``[table]``."""
    check(text)
    doc = tomlkit.parse(text)
    servers = doc.get(table)
    if servers is not None and not isinstance(servers, (Table, InlineTable)):
        raise Malformed(f"its {table!r} is not a table")
    for name, entry in changes.items():
        if servers is None:
            if entry is None:
                continue
            servers = tomlkit.table(is_super_table=True)
            doc[table] = servers
        if entry is None:
            if name in servers:
                del servers[name]
            continue
        current = servers.get(name)
        if isinstance(current, (Table, InlineTable)):
            for key in [k for k in current if k in ("command", "args", "env") and k not in entry]:
                del current[key]
            for key, value in entry.items():
                current[key] = _inline(value) if isinstance(value, Mapping) else value
        else:
            servers[name] = _inline(entry) if isinstance(servers, InlineTable) else _table(entry)
    edited = tomlkit.dumps(doc)
    if edited.endswith("\n\n") and not text.endswith("\n\n"):  # our table's closing blank line, last
        edited = edited.rstrip("\n") + "\n"
    return edited
