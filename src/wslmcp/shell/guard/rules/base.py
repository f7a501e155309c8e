"""What a rule is: a check of one effect of one command, under the policy, giving a finding or None."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from wslmcp.shell.guard.effects import Effect, Segment
from wslmcp.shell.guard.policy import Policy


@dataclass(frozen=True)
class Finding:
    """A rule fired: its stable id and why (without the context and the closing "nothing was run")."""

    rule: str
    why: str


Check = Callable[[Policy, Segment, Effect], Finding | None]


def always(policy: Policy) -> bool:
    return True


@dataclass(frozen=True)
class Rule:
    """One rule pass: the effect types it reads, when the policy turns it on, and its check."""

    name: str
    reads: tuple[type, ...]
    check: Check
    when: Callable[[Policy], bool] = always


DANGEROUS = "blocked as dangerous: "
