"""A check's outcome and its registry entry."""

from __future__ import annotations

from collections.abc import Callable
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


def first_fail(found: list[tuple[Any, str]], clean: str) -> Outcome:
    """Fail with every (evidence, reason) found, or pass with ``clean``."""
    if not found:
        return ok(clean)
    return fail(
        "; ".join(reason for _, reason in found[:3]) + ("; …" if len(found) > 3 else ""),
        [e for e, _ in found],
    )
