"""Structural bounds on the guard's work. Every decision is bounded by these, never by a clock.

A command past a bound is refused with a ``parse.*`` rule: a script the guard cannot read within
its budget is a script it cannot vouch for.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_COMMAND_CHARS = 100_000
"""Longest command text screened (``parse.too_long``)."""

MAX_NESTING = 32
"""Deepest syntactic nesting: subshells, groups, substitutions, compound commands (``parse.too_deep``)."""

MAX_PAYLOAD_DEPTH = 6
"""Deepest re-reading of text run as a command: ``sh -c``, ``eval``, ``su -c``, a shell fed by a
pipe, ``env -S``... (``parse.too_deep``)."""

MAX_WORK = 600_000
"""Characters read plus words expanded, over the whole decision, payloads included (``parse.too_complex``)."""

MAX_FIELDS = 256
"""Most words one word may expand to (brace expansion, field splitting) before it counts as unknown."""

MAX_LOOP_VALUES = 16
"""Most values of a ``for`` list the loop body is screened with, one value at a time; a longer list
screens the body once with the loop variable unknown."""

MAX_VALUE_CHARS = 4096
"""Longest value the guard tracks for a variable or a static command output; longer is unknown."""


class GuardLimit(Exception):
    """The guard ran past a bound; ``rule`` is a ``parse.*`` rule name."""

    def __init__(self, rule: str, reason: str) -> None:
        super().__init__(reason)
        self.rule = rule
        self.reason = reason


@dataclass
class Budget:
    """Work counter shared by everything one decision does."""

    spent: int = 0
    limit: int = MAX_WORK

    def spend(self, amount: int) -> None:
        self.spent += amount
        if self.spent > self.limit:
            raise GuardLimit(
                "parse.too_complex",
                f"the command needs more than {self.limit} steps to read and expand, too much to screen reliably",
            )
