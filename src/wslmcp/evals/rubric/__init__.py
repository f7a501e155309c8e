"""The 32 checks, one module per family (each registered beside its rule text: ``base.Checks``), and
the registry ``REGISTRY`` (id -> spec) in report order."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from wslmcp.evals.rubric import answer, drift, errors, ids, intent, protocol, shell, snapshot
from wslmcp.evals.rubric.base import CheckSpec, Outcome
from wslmcp.evals.session import Session

REGISTRY: dict[str, CheckSpec] = {
    spec.id: spec
    for module in (protocol, snapshot, ids, errors, intent, shell, answer, drift)
    for spec in module.CHECKS
}
SEVERITIES = ("warn", "error")


@dataclass
class CheckResult:
    id: str
    status: str
    severity: str
    message: str
    evidence: list[Any] = field(default_factory=list)
    sentences: list[str] = field(default_factory=list)

    @property
    def gating(self) -> bool:
        return self.status == "fail" and self.severity == "error"


def grade(session: Session, severities: Mapping[str, str] | None = None) -> list[CheckResult]:
    """Every registered check on ``session``; a crash in one check is its failure, not the run's."""
    out = []
    for spec in REGISTRY.values():
        try:
            outcome = spec.run(session)
        except Exception as exc:  # a rubric bug must name itself, never hide the other checks
            outcome = Outcome("fail", f"check crashed: {type(exc).__name__}: {exc}")
        severity = "error"
        if spec.intent and session.case.source == "inferred" and not session.strict_intent:
            severity = "warn"
        severity = (severities or {}).get(spec.id, severity)
        out.append(
            CheckResult(
                spec.id, outcome.status, severity, outcome.message, outcome.evidence, outcome.sentences
            )
        )
    return out


def describe() -> list[dict[str, Any]]:
    """The registry as ``wslmcp eval checks --json`` prints it."""
    from wslmcp.evals import patterns

    return [
        {
            "id": spec.id,
            "family": spec.family,
            "applies": spec.applies,
            "rule": spec.rule,
            "default_severity": "error",
            "intent": spec.intent,
            "patterns": {name: patterns.SOURCES[name] for name in spec.patterns},
        }
        for spec in REGISTRY.values()
    ]
