"""Replay of a trace's MCP calls against ``wslmcp observe|shell --replay SCENARIO``, with ID binding.

One session per server alias (through the ``McpSessions`` boundary), ``tools/list`` first, then the
calls in recorded order, one at a time; builtin calls, ``client_error`` calls (the client answered
itself) and calls on an alias of unknown kind are not sent. Every ID argument is bound by role
(``evals.bindings``). A ``replay miss:`` answer marks the call unreplayable: it is neither compared
nor registered. Oracle queries (read-only pinned ``list_resources``) run on the same sessions after
the trace's calls, so they never change what the agent's calls saw.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from wslmcp.boundaries.mcp_session import McpSession, McpSessions, ReplayTarget, SessionSpec, ToolAnswer
from wslmcp.boundaries.replay_miss import PREFIX as REPLAY_MISS_PREFIX
from wslmcp.evals.bindings import HandleTable, bind, handles
from wslmcp.evals.cases import Case
from wslmcp.evals.rubric.drift import compare
from wslmcp.evals.session import Session
from wslmcp.evals.trace import Call, Result

#: Before each call is sent (its bound arguments given): wait as the session did, and say why it is
#: not to be sent at all (None: send it). What ``scenario record --from-session`` paces a replay with.
Pace = Callable[[Call, Any], Awaitable[str | None]]


@dataclass
class ReplayOutcome:
    tools: dict[str, set[str]] = field(default_factory=dict)
    replayed: dict[int, Result] = field(default_factory=dict)
    sent: dict[int, Any] = field(default_factory=dict)
    bindings: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    unreplayable: dict[int, str] = field(default_factory=dict)
    skipped: dict[int, str] = field(default_factory=dict)  # not sent, and why (``Pace``)
    drift: list[dict[str, Any]] = field(default_factory=list)
    oracle_top: list[str] | None = None


def to_result(answer: ToolAnswer) -> Result:
    return Result(answer.status, list(answer.content), answer.structured, answer.error)


def _spec(kind: str, target: ReplayTarget, log: bool) -> SessionSpec:
    return SessionSpec(kind, target.root, target.observe_args if kind == "observe" else (), log)


async def replay(
    sessions: McpSessions,
    session: Session,
    target: ReplayTarget,
    case: Case | None,
    *,
    log: bool = False,
    pace: Pace | None = None,
) -> ReplayOutcome:
    """Replay ``session``'s calls; ``log``: the servers' own logs go to this process's stderr.

    Against a scenario recorded from this very session (``target.session``), a call it did not
    record is unreplayable without being sent (the recording says why), and a call's drift is
    measured against what it answered when recorded: the session's own answers were this host's
    at another moment; so the top resource is the one the session's own listing shows, not an oracle's."""
    out = ReplayOutcome()
    aliases = sorted(
        {c.server for c in session.trace.calls if c.server is not None and c.server in session.kinds}
    )
    async with contextlib.AsyncExitStack() as stack:
        live: dict[str, McpSession] = {}
        for alias in aliases:
            live[alias] = await stack.enter_async_context(
                sessions.open(_spec(session.kinds[alias], target, log))
            )
            out.tools[alias] = set(await live[alias].list_tools())
        await _calls(session, live, out, target, pace)
        own = any(target.recorded(c.n, c.tool, c.arguments) for c in session.trace.calls)
        if case is not None and case.names_top is not None and not own:  # its own listing is the truth
            out.oracle_top = await _oracle(session, live, out, case.names_top)
    return out


async def _calls(
    session: Session,
    live: Mapping[str, McpSession],
    out: ReplayOutcome,
    target: ReplayTarget,
    pace: Pace | None,
) -> None:
    recorded, replayed = HandleTable(), HandleTable()
    pairs: list[tuple[int, Result, Result]] = []
    divergent: list[dict[str, Any]] = []
    for call in session.trace.calls:
        alias = call.server
        if alias is None or alias not in live or call.result.status == "client_error":
            continue
        then = target.recorded(call.n, call.tool, call.arguments)
        if then is not None and then.skipped is not None:
            out.unreplayable[call.n] = (
                f"{REPLAY_MISS_PREFIX} the scenario's recording did not send it ({then.skipped})"
            )
            continue
        kind = session.kinds[alias]
        arguments, reports = bind(alias, kind, call.n, call.arguments, recorded=recorded, replayed=replayed)
        if pace is not None and (why := await pace(call, arguments)) is not None:
            out.skipped[call.n] = why
            continue
        out.sent[call.n], out.bindings[call.n] = arguments, reports
        answer = await live[alias].call(call.tool, arguments if isinstance(arguments, dict) else {})
        if answer.replay_miss:
            out.unreplayable[call.n] = str((answer.error or {}).get("message", "replay miss"))
            continue
        result = to_result(answer)
        out.replayed[call.n] = result
        mine = call.result if call.result.status != "missing" else result
        recorded.register(alias, call.n, handles(kind, call.tool, mine.structured, mine.text))
        replayed.register(alias, call.n, handles(kind, call.tool, result.structured, result.text))
        baseline = to_result(then.answer) if then is not None and then.answer is not None else call.result
        if any(r["state"] == "unresolved" for r in reports):
            divergent.append(
                {"call": call.n, "kind": "unresolved", "recorded": "bound ID", "replayed": "missing"}
            )
        elif baseline.status != "missing":
            pairs.append((call.n, baseline, result))
    out.drift = sorted(compare(pairs) + divergent, key=lambda d: int(d["call"]))


async def _oracle(
    session: Session, live: Mapping[str, McpSession], out: ReplayOutcome, spec: Mapping[str, Any]
) -> list[str] | None:
    """The top names of list_resources pinned to the replayed counterpart of the case investigation's
    last successful observe snapshot, sorted the case's way (desc), limit 1."""
    calls: Sequence[Call] = [
        c for c in session.calls_in(session.case_events) if session.is_observe(c) and c.n in out.replayed
    ]
    for call in reversed(calls):
        if not session.ok(call) or session.snapshot_of(call) is None:
            continue
        replayed = out.replayed[call.n].structured or {}
        sid = (replayed.get("snapshot") or {}).get("snapshot_id")
        if not isinstance(sid, str) or call.server not in live:
            continue
        args: dict[str, Any] = {
            "snapshot_id": sid,
            "sort_by": spec.get("sort_by", "cpu"),
            "sort_order": "desc",
            "limit": 1,
        }
        if "environment" in spec:
            args["environment"] = spec["environment"]
        answer = await live[str(call.server)].call("list_resources", args)
        data = (answer.structured or {}).get("data") if answer.status == "ok" else None
        if isinstance(data, list):
            return [str(i.get("usage", {}).get("name")) for i in data if isinstance(i, dict)]
        return None
    return None
