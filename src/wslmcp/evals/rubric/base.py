"""A check's outcome and its registry entry."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from wslmcp.evals.session import Session


@dataclass
class Outcome:
    status: str  # "pass" | "fail" | "skip"
    message: str = ""
    evidence: list[Any] = field(default_factory=list)
    sentences: list[str] = field(default_factory=list)


def ok(message: str = "") -> Outcome:
    return Outcome("pass", message)


def skip(reason: str) -> Outcome:
    return Outcome("skip", reason)


def fail(message: str, evidence: list[Any] | None = None, sentences: list[str] | None = None) -> Outcome:
    return Outcome("fail", message, list(evidence or []), list(sentences or []))


Rule = Callable[[Session], Outcome]


@dataclass(frozen=True)
class CheckSpec:
    id: str
    family: str
    applies: str
    rule: str
    run: Rule
    patterns: tuple[str, ...] = ()
    intent: bool = False  # judged from the case's intent (warn when the intent was inferred)


class Checks:
    """A rubric module's checks, in the order they are defined. Each check's function carries its
    registry entry beside it: ``@CHECKS.add(id, applies=..., rule=...)`` (the family is the id's
    first part; ``patterns`` names the answer patterns it uses; ``intent`` marks a check judged from
    the case's intent)."""

    def __init__(self) -> None:
        self._specs: list[CheckSpec] = []

    def add(
        self, check_id: str, *, applies: str, rule: str, patterns: tuple[str, ...] = (), intent: bool = False
    ) -> Callable[[Rule], Rule]:
        def register(run: Rule) -> Rule:
            family = check_id.split(".", 1)[0]
            self._specs.append(CheckSpec(check_id, family, applies, rule, run, patterns, intent))
            return run

        return register

    def __iter__(self) -> Iterator[CheckSpec]:
        return iter(self._specs)


def first_fail(found: list[tuple[Any, str]], clean: str) -> Outcome:
    """Fail with every (evidence, reason) found, or pass with ``clean``."""
    if not found:
        return ok(clean)
    return fail(
        "; ".join(reason for _, reason in found[:3]) + ("; …" if len(found) > 3 else ""),
        [e for e, _ in found],
    )
