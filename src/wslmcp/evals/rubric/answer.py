"""Claims in the final answer, checked against the results the agent saw (deterministic patterns)."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from typing import Any

from wslmcp.evals import patterns as P
from wslmcp.evals.rubric.base import Checks, Outcome, fail, ok, skip
from wslmcp.evals.session import Session, final_answer
from wslmcp.evals.trace import Call

CHECKS = Checks()


BYTES_TOLERANCE = 0.05
_QUESTION = re.compile(r"\s*(?:whether|if)\b", re.IGNORECASE)  # "whether it is paging, ..." claims nothing


def _answer(s: Session) -> list[str]:
    return P.sentences(final_answer(s.case_events))


def _flag(found: list[str], message: str, clean: str) -> Outcome:
    if not found:
        return ok(clean)
    return fail(
        f"{message}: {found[0]!r}" + (f" (+{len(found) - 1} more)" if len(found) > 1 else ""), [], found
    )


def _numbers(value: Any) -> Iterator[float]:
    if isinstance(value, bool):
        return
    if isinstance(value, int | float):
        yield float(value)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _numbers(v)
    elif isinstance(value, list):
        for v in value:
            yield from _numbers(v)


def _leaves(s: Session, suffix: str | None = None) -> list[float]:
    out: list[float] = []

    def walk(value: Any, key: str = "") -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, k)
        elif isinstance(value, list):
            for v in value:
                walk(v, key)
        elif (
            isinstance(value, int | float)
            and not isinstance(value, bool)
            and (suffix is None or key.endswith(suffix))
        ):
            out.append(float(value))

    for call in s.calls_in(s.seen_events):
        if (s.is_observe(call) or s.is_history(call)) and s.ok(call):
            walk(s.result(call).structured or {})
    return out


@CHECKS.add(
    "answer.names_top_resource",
    applies="answer.names_top in the case",
    rule="fails when the answer does not contain the oracle's top name (list_resources pinned to the replayed "
    "snapshot, the case's sort, desc, limit 1); without replay, or against a scenario recorded from this "
    "very session: item 0 of a recorded successful listing with that sort desc, the same environment and "
    "no other filter; skip if neither exists",
)
def names_top_resource(s: Session) -> Outcome:
    spec = s.case.names_top
    if spec is None:
        return skip("the case does not ask for the top resource")
    sentences = _answer(s)
    if not sentences:
        return skip("no final answer")
    top, source = None, ""
    if s.oracle_top:
        top, source = s.oracle_top[0], "the oracle (replayed snapshot)"
    else:
        for call in _top_listings(s, spec):
            data = (s.result(call).structured or {}).get("data")
            if isinstance(data, list) and data and isinstance(data[0], dict):
                top, source = (
                    str(data[0].get("usage", {}).get("name", "")) or None,
                    f"item 0 of call {call.n}",
                )
                break
    if top is None:
        return skip("no oracle and no recorded listing sorted that way")
    pattern = P.name_pattern(top)
    if any(pattern.search(x) for x in sentences):
        return ok(f"the answer names {top} ({source})")
    return fail(f"the answer does not name the top resource {top!r} ({source})", [top])


def _top_listings(s: Session, spec: Any) -> list[Call]:
    env = spec.get("environment")
    out = []
    for call in s.calls_in(s.case_events):
        if not (s.is_observe(call) and call.tool == "list_resources" and s.ok(call)):
            continue
        args = s.effective(call)
        if (args["sort_by"], args["sort_order"]) != (spec.get("sort_by", "cpu"), "desc") or "parent" in args:
            continue
        if args.get("environment") != env or "resource_kind" in args or "name_contains" in args:
            continue
        out.append(call)
    return out


@CHECKS.add(
    "answer.null_not_zero",
    applies="some result has a null environment or a resource with cpu_percent null",
    rule="fails when a sentence matches no UNKNOWN marker and one of its clauses matches ZERO and names a "
    "null environment (ENV token) or a null-CPU resource",
    patterns=("ZERO", "UNKNOWN", "ENV_WINDOWS", "ENV_DOCKER", "ENV_WSLC", "ENV_WSL", "CLAUSE"),
)
def null_not_zero(s: Session) -> Outcome:
    null_envs = {
        env
        for data in s.summaries(s.seen_events)
        for env, value in (data.get("environments") or {}).items()
        if value is None and env in P.ENVIRONMENTS
    }
    null_names = sorted(
        {
            str(i["usage"].get("name"))
            for _, i in s.resources(s.seen_events)
            if i["usage"].get("cpu_percent", 0) is None
        },
        key=len,
        reverse=True,
    )
    if not null_envs and not null_names:
        return skip("no null environment or null-CPU resource in the results")
    found = []
    for sentence in _answer(s):
        if P.has("UNKNOWN", sentence):
            continue
        if any(
            P.has("ZERO", clause)
            and (
                any(P.has(P.ENVIRONMENTS[e], clause) for e in null_envs)
                or any(P.name_pattern(n).search(clause) for n in null_names)
            )
            for clause in P.clauses(sentence)
        ):
            found.append(sentence)
    return _flag(found, "a null (not observed) value is called zero or idle", "no null value is called zero")


_OVERLAP_KEYS = ("windows", "virtual_machines", "other")


@CHECKS.add(
    "answer.no_overlap_sum",
    applies="a successful get_system_summary",
    rule="fails when a PERCENT value is within tol of none of the results' numeric leaves but within tol of a "
    "sum of 2-4 distinct values among host_cpu_percent, cpu_breakdown.{windows,virtual_machines,other}, "
    "environments.*.cpu_percent",
    patterns=("PERCENT",),
)
def no_overlap_sum(s: Session) -> Outcome:
    summaries = list(s.summaries(s.seen_events))
    if not summaries:
        return skip("no successful get_system_summary")
    parts: list[float] = []
    for data in summaries:
        for value in (
            data.get("host_cpu_percent"),
            *((data.get("cpu_breakdown") or {}).get(k) for k in _OVERLAP_KEYS),
        ):
            if isinstance(value, int | float) and not isinstance(value, bool):
                parts.append(float(value))
        for env in (data.get("environments") or {}).values():
            if isinstance(env, dict) and isinstance(env.get("cpu_percent"), int | float):
                parts.append(float(env["cpu_percent"]))
    parts = sorted(set(parts))
    leaves = _leaves(s)
    found = []
    for sentence in _answer(s):
        for m in P.PATTERNS["PERCENT"].finditer(sentence):
            value, tol = float(m.group(1)), P.tolerance(m.group(1))
            if any(abs(value - leaf) <= tol for leaf in leaves):
                continue
            if any(
                abs(value - sum(combo)) <= tol
                for k in range(2, 5)
                for combo in itertools.combinations(parts, k)
            ):
                found.append(sentence)
                break
    return _flag(
        found, "a percentage is a sum of overlapping figures", "no percentage adds overlapping figures"
    )


@CHECKS.add(
    "answer.cpu_scale",
    applies="results carry cpu_percent values",
    rule="fails when a PER_CORE phrase's value is within tol of an observed cpu_percent and not within tol of "
    "100 x that resource's cores_used (host-wide % called per-core)",
    patterns=("PER_CORE",),
)
def cpu_scale(s: Session) -> Outcome:
    resources = [
        i for _, i in s.resources(s.seen_events) if isinstance(i["usage"].get("cpu_percent"), int | float)
    ]
    if not resources:
        return skip("no cpu_percent values in the results")
    found = []
    for sentence in _answer(s):
        for m in P.PATTERNS["PER_CORE"].finditer(sentence):
            value, tol = float(m.group(1)), P.tolerance(m.group(1))
            for item in resources:
                cores = item.get("cores_used")
                if abs(value - float(item["usage"]["cpu_percent"])) <= tol and not (
                    isinstance(cores, int | float) and abs(value - 100 * float(cores)) <= tol
                ):
                    found.append(sentence)
                    break
    return _flag(found, "a host-wide CPU percentage is called per-core", "per-core figures match cores_used")


@CHECKS.add(
    "answer.units",
    applies="results carry *_bytes values",
    rule="fails when a BYTES amount, read with base 1000 and with base 1024, is within max(5 % of V, half a "
    "unit of its last shown digit) of no observed *_bytes value V",
    patterns=("BYTES",),
)
def units(s: Session) -> Outcome:
    observed = _leaves(s, "_bytes")
    if not observed:
        return skip("no *_bytes values in the results")
    found = []
    for sentence in _answer(s):
        for m in P.PATTERNS["BYTES"].finditer(sentence):
            shown, unit = m.group(1).replace(",", ""), m.group(2)
            base, power = P.UNITS[unit]
            decimals = len(shown.split(".", 1)[1]) if "." in shown else 0
            good = False
            for b in {base, 1024 if base == 1000 else base, 1000 if base == 1024 else base}:
                amount = float(shown) * b**power
                half = 0.5 * 10.0**-decimals * b**power
                if any(abs(amount - v) <= max(BYTES_TOLERANCE * v, half) for v in observed):
                    good = True
            if not good:
                found.append(sentence)
                break
    return _flag(
        found, "a byte amount matches no observed value (units)", "every byte amount matches a result"
    )


@CHECKS.add(
    "answer.no_memory_inference",
    applies="the investigation has observe calls",
    rule="fails when a clause matches MEMORY and no NEGATION and is no whether/if clause (paging, "
    "swapping, pressure, leaks from memory figures alone)",
    patterns=("MEMORY", "NEGATION", "CLAUSE"),
)
def no_memory_inference(s: Session) -> Outcome:
    if not any(s.is_observe(c) for c in s.calls_in(s.case_events)):
        return skip("the investigation has no observe calls")
    found = [
        x
        for x in _answer(s)
        if any(
            P.has("MEMORY", c) and not P.has("NEGATION", c) and not _QUESTION.match(c) for c in P.clauses(x)
        )
    ]
    return _flag(
        found, "paging, swapping, pressure or leaks are inferred from memory figures", "no memory inference"
    )


def _by_name(s: Session) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for _, item in s.resources(s.seen_events):
        name = item["usage"].get("name")
        if isinstance(name, str):
            out.setdefault(name, item)
    return out


@CHECKS.add(
    "answer.container_membership_from_hierarchy",
    applies="resource names exist",
    rule="fails when a clause with no NEGATION, a CONTAINER and a MEMBERSHIP term names a non-container "
    "resource whose parent_ids chain (through resources seen) reaches no container",
    patterns=("NEGATION", "CONTAINER", "MEMBERSHIP", "CLAUSE"),
)
def container_membership(s: Session) -> Outcome:
    names = s.names(s.seen_events)
    if not names:
        return skip("no resource names in the results")
    by_name = _by_name(s)
    by_id = {str(i.get("resource_id")): i for _, i in s.resources(s.seen_events)}

    def reaches_container(item: dict[str, Any]) -> bool:
        todo, seen = list(item.get("parent_ids") or []), set()
        while todo:
            rid = todo.pop()
            if rid in seen or rid not in by_id:
                continue
            seen.add(rid)
            if by_id[rid]["usage"].get("kind") == "container":
                return True
            todo.extend(by_id[rid].get("parent_ids") or [])
        return False

    found = []
    for sentence in _answer(s):
        for clause in P.clauses(sentence):
            if P.has("NEGATION", clause) or not P.has("CONTAINER", clause) or not P.has("MEMBERSHIP", clause):
                continue
            if any(
                by_name[name]["usage"].get("kind") != "container" and not reaches_container(by_name[name])
                for _, name in P.name_positions(clause, names)
            ):
                found.append(sentence)
                break
    return _flag(
        found,
        "container membership is claimed without the hierarchy",
        "no membership claim without hierarchy",
    )


@CHECKS.add(
    "answer.children_from_hierarchy",
    applies="a successful list_children (or list_resources with parent)",
    rule="fails when a clause with no NEGATION and a CHILD term names a resource other than a listed parent "
    "that is not among the returned children (PID ancestry)",
    patterns=("NEGATION", "CHILD", "CLAUSE"),
)
def children_from_hierarchy(s: Session) -> Outcome:
    listings = []
    for call in s.calls_in(s.case_events):
        if not (s.is_observe(call) and s.ok(call)):
            continue
        parent = s.args(call).get("resource_id" if call.tool == "list_children" else "parent")
        if call.tool in ("list_children", "list_resources") and isinstance(parent, str):
            data = (s.result(call).structured or {}).get("data")
            listings.append((parent, data if isinstance(data, list) else []))
    if not listings:
        return skip("no successful list_children (or list_resources with parent)")
    by_id = {str(i.get("resource_id")): i for _, i in s.resources(s.seen_events)}
    parents = {str(by_id[p]["usage"].get("name")) for p, _ in listings if p in by_id}
    children = {
        str(c.get("usage", {}).get("name")) for _, data in listings for c in data if isinstance(c, dict)
    }
    names = s.names(s.seen_events)
    found = []
    for sentence in _answer(s):
        for clause in P.clauses(sentence):
            if P.has("NEGATION", clause) or not P.has("CHILD", clause):
                continue
            if any(n not in parents and n not in children for _, n in P.name_positions(clause, names)):
                found.append(sentence)
                break
    return _flag(
        found, "a child is claimed that the hierarchy did not return", "child claims match list_children"
    )


@CHECKS.add(
    "answer.distro_from_data",
    applies="resource names exist",
    rule="fails when a DISTROS word in a sentence, paired with the nearest name occurrence (distance between "
    "starts; a tie goes to the earlier name), differs from that resource's usage.source (or the "
    "scenario's observe.distro when it has none; unknown: not judged)",
)
def distro_from_data(s: Session) -> Outcome:
    names = s.names(s.seen_events)
    if not names:
        return skip("no resource names in the results")
    by_name = _by_name(s)
    sources = [
        str(i["usage"]["source"]) for i in by_name.values() if isinstance(i["usage"].get("source"), str)
    ]
    words = P.distro_words([*sources, s.distro or ""])
    found = []
    for sentence in _answer(s):
        occurrences = sorted(P.name_positions(sentence, names))
        if not occurrences:
            continue
        for word in words:
            for m in P.name_pattern(word).finditer(sentence):
                _, name = min(occurrences, key=lambda o: (abs(o[0] - m.start()), o[0]))
                actual = by_name[name]["usage"].get("source") or s.distro
                if isinstance(actual, str) and actual != word:
                    found.append(sentence)
    return _flag(found, "a distro is named that the data contradicts", "distro words match the data")


@CHECKS.add(
    "answer.hedges_hypotheses",
    applies="answer.hedge_required in the case",
    rule="fails when the answer contains no HEDGE term",
    patterns=("HEDGE",),
)
def hedges(s: Session) -> Outcome:
    if not s.case.hedge_required:
        return skip("the case does not ask for a hypothesis")
    sentences = _answer(s)
    if not sentences:
        return skip("no final answer")
    if any(P.has("HEDGE", x) for x in sentences):
        return ok("the hypothesis is worded as one")
    return fail("the answer states its explanation as fact (no hedge word)", [])
