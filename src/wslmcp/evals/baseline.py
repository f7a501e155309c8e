"""Comparing a run with a previous ``--json`` report (``--baseline``, ``wslmcp eval diff``).

A regression is a (trace, check) that fails now (gating: severity error) and did not fail in the
baseline, or a trace of the baseline whose verdict is now ``error``. ``improved`` lists checks that
failed before and pass now; ``new_traces``/``missing_traces`` the traces on one side only.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from wslmcp.evals.report_json import SCHEMA


class BaselineError(ValueError):
    pass


def load(path: Path) -> dict[str, Any]:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise BaselineError(f"{path}: unreadable: {exc.strerror}") from None
    except ValueError as exc:
        raise BaselineError(f"{path}: not JSON: {exc}") from None
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA or not isinstance(doc.get("traces"), list):
        raise BaselineError(f"{path}: not a {SCHEMA} report")
    return doc


def _index(traces: Sequence[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    return {str(t["id"]): t for t in traces}


def compare(
    old: Sequence[Mapping[str, Any]], new: Sequence[Mapping[str, Any]], path: str = ""
) -> dict[str, Any]:
    before, after = _index(old), _index(new)
    regressions: list[dict[str, Any]] = []
    improved: list[dict[str, Any]] = []
    changes: list[dict[str, Any]] = []
    for tid, trace in after.items():
        prior = before.get(tid)
        if prior is None:
            continue
        if trace["verdict"] == "error" and prior["verdict"] != "error":
            regressions.append({"trace": tid, "check": None, "message": trace.get("error")})
        was = {c["id"]: c["status"] for c in prior.get("checks", [])}
        for check in trace.get("checks", []):
            old_status = was.get(check["id"])
            if old_status is not None and old_status != check["status"]:
                changes.append(
                    {"trace": tid, "check": check["id"], "old": old_status, "new": check["status"]}
                )
            if check["status"] == "fail" and check["severity"] == "error" and old_status != "fail":
                regressions.append({"trace": tid, "check": check["id"], "message": check.get("message")})
            elif old_status == "fail" and check["status"] == "pass":
                improved.append({"trace": tid, "check": check["id"]})
    return {
        "path": path,
        "regressions": regressions,
        "improved": improved,
        "changes": changes,
        "new_traces": sorted(set(after) - set(before)),
        "missing_traces": sorted(set(before) - set(after)),
    }


def render(result: Mapping[str, Any]) -> str:
    lines = []
    for r in result["regressions"]:
        lines.append(
            f"REGRESSION  {r['trace']}  {r['check'] or '(harness error)'}  {r.get('message') or ''}".rstrip()
        )
    for r in result["improved"]:
        lines.append(f"improved    {r['trace']}  {r['check']}")
    lines += [f"new trace   {t}" for t in result["new_traces"]]
    lines += [f"missing     {t}" for t in result["missing_traces"]]
    lines.append(
        f"{len(result['regressions'])} regression(s), {len(result['improved'])} improved, "
        f"{len(result['new_traces'])} new, {len(result['missing_traces'])} missing"
    )
    return "\n".join(lines)
