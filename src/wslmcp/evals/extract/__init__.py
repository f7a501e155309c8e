"""Reading a trace file of any supported format, detected from content (never from the file name).

A ``wslmcp-trace`` header on line 1 → the neutral format; a ``session_meta`` record → a Codex
rollout; anything else is read as a Claude Code transcript (which must carry a 2.x ``version``).
Lines go through ``profile.transcripts.jsonl.records`` and the ClientFiles boundary, and a client's
transcript through that client's one reader (its backend's ``read``, the reader the profiler's scan
uses too): this module is the eval's consumer of its events. What differs per client here is only
how a recorded result and recorded arguments become the trace's (``claude``, ``codex``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from wslmcp.boundaries.client_files import ClientFiles
from wslmcp.evals import trace as neutral
from wslmcp.evals.extract import claude, codex
from wslmcp.evals.trace import Call, Message, Result, Trace, TraceError
from wslmcp.profile.clients import backend
from wslmcp.profile.transcripts import events
from wslmcp.profile.transcripts.events import Reading
from wslmcp.profile.transcripts.jsonl import LineStats, records

#: How each client's recorded results and arguments become the trace's, and what its files are called.
_CLIENTS: dict[str, tuple[str, Callable[[object, bool], Result], Callable[[object], Any]]] = {
    "claude-code": ("Claude Code transcript", claude.result_of, claude.arguments_of),
    "codex": ("Codex rollout", codex.output_of, codex.arguments_of),
}


#: What each format is called when a trace is described.
FORMATS = {"claude-code": "Claude Code", "codex": "Codex", "wslmcp-trace": "wslmcp-trace/1"}


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
    reading = backend(fmt).read(rows, servers, messages=True)
    assert reading is not None  # both formats detected are clients with transcripts
    got = trace_of(reading, fmt, path)
    reason = reading.skip_reason(stats)
    if reason is not None:
        raise TraceError(f"{path}: not a readable {_CLIENTS[fmt][0]}: {reason}")
    return got


def trace_of(reading: Reading, fmt: str, path: str) -> Trace:
    """The conversation a client's events tell: prompts, answers and calls with their results,
    numbered in order, parallel calls sharing a group. A subagent's calls are no part of it."""
    _, result_of, arguments_of = _CLIENTS[fmt]
    trace = Trace(source={"format": fmt, "path": path})
    by_id: dict[str, Call] = {}
    groups: dict[object, int] = {}
    n = 0
    for event in reading:
        if isinstance(event, events.Message):
            trace.events.append(Message(event.role, event.text, neutral.time_of(event.at)))
        elif isinstance(event, events.Call) and not event.sidechain:
            group = groups.setdefault(event.group, len(groups) + 1)
            n += 1
            call = Call(
                n, event.id, event.server, event.tool or event.raw, arguments_of(event.arguments), group
            )
            call.at = neutral.time_of(event.at)
            trace.events.append(call)
            if event.id is not None:
                by_id[event.id] = call
        elif isinstance(event, events.Result) and not event.sidechain and event.id in by_id:
            by_id[event.id].result = result_of(event.content, event.is_error)
    trace.source.update(reading.source)
    return trace
