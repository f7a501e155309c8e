"""``mcp-top-snapshot/v1``: a redacted aggregate of a report, safe to commit.

Built from an allowlist: no paths, errors, evidence, recipes, warnings, config values or result
content. Server and called-tool names stay unless ``redact_identifiers`` replaces them with
``srv_``/``tool_`` + the first 12 hex digits of their SHA-256 (unsalted, deterministic).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from wslmcp.profile.engine import CliReport, Report
from wslmcp.profile.verdicts import Row

SCHEMA = "mcp-top-snapshot/v1"


def pseudonym(name: str, prefix: str) -> str:
    import hashlib

    return f"{prefix}_{hashlib.sha256(name.encode('utf-8')).hexdigest()[:12]}"


def build(
    report: Report, generated_at: datetime, *, sessions: int, days: int, redact: bool
) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "generated_at": generated_at.isoformat(),
        "identifiers_redacted": redact,
        "clis": [_cli(c, sessions, days, redact) for c in sorted(report.clis, key=lambda c: c.cli)],
    }


def _cli(report: CliReport, sessions: int, days: int, redact: bool) -> dict[str, Any]:
    window = report.window
    cov = report.coverage
    if window is None:
        win = {
            "sessions": sessions,
            "days": days,
            "sessions_considered": None,
            "project_filter_active": cov.project_filter_active,
        }
    else:
        win = {
            "sessions": window.sessions,
            "days": window.days,
            "sessions_considered": window.sessions_considered,
            "project_filter_active": window.project_filter is not None,
        }
    recorded = None
    if cov.recorded_results is not None:
        recorded = {
            "servers_queried_ok": cov.servers_queried_ok,
            "servers_unsupported": cov.servers_unsupported,
            **cov.recorded_results.as_json(),
        }
    return {
        "cli": report.cli,
        "window": win,
        "recorded_results": recorded,
        "servers": [_server(row, redact) for row in sorted(report.rows, key=lambda r: r.server)],
    }


def _server(row: Row, redact: bool) -> dict[str, Any]:
    tools: dict[str, int] = {}
    for tool, count in sorted(row.called_tools.items()):
        name = pseudonym(tool, "tool") if redact else tool
        tools[name] = tools.get(name, 0) + count
    fp = row.recorded_result_footprint
    return {
        "server": pseudonym(row.server, "srv") if redact else row.server,
        "scope": row.scope,
        "transport": row.transport,
        "loading_regime": row.loading_regime,
        "advertised_max_tokens": None
        if row.advertised_max_tokens is None
        else row.advertised_max_tokens.as_json(),
        "upfront_floor_tokens": None
        if row.upfront_floor_tokens is None
        else row.upfront_floor_tokens.as_json(),
        "tool_count": row.tool_count,
        "calls": row.calls,
        "usage_status": row.usage_status,
        "verdict": row.verdict,
        "called_tools": dict(sorted(tools.items())),
        "recorded_result_footprint": None if fp is None else fp.as_json(),
    }
