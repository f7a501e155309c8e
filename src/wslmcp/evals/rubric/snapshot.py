"""Snapshot discipline, per investigation: fresh start, preserved, no mixing, no mixed selectors."""

from __future__ import annotations

from wslmcp.evals.rubric.base import Checks, Outcome, first_fail, ok, skip
from wslmcp.evals.session import Session
from wslmcp.evals.trace import Call

CHECKS = Checks()


def _latest_fresh(s: Session, call: Call) -> bool:
    args = s.args(call)
    return "snapshot_id" not in args and args.get("max_age_ms") == 0


def _observe(s: Session, index: int) -> list[Call]:
    return [c for c in s.calls_in(s.investigations[index]) if s.is_observe(c)]


def _restarts(s: Session, calls: list[Call]) -> list[int]:
    """Positions (in ``calls``) of latest fresh reads directly after a snapshot_unavailable answer."""
    return [
        i
        for i in range(1, len(calls))
        if _latest_fresh(s, calls[i]) and s.result(calls[i - 1]).code == "snapshot_unavailable"
    ]


def _any_observe(s: Session) -> bool:
    return any(s.is_observe(c) for c in s.trace.calls)


@CHECKS.add(
    "snapshot.fresh_start",
    applies="intent.fresh (default true) and the case's investigation has observe calls",
    rule="fails when the first observe call is not a latest read with max_age_ms 0 (no snapshot_id)",
    intent=True,
)
def fresh_start(s: Session) -> Outcome:
    if not _any_observe(s):
        return skip("no observe calls")
    if not s.case.intent.fresh:
        return skip("the case's question does not need a fresh observation")
    calls = _observe(s, s.target_index)
    if not calls:
        return skip("the case's investigation has no observe calls")
    first = calls[0]
    if _latest_fresh(s, first):
        return ok(f"call {first.n} is a latest read with max_age_ms 0")
    return first_fail(
        [(first.n, f"call {first.n} {first.tool} {s.args(first)} is not a latest read with max_age_ms 0")], ""
    )


@CHECKS.add(
    "snapshot.preserved",
    applies="observe calls (per investigation; a declared fresh: false carries the earlier snapshot in)",
    rule="fails when, after the first successful result carrying a snapshot, an observe call has no "
    "snapshot_id and is not a restart (a latest max_age_ms 0 read directly after snapshot_unavailable); "
    "calls sent in parallel with that result's call are not after it",
)
def preserved(s: Session) -> Outcome:
    if not _any_observe(s):
        return skip("no observe calls")
    found: list[tuple[int, str]] = []
    carried = False
    for index in range(len(s.investigations)):
        calls = _observe(s, index)
        restarts = set(_restarts(s, calls))
        # a follow-up question whose case says it is not fresh keeps the earlier snapshot
        # the group whose results first carried a snapshot: calls sent with it (parallel) never saw it
        have: int | None = None
        if carried and index == s.target_index and s.case.fresh_declared and not s.case.intent.fresh:
            have = -1
        for i, call in enumerate(calls):
            if have not in (None, call.group) and "snapshot_id" not in s.args(call) and i not in restarts:
                found.append((call.n, f"call {call.n} {call.tool} drops the snapshot_id (silent refresh)"))
            if have is None and s.ok(call) and s.snapshot_of(call) is not None:
                have = call.group
        carried = carried or any(s.ok(c) and s.snapshot_of(c) for c in calls)
    return first_fail(found, "every follow-up passes the investigation's snapshot_id")


@CHECKS.add(
    "snapshot.no_mixing",
    applies="observe calls (per investigation)",
    rule="fails when, ignoring observe calls before the last restart, successful results carry more "
    "than one distinct snapshot_id",
)
def no_mixing(s: Session) -> Outcome:
    if not _any_observe(s):
        return skip("no observe calls")
    found: list[tuple[object, str]] = []
    for index in range(len(s.investigations)):
        calls = _observe(s, index)
        restarts = _restarts(s, calls)
        tail = calls[restarts[-1] :] if restarts else calls
        seen: dict[str, int] = {}
        for call in tail:
            sid = s.snapshot_of(call) if s.ok(call) else None
            if sid is not None:
                seen.setdefault(sid, call.n)
        if len(seen) > 1:
            ns = sorted(seen.values())
            found.append((ns, f"calls {', '.join(map(str, ns))} answer from {len(seen)} different snapshots"))
    return first_fail(found, "one snapshot per investigation")


@CHECKS.add(
    "snapshot.no_mixed_selectors",
    applies="observe calls",
    rule="fails when an observe call passes both snapshot_id and max_age_ms",
)
def no_mixed_selectors(s: Session) -> Outcome:
    calls = [c for c in s.trace.calls if s.is_observe(c)]
    if not calls:
        return skip("no observe calls")
    found = [
        (c.n, f"call {c.n} {c.tool} passes both snapshot_id and max_age_ms")
        for c in calls
        if "snapshot_id" in s.args(c) and "max_age_ms" in s.args(c)
    ]
    return first_fail(found, "no call combines snapshot_id and max_age_ms")
