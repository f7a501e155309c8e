"""Error recovery: restart after snapshot_unavailable; no identical retry after an error."""

from __future__ import annotations

from wslmcp.evals.rubric.base import Checks, Outcome, first_fail, skip
from wslmcp.evals.session import Session
from wslmcp.evals.trace import Call

CHECKS = Checks()


def _next_on_server(s: Session, call: Call) -> Call | None:
    """The next call to that server sent after the answer (a call of the same parallel group is not)."""
    return next(
        (c for c in s.trace.calls if c.n > call.n and c.server == call.server and c.group != call.group),
        None,
    )


@CHECKS.add(
    "errors.restart_after_unavailable",
    applies="after a snapshot_unavailable answer",
    rule="fails when the next call to that server (sent after the answer, not beside it in a parallel group) is not a latest read with max_age_ms 0",
)
def restart_after_unavailable(s: Session) -> Outcome:
    hits = [c for c in s.trace.calls if s.is_observe(c) and s.result(c).code == "snapshot_unavailable"]
    if not hits:
        return skip("no snapshot_unavailable answer")
    found = []
    for call in hits:
        nxt = _next_on_server(s, call)
        if nxt is None:
            continue
        args = s.args(nxt)
        if "snapshot_id" in args or args.get("max_age_ms") != 0:
            found.append(
                (
                    nxt.n,
                    f"call {nxt.n} follows snapshot_unavailable (call {call.n}) without a max_age_ms 0 restart",
                )
            )
    return first_fail(found, "every snapshot_unavailable is followed by a fresh restart")


@CHECKS.add(
    "errors.no_identical_retry",
    applies="after a tool_error, jsonrpc_error or client_error answer (the client's own <tool_use_error>)",
    rule="fails when the next call to that server (sent after the answer, not beside it in a parallel group) has the same tool and equal arguments",
)
def no_identical_retry(s: Session) -> Outcome:
    errors = [
        c
        for c in s.trace.calls
        if c.server is not None and s.result(c).status in ("tool_error", "jsonrpc_error", "client_error")
    ]
    if not errors:
        return skip("no tool, JSON-RPC or client error answer")
    found = []
    for call in errors:
        nxt = _next_on_server(s, call)
        if nxt is not None and nxt.tool == call.tool and nxt.arguments == call.arguments:
            found.append(
                (nxt.n, f"call {nxt.n} repeats call {call.n} ({call.tool}) unchanged after its error")
            )
    return first_fail(found, "no failed call was repeated unchanged")
