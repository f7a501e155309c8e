"""Reading a trace file of any supported format, detected from content (never from the file name).

A ``wslmcp-trace`` header on line 1 → the neutral format; a ``session_meta`` record → a Codex
rollout; anything else is read as a Claude Code transcript (which must carry a 2.x ``version``).
Lines go through ``profile.transcripts.jsonl.records`` and the ClientFiles boundary.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from wslmcp.boundaries.client_files import ClientFiles
from wslmcp.evals import trace as neutral
from wslmcp.evals.extract import claude, codex
from wslmcp.evals.trace import Trace, TraceError
from wslmcp.profile.transcripts.jsonl import LineStats, records


def detect(rows: Sequence[dict[str, Any]]) -> str:
    if rows and neutral.is_header(rows[0]):
        return "wslmcp-trace"
    if any(r.get("type") == "session_meta" for r in rows):
        return "codex"
    return "claude-code"


def read(files: ClientFiles, path: str, servers: Sequence[str] = ()) -> Trace:
    """The trace in ``path``; raises TraceError naming the file and the cause."""
    stats = LineStats()
    rows = list(records(files, path, stats))
    if stats.error is not None:
        raise TraceError(f"{path}: {stats.error}")
    if not rows:
        if stats.bad:
            raise TraceError(f"{path}: no JSON records: {stats.bad} of {stats.non_empty} lines unparseable")
        raise TraceError(f"{path}: empty: no JSON records")
    fmt = detect(rows)
    if fmt == "wslmcp-trace":
        if stats.bad:
            raise TraceError(f"{path}: {stats.bad} line(s) are not JSON objects")
        return neutral.load(path, rows)
    if fmt == "codex":
        return codex.extract(path, rows, stats)
    return claude.extract(path, rows, stats, servers)
