"""The rule passes: independent checks over the effects the flow pass found.

Each rule reads effects of some types (``base.Rule``) and never a program's name. The decision is
the first finding in the order bash would get there: batch by batch (``effects.Batch``), and
within one batch in the order of ``RULES``: deny patterns, catastrophes (always on), deletion across
a whole home or writable root (``reach``), sudo, Windows
interop, operator paths (always on), writes under ``/mnt``, read-only, the allow-list, and what
cannot be named. Every refusal names its rule with a stable dotted identifier (docs/guard.md).
"""

from __future__ import annotations

import functools
from dataclasses import replace

from wslmcp.shell.guard.effects import Batch, Segment
from wslmcp.shell.guard.policy import NOTHING_RUN, Decision, Policy
from wslmcp.shell.guard.rules.access import DENY, POLICY_RULES
from wslmcp.shell.guard.rules.base import Finding, Rule
from wslmcp.shell.guard.rules.catastrophes import CATASTROPHES
from wslmcp.shell.guard.rules.reach import MASS_DELETE
from wslmcp.shell.guard.values import shown

RULES: tuple[Rule, ...] = (DENY, *CATASTROPHES, MASS_DELETE, *POLICY_RULES)


@functools.lru_cache(maxsize=64)
def rules_for(policy: Policy) -> tuple[Rule, ...]:
    """The rule passes this policy turns on, in order."""
    return tuple(rule for rule in RULES if rule.when(policy))


@functools.lru_cache(maxsize=64)
def _rules_by_kind(policy: Policy) -> dict[type, list[tuple[int, Rule]]]:
    """For each effect type, the rules that read it with their place in ``RULES``, in order."""
    found: dict[type, list[tuple[int, Rule]]] = {}
    for index, rule in enumerate(rules_for(policy)):
        for kind in rule.reads:
            found.setdefault(kind, []).append((index, rule))
    return found


def first_finding(policy: Policy, batches: list[Batch]) -> tuple[Segment, Finding] | None:
    """The first finding: the earliest batch with one, and in it the earliest rule (then effect)."""
    by_kind = _rules_by_kind(policy)
    for batch in batches:
        best: tuple[int, Finding] | None = None
        for effect in batch.effects:
            for index, rule in by_kind.get(type(effect), ()):
                if best is not None and index >= best[0]:
                    break
                finding = rule.check(policy, batch.seg, effect)
                if finding is not None:
                    best = (index, finding)
                    break
        if best is not None:
            return batch.seg, best[1]
    return None


def every_finding(policy: Policy, batches: list[Batch]) -> list[tuple[Segment, Finding]]:
    """Every finding of every rule, batch by batch, each rule once per command (for a refusal: what
    a person asked to approve it must see, and what must never be approved unseen)."""
    by_kind = _rules_by_kind(policy)
    found: dict[tuple[int, str], tuple[Segment, Finding]] = {}
    for n, batch in enumerate(batches):
        for effect in batch.effects:
            for _, rule in by_kind.get(type(effect), ()):
                finding = rule.check(policy, batch.seg, effect)
                if finding is not None:
                    found.setdefault((n, finding.rule), (batch.seg, finding))
    return list(found.values())


def _decision(seg: Segment, finding: Finding) -> Decision:
    return Decision.reject(
        finding.rule, shown(seg.raw), f"{finding.why}{seg.context}; {NOTHING_RUN}", seg.name or None
    )


def decide(policy: Policy, batches: list[Batch]) -> Decision | None:
    """The refusal the effects call for (the first finding, with every other one as ``others``),
    or None when every rule passes."""
    found = first_finding(policy, batches)
    if found is None:
        return None
    first = _decision(*found)
    others = [_decision(seg, f) for seg, f in every_finding(policy, batches)]
    others = [d for d in others if (d.rule, d.segment) != (first.rule, first.segment)]
    return replace(first, others=tuple(dict.fromkeys(others)))
