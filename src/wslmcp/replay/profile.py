"""The ``profile-report`` scenario check: run ``wslmcp profile`` on a scenario, compare with its file.

Manifest entry: ``{"kind": "profile-report", "args": [...], "expected": "expected/NAME"}``. The
profiler is assembled in process on the scenario's fixture home, recorded server answers and clock
(as ``--replay`` would), and what it writes must equal the expected file byte for byte, with one
allowance: the ``"wslmcp"`` part of a JSON report is our extension and grows, so an expected file
pins the fields of it that it states (``as_stated``); one written before a field existed does not
fail for lacking it. The mcp-top parts are compared whole. The profiler is a command, not a server: it is driven through its assembly, and the servers it
queries are the scenario's recorded launcher answers.
"""

from __future__ import annotations

import io
import json
from collections.abc import Mapping
from typing import Any

from wslmcp.profile import report_json
from wslmcp.profile.assembly import build
from wslmcp.profile.cli import execute, parse_options
from wslmcp.scenario.checks import CheckResult
from wslmcp.scenario.loader import Scenario
from wslmcp.wiring.replay import replaying

KIND = "profile-report"


def render(scenario: Scenario, args: list[str]) -> str:
    options = parse_options(args)  # the scenario states a command line
    run = replaying(scenario)
    out = io.StringIO()
    code = execute(options, build(run.boundaries, run.host, options), out)
    if code != 0:
        raise RuntimeError(f"wslmcp profile exited {code}")
    return out.getvalue()


def check(scenario: Scenario, spec: Mapping[str, Any]) -> CheckResult:
    args = [str(a) for a in spec.get("args", [])]
    expected_rel = str(spec["expected"])
    expected = as_today(scenario.file(expected_rel).read_text(encoding="utf-8"))
    actual = as_stated(render(scenario, args), expected)
    if actual == expected:
        return CheckResult(KIND, True, f"{' '.join(args) or '(defaults)'} == {expected_rel}")
    return CheckResult(
        KIND,
        False,
        f"{' '.join(args) or '(defaults)'} differs from {expected_rel}: {_first_difference(expected, actual)}",
    )


#: (earlier text, today's) in an expected report: what an earlier version wrote otherwise
EARLIER_REPORT_PARTS: tuple[tuple[str, str], ...] = (
    # the removal suggestions name this tool, not the one whose output the report follows
    ("(never applied; mcp-top is read-only -- edit", "(never applied; wslmcp is read-only -- edit"),
)


def as_today(expected: str) -> str:
    """An expected report with the earlier texts in it read as today's."""
    for earlier, today in EARLIER_REPORT_PARTS:
        expected = expected.replace(earlier, today)
    return expected


def as_stated(actual: str, expected: str) -> str:
    """``actual`` with its ``"wslmcp"`` part cut to the fields ``expected`` states there (objects:
    the keys it has; lists of the same length: item by item), written out again as the report is;
    any other output is returned as it is."""
    try:
        got, want = json.loads(actual), json.loads(expected)
    except ValueError:
        return actual
    if not (isinstance(got, dict) and isinstance(want, dict) and "wslmcp" in got and "wslmcp" in want):
        return actual
    got["wslmcp"] = _cut(got["wslmcp"], want["wslmcp"])
    return report_json.dumps(got) + "\n"


def _cut(got: Any, want: Any) -> Any:
    if isinstance(got, dict) and isinstance(want, dict):
        return {key: _cut(got[key], want[key]) for key in want if key in got}
    if isinstance(got, list) and isinstance(want, list) and len(got) == len(want):
        return [_cut(g, w) for g, w in zip(got, want, strict=True)]
    return got


def _first_difference(expected: str, actual: str) -> str:
    for number, (want, got) in enumerate(zip(expected.splitlines(), actual.splitlines(), strict=False), 1):
        if want != got:
            return f"line {number}: expected {want[:120]!r}, got {got[:120]!r}"
    return f"expected {len(expected.splitlines())} lines, got {len(actual.splitlines())}"
