"""The ``mcp-top/v3`` JSON document, plus our own additions under the one extra key "wslmcp"."""

from __future__ import annotations

import json
from typing import Any

from wslmcp.profile.engine import CliReport, Report

SCHEMA = "mcp-top/v3"


def document(report: Report, *, include_prune: bool) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "schema": SCHEMA,
        "generated_note": report.generated_note,
        "clis": [_cli(c, include_prune) for c in report.clis],
    }
    if report.note is not None:
        doc["note"] = report.note
    if report.wslmcp:
        doc["wslmcp"] = report.wslmcp
    return doc


def _cli(report: CliReport, include_prune: bool) -> dict[str, Any]:
    window = report.window
    entry: dict[str, Any] = {
        "cli": report.cli,
        "window": None
        if window is None
        else {
            "sessions": window.sessions,
            "days": window.days,
            "sessions_considered": window.sessions_considered,
        },
        "coverage": report.coverage.as_json(),
        "servers": [row.as_json() for row in report.rows],
    }
    if include_prune:
        entry["suggested_removals"] = [r.as_json() for r in report.removals]
    return entry


def dumps(doc: Any) -> str:
    """One line, sorted keys, ASCII-only: the byte layout mcp-top readers see."""
    return json.dumps(doc, sort_keys=True)
