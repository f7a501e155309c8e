"""What the operator allowed (``Policy``) and what the guard answers (``Decision``).

Plain data with no imports from the rest of the guard, so every guard module (and every caller)
can import it without a cycle.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

Access = Literal["read", "write"]

NOTHING_RUN = "nothing was run"
"""How every refusal's reason ends."""

NEVER_ASKED = ("catastrophe.", "deny_pattern", "operator_path", "parse.", "path.", "cwd.", "sandbox")
"""Refusals no person is asked to overrule (rule ids, or their prefixes): the catastrophes, the
operator's deny patterns, hidden paths (credentials, MCP client configuration), requests the
guard cannot read, and a file-tool write the sandbox cannot make (outside its writable roots: a yes
would change nothing). Every other refusal is a question when a person can be asked (docs/guard.md)."""


def askable(rule: str | None) -> bool:
    """May a person approve what ``rule`` refused?"""
    return rule is not None and not rule.startswith(NEVER_ASKED)


@dataclass(frozen=True)
class Policy:
    """What the operator allowed. Permissive by default; every restriction is opt-in.

    ``allow_commands`` None means any binary; ``allowed_paths`` None means any path. Paths are
    absolute POSIX paths inside the distro. ``home`` is the Linux user's home directory, when known.
    """

    readonly: bool = False
    allow_sudo: bool = False
    allow_windows: bool = False
    allow_commands: tuple[str, ...] | None = None
    deny_patterns: tuple[re.Pattern[str], ...] = ()
    allowed_paths: tuple[str, ...] | None = None
    home: str | None = None
    user: str | None = None


@dataclass(frozen=True)
class Decision:
    """The guard's answer. On ``reject``: which rule fired, the offending segment, and why; the
    program that would do it (``program``, None for a path a file tool names); and every other
    refusal of the same request (``others``: other rules, later commands), so that a person asked to
    approve it approves all of it, and nothing never asked hides behind what was."""

    verdict: Literal["allow", "reject"]
    rule: str | None = None
    segment: str | None = None
    reason: str | None = None
    program: str | None = None
    others: tuple[Decision, ...] = field(default=())

    @property
    def allowed(self) -> bool:
        return self.verdict == "allow"

    @property
    def refusals(self) -> tuple[Decision, ...]:
        """This refusal and every other one of the same request (none when allowed)."""
        return () if self.allowed else (self, *self.others)

    @property
    def askable(self) -> bool:
        """A person may approve every refusal of the request (``NEVER_ASKED``)."""
        return bool(self.refusals) and all(askable(r.rule) for r in self.refusals)

    @staticmethod
    def allow() -> Decision:
        return _ALLOW

    @staticmethod
    def reject(rule: str, segment: str | None, reason: str, program: str | None = None) -> Decision:
        return Decision("reject", rule, segment, reason, program)

    def as_json(self) -> dict[str, str | None]:
        return {"verdict": self.verdict, "rule": self.rule, "segment": self.segment, "reason": self.reason}


_ALLOW = Decision("allow")  # one for every allowed request: a decision is a value
