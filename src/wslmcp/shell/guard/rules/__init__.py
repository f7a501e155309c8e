"""The rule passes: independent checks over the effects the flow pass found.

Each rule reads effects of some types (``base.Rule``) and never a program's name. The decision is
the first finding in the order bash would get there: batch by batch (``effects.Batch``), and
within one batch in the order of ``RULES``: deny patterns, catastrophes (always on), sudo, Windows
interop, operator paths (always on), writes under ``/mnt``, read-only, the allow-list, and what
cannot be named. Every refusal names its rule with a stable dotted identifier (docs/guard.md).
"""

from __future__ import annotations

from wslmcp.shell.guard.effects import Batch, Effect, Segment
from wslmcp.shell.guard.policy import NOTHING_RUN, Decision, Policy
from wslmcp.shell.guard.rules.access import DENY, POLICY_RULES
from wslmcp.shell.guard.rules.base import Finding, Rule
from wslmcp.shell.guard.rules.catastrophes import CATASTROPHES
from wslmcp.shell.guard.values import shown

RULES: tuple[Rule, ...] = (DENY, *CATASTROPHES, *POLICY_RULES)


def rules_for(policy: Policy) -> tuple[Rule, ...]:
    """The rule passes this policy turns on, in order."""
    return tuple(rule for rule in RULES if rule.when(policy))


def first_finding(policy: Policy, batches: list[Batch]) -> tuple[Segment, Finding] | None:
    rules = rules_for(policy)
    for batch in batches:
        by_type: dict[type, list[Effect]] = {}
        for effect in batch.effects:
            by_type.setdefault(type(effect), []).append(effect)
        for rule in rules:
            for kind in rule.reads:
                for effect in by_type.get(kind, ()):
                    finding = rule.check(policy, batch.seg, effect)
                    if finding is not None:
                        return batch.seg, finding
    return None


def decide(policy: Policy, batches: list[Batch]) -> Decision | None:
    """The refusal the effects call for, or None when every rule passes."""
    found = first_finding(policy, batches)
    if found is None:
        return None
    seg, finding = found
    return Decision.reject(finding.rule, shown(seg.raw), f"{finding.why}{seg.context}; {NOTHING_RUN}")
