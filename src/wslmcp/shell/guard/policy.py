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
    """The guard's answer. On ``reject``: which rule fired, the offending segment, and why."""

    verdict: Literal["allow", "reject"]
    rule: str | None = None
    segment: str | None = None
    reason: str | None = None
    details: tuple[str, ...] = field(default=())

    @property
    def allowed(self) -> bool:
        return self.verdict == "allow"

    @staticmethod
    def allow() -> Decision:
        return _ALLOW

    @staticmethod
    def reject(rule: str, segment: str | None, reason: str) -> Decision:
        return Decision("reject", rule, segment, reason)

    def as_json(self) -> dict[str, str | None]:
        return {"verdict": self.verdict, "rule": self.rule, "segment": self.segment, "reason": self.reason}


_ALLOW = Decision("allow")  # one for every allowed request: a decision is a value
