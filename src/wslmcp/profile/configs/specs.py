"""Parsing one config file's server table into candidate servers (mcp-top §3.1).

Shared by Claude Code (JSON), Cursor (JSON) and Codex (TOML). Every oddity becomes a warning in
mcp-top's wording; nothing raises. Warnings name servers and keys, never values.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from wslmcp.profile.model import Cli, ConfiguredServer, Scope, Transport

_TRANSPORTS = ("stdio", "http", "sse")


@dataclass
class ParsedTable:
    servers: list[ConfiguredServer] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def _tool_filter(
    spec: Mapping[str, Any], key: str, where: str, warnings: list[str]
) -> tuple[str, ...] | None:
    value = spec.get(key)
    if value is None:
        return None
    if isinstance(value, list):
        return tuple(v for v in value if isinstance(v, str))
    warnings.append(f"{where} {key} is not a list -- ignored (no tool filter applied)")
    return None


def _transport(spec: Mapping[str, Any]) -> Transport:
    kind = spec.get("type")
    if isinstance(kind, str):
        return cast(Transport, kind) if kind in _TRANSPORTS else "unknown"
    if isinstance(spec.get("command"), str):
        return "stdio"
    if isinstance(spec.get("url"), str):
        return "http"
    return "unknown"


def _headers(raw: object) -> dict[str, str]:
    """String-to-string entries only; anything else is dropped silently (mcp-top reads no headers,
    so a warning would change its output)."""
    if not isinstance(raw, Mapping):
        return {}
    return {k: v for k, v in raw.items() if isinstance(k, str) and isinstance(v, str)}


def parse_spec(
    cli: Cli,
    name: str,
    spec: Mapping[str, Any],
    scope: Scope,
    path: str,
    *,
    warnings: list[str],
    reserved: frozenset[str] = frozenset(),
    headers_key: str = "headers",
) -> ConfiguredServer:
    """One server entry; appends its warnings in mcp-top's order. ``reserved``: the names the
    client skips at load time (marked, never launched); ``headers_key``: where its HTTP headers are."""
    where = f"{path}: server {name!r}"

    enabled = True
    if "enabled" in spec:
        if isinstance(spec["enabled"], bool):
            enabled = spec["enabled"]
        else:
            enabled = False
            warnings.append(f"{where} enabled is not a boolean -- treating server as disabled")

    always_load: bool | None = None
    if "alwaysLoad" in spec:
        if isinstance(spec["alwaysLoad"], bool):
            always_load = spec["alwaysLoad"]
        else:
            warnings.append(f"{where} alwaysLoad is not a boolean -- ignored")

    raw_args = spec.get("args")
    args: tuple[str, ...] = ()
    if isinstance(raw_args, list):
        args = tuple(a for a in raw_args if isinstance(a, str))
    elif raw_args is not None:
        warnings.append(f"{where} args is not a list -- ignored")

    raw_env = spec.get("env")
    env: dict[str, str] = {}
    if isinstance(raw_env, Mapping):
        for key, value in raw_env.items():
            if isinstance(key, str) and isinstance(value, str):
                env[key] = value
            else:
                warnings.append(f"{where} env key {key!r} has non-string value -- dropped")
    elif raw_env is not None:
        warnings.append(f"{where} env is not an object -- ignored")

    enabled_tools = _tool_filter(spec, "enabled_tools", where, warnings)
    disabled_tools = _tool_filter(spec, "disabled_tools", where, warnings)

    startup: float | None = None
    value = spec.get("startup_timeout_sec")
    if value is not None:  # null is absent, unlike enabled/alwaysLoad where null is "not a boolean"
        if (
            isinstance(value, int | float)
            and not isinstance(value, bool)
            and math.isfinite(value)
            and value > 0
        ):
            startup = float(value)
        else:
            warnings.append(f"{where} startup_timeout_sec is not a positive finite number -- ignored")

    command = spec.get("command") if isinstance(spec.get("command"), str) else None
    url = spec.get("url") if isinstance(spec.get("url"), str) else None
    headers = _headers(spec.get(headers_key))
    cwd = spec.get("cwd") if isinstance(spec.get("cwd"), str) else None
    return ConfiguredServer(
        cli=cli,
        name=name,
        scope=scope,
        source_path=path,
        transport=_transport(spec),
        enabled=enabled,
        always_load=always_load,
        enabled_tools=enabled_tools,
        disabled_tools=disabled_tools,
        cwd=cwd,
        startup_timeout_s=startup,
        reserved=name in reserved,
        command=command,
        args=args,
        env=env,
        url=url,
        headers=headers,
    )


def parse_table(
    cli: Cli,
    table: object,
    scope: Scope,
    path: str,
    table_key: str = "mcpServers",
    *,
    reserved: frozenset[str] = frozenset(),
    headers_key: str = "headers",
) -> ParsedTable:
    """A whole ``mcpServers`` / ``mcp_servers`` mapping; absent (None) is silently empty."""
    out = ParsedTable()
    if table is None:
        return out
    if not isinstance(table, Mapping):
        out.warnings.append(f"{path}: {table_key} is not an object")
        return out
    for name, spec in table.items():
        if not isinstance(spec, Mapping):
            out.warnings.append(f"{path}: server {name!r} spec is not an object")
            continue
        out.servers.append(
            parse_spec(
                cli,
                str(name),
                spec,
                scope,
                path,
                warnings=out.warnings,
                reserved=reserved,
                headers_key=headers_key,
            )
        )
    return out
