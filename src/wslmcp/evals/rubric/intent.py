"""The question's intent (the case's investigation): sort, filters, limit, required calls."""

from __future__ import annotations

from typing import Any

from wslmcp.evals.cases import FILTERS
from wslmcp.evals.rubric.base import Checks, Outcome, fail, ok, skip
from wslmcp.evals.session import Session
from wslmcp.evals.trace import Call

CHECKS = Checks()


def _listings(s: Session) -> list[Call]:
    return [
        c
        for c in s.calls_in(s.case_events)
        if s.is_observe(c) and c.tool == "list_resources" and s.ok(c) and "parent" not in s.args(c)
    ]


def _sort_matching(s: Session) -> list[Call]:
    intent = s.case.intent
    return [
        c
        for c in _listings(s)
        if (s.effective(c)["sort_by"], s.effective(c)["sort_order"]) == (intent.sort_by, intent.sort_order)
    ]


def _show(call: Call, s: Session) -> str:
    return f"call {call.n} list_resources {s.args(call)}"


@CHECKS.add(
    "intent.sort_matches_question",
    applies="intent.sort_by",
    rule="fails when no successful list_resources (without parent) has effective (sort_by, sort_order) = the "
    "intent's (defaults: cpu, desc)",
    intent=True,
)
def sort_matches(s: Session) -> Outcome:
    intent = s.case.intent
    if intent.sort_by is None:
        return skip("the intent names no sort")
    if _sort_matching(s):
        return ok(f"a listing sorts by {intent.sort_by} {intent.sort_order}")
    seen = [_show(c, s) for c in _listings(s)]
    return fail(
        f"no successful list_resources sorts by {intent.sort_by} {intent.sort_order}"
        + (f" (seen: {'; '.join(seen[:3])})" if seen else ""),
        [c.n for c in _listings(s)],
    )


@CHECKS.add(
    "intent.no_unrequested_filter",
    applies="some listing matches the intent's sort",
    rule="fails when every sort-matching listing carries a filter (environment, resource_kind, "
    "name_contains) the question did not ask for, or with another value (asked: the intent's filters, "
    "those its required calls name, and resource_kind container with a docker or wslc listing)",
    intent=True,
)
def no_unrequested_filter(s: Session) -> Outcome:
    matching = _sort_matching(s) if s.case.intent.sort_by else _listings(s)
    if not matching:
        return skip("no listing matches the intent's sort")
    wanted = s.case.requested_filters()

    def extra(call: Call) -> dict[str, Any]:
        args = s.args(call)
        return {k: args[k] for k in FILTERS if k in args and args[k] not in wanted.get(k, set())}

    if all(extra(c) for c in matching):
        return fail(
            "every matching listing filters what the question did not ask: "
            + "; ".join(f"call {c.n} {extra(c)}" for c in matching[:3]),
            [c.n for c in matching],
        )
    return ok("a matching listing carries only the requested filters")


@CHECKS.add(
    "intent.limit_matches",
    applies="intent.sort_by and intent.limit",
    rule="fails when no sort-matching listing has effective limit (default 30) = intent.limit",
    intent=True,
)
def limit_matches(s: Session) -> Outcome:
    intent = s.case.intent
    if intent.sort_by is None or intent.limit is None:
        return skip("the intent names no sort and limit")
    matching = _sort_matching(s)
    if any(s.effective(c)["limit"] == intent.limit for c in matching):
        return ok(f"a matching listing has limit {intent.limit}")
    return fail(
        f"no {intent.sort_by} {intent.sort_order} listing has limit {intent.limit} (seen: "
        + (", ".join(f"call {c.n} limit {s.effective(c)['limit']}" for c in matching) or "none")
        + ")",
        [c.n for c in matching],
    )


@CHECKS.add(
    "intent.filter_matches",
    applies="intent filters",
    rule="fails when no successful list_resources has all the intent's filter values (sort ignored)",
    intent=True,
)
def filter_matches(s: Session) -> Outcome:
    wanted = s.case.intent.filters()
    if not wanted:
        return skip("the intent asks for no filter")
    if any(all(s.args(c).get(k) == v for k, v in wanted.items()) for c in _listings(s)):
        return ok(f"a listing filters {wanted}")
    return fail(f"no successful list_resources filters {wanted}", [c.n for c in _listings(s)])


def _matches(s: Session, call: Call, tool: str, where: dict[str, Any]) -> bool:
    if call.tool != tool or not s.ok(call) or call.server is None:
        return False
    args = (
        s.effective(call)
        if s.is_observe(call) and tool in ("list_resources", "list_children")
        else s.args(call)
    )
    return all(args.get(k) == v for k, v in where.items())


@CHECKS.add(
    "intent.required_calls",
    applies="the case's required_calls",
    rule="fails when an entry has no successful call with that tool and those (effective) argument values",
    intent=True,
)
def required_calls(s: Session) -> Outcome:
    if not s.case.required_calls:
        return skip("the case requires no calls")
    calls = s.calls_in(s.case_events)
    missing = [
        f"{tool} {dict(where) or ''}".strip()
        for tool, where in s.case.required_calls
        if not any(_matches(s, c, tool, dict(where)) for c in calls)
    ]
    if missing:
        return fail("no successful call for: " + "; ".join(missing), [])
    return ok(f"all {len(s.case.required_calls)} required call(s) succeeded")
