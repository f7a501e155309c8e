"""The ``wslmcp-eval-report/1`` document: summary, traces, and the baseline comparison."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from wslmcp import __version__

SCHEMA = "wslmcp-eval-report/1"
#: A trace's verdict: its checks pass or some fail; ``unreplayable``: a call the scenario cannot
#: answer (what its checks say is not a grade); ``error``: the harness could not grade it.
VERDICTS = ("pass", "fail", "unreplayable", "error")


def summary(traces: Sequence[dict[str, Any]]) -> dict[str, Any]:
    by_check: dict[str, dict[str, int]] = {}
    by_case: dict[str, dict[str, int]] = {}
    for t in traces:
        for c in t["checks"]:
            counts = by_check.setdefault(c["id"], {"fail": 0, "pass": 0, "skip": 0})
            counts[c["status"]] = counts.get(c["status"], 0) + 1
        if t.get("case"):
            case = by_case.setdefault(t["case"], {"traces": 0, "passed": 0})
            case["traces"] += 1
            case["passed"] += t["verdict"] == "pass"
    return {
        "traces": len(traces),
        "passed": sum(t["verdict"] == "pass" for t in traces),
        "failed": sum(t["verdict"] == "fail" for t in traces),
        "unreplayable": sum(t["verdict"] == "unreplayable" for t in traces),
        "errors": sum(t["verdict"] == "error" for t in traces),
        "by_check": by_check,
        "by_case": by_case,
    }


def document(traces: Sequence[dict[str, Any]], baseline: dict[str, Any] | None = None) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "schema": SCHEMA,
        "wslmcp": __version__,
        "generated_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "summary": summary(traces),
        "traces": list(traces),
    }
    if baseline is not None:
        doc["baseline"] = baseline
    return doc
