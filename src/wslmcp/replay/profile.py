"""The ``profile-report`` scenario check: run ``wslmcp profile`` on a scenario, compare with its file.

Manifest entry: ``{"kind": "profile-report", "args": [...], "expected": "expected/NAME"}``. The
profiler is assembled in process on the scenario's fixture home, recorded server answers and clock
(as ``--replay`` would), and what it writes must equal the expected file byte for byte. The
profiler is a command, not a server: it is driven through its assembly, and the servers it
queries are the scenario's recorded launcher answers.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import Any

from wslmcp import wiring
from wslmcp.profile.assembly import assemble
from wslmcp.profile.cli import build_parser, execute
from wslmcp.scenario.checks import CheckResult
from wslmcp.scenario.loader import Scenario

KIND = "profile-report"


def render(scenario: Scenario, args: list[str]) -> str:
    parsed = build_parser().parse_args(args)
    run = wiring.replaying(scenario)
    out = io.StringIO()
    code = execute(parsed, assemble(run.boundaries, run.host, parsed), out)
    if code != 0:
        raise RuntimeError(f"wslmcp profile exited {code}")
    return out.getvalue()


def check(scenario: Scenario, spec: Mapping[str, Any]) -> CheckResult:
    args = [str(a) for a in spec.get("args", [])]
    expected_rel = str(spec["expected"])
    expected = scenario.file(expected_rel).read_text(encoding="utf-8")
    actual = render(scenario, args)
    if actual == expected:
        return CheckResult(KIND, True, f"{' '.join(args) or '(defaults)'} == {expected_rel}")
    return CheckResult(
        KIND,
        False,
        f"{' '.join(args) or '(defaults)'} differs from {expected_rel}: {_first_difference(expected, actual)}",
    )


def _first_difference(expected: str, actual: str) -> str:
    for number, (want, got) in enumerate(zip(expected.splitlines(), actual.splitlines(), strict=False), 1):
        if want != got:
            return f"line {number}: expected {want[:120]!r}, got {got[:120]!r}"
    return f"expected {len(expected.splitlines())} lines, got {len(actual.splitlines())}"
