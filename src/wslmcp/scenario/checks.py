"""What ``wslmcp scenario replay`` runs: each manifest ``expect`` entry names a check kind.

A kind maps to ``module:function`` and is imported only when a scenario uses it, so each area
(observe, shell, profile, eval) registers its own replay checks without loading the others.
A check takes the scenario and its ``expect`` entry and returns a ``CheckResult``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from wslmcp.scenario.loader import Scenario

CHECKS: dict[str, str] = {
    "procfs-replay": "wslmcp.replay.procfs:check",
    "observe-tools": "wslmcp.replay.observe:check",
    "profile-report": "wslmcp.replay.profile:check",
    "shell-exchanges": "wslmcp.replay.shell:check",
}


@dataclass(frozen=True)
class CheckResult:
    kind: str
    ok: bool
    detail: str


Check = Callable[[Scenario, Mapping[str, Any]], CheckResult]


def resolve(kind: str) -> Check:
    target = CHECKS.get(kind)
    if target is None:
        raise KeyError(f"unknown check kind {kind!r}; known: {', '.join(sorted(CHECKS))}")
    module, _, func = target.partition(":")
    check: Check = getattr(importlib.import_module(module), func)
    return check


def run_checks(scenario: Scenario) -> list[CheckResult]:
    results = []
    for spec in scenario.manifest.get("expect", []):
        kind = str(spec["kind"])
        try:
            results.append(resolve(kind)(scenario, spec))
        except Exception as exc:  # a check that crashes is a mismatch with its reason, not a traceback
            results.append(CheckResult(kind, False, f"{type(exc).__name__}: {exc}"))
    return results
