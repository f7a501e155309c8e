"""Comparing a run with a previous ``--json`` report (``--baseline``, ``wslmcp eval diff``).

A regression is a (trace, check) that fails now (gating: severity error) and did not fail in the
baseline (a trace the baseline lacks included: it is ``new``, and each of its failing checks is a
regression), a trace whose verdict is now ``error`` or ``unreplayable`` and was not, or a trace of
the baseline missing from the run (``missing``: it is not silently passed). ``improved`` lists
checks that failed before and pass now; ``new_traces``/``missing_traces`` the traces on one side only.
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
        mark = {"new": True} if prior is None else {}
        if trace["verdict"] in UNGRADED:  # nothing graded: the verdict itself is what changed, or not
            if prior is None or prior["verdict"] != trace["verdict"]:
                regressions.append({"trace": tid, "check": None, "message": _why(trace), **mark})
            continue
        was = {c["id"]: c["status"] for c in (prior or {}).get("checks", [])}
        for check in trace.get("checks", []):
            old_status = was.get(check["id"])
            if old_status is not None and old_status != check["status"]:
                changes.append(
                    {"trace": tid, "check": check["id"], "old": old_status, "new": check["status"]}
                )
            if check["status"] == "fail" and check["severity"] == "error" and old_status != "fail":
                regressions.append(
                    {"trace": tid, "check": check["id"], "message": check.get("message"), **mark}
                )
            elif old_status == "fail" and check["status"] == "pass":
                improved.append({"trace": tid, "check": check["id"]})
    missing = sorted(set(before) - set(after))
    regressions += [{"trace": t, "check": None, "message": MISSING, "missing": True} for t in missing]
    return {
        "path": path,
        "regressions": regressions,
        "improved": improved,
        "changes": changes,
        "new_traces": sorted(set(after) - set(before)),
        "missing_traces": missing,
    }


#: What a baseline keeps of each trace: what ``compare`` reads, and of its checks those that failed
#: (``compare`` needs no more of a baseline). A committed file: no more, one trace a line.
KEPT = ("id", "path", "scenario", "case", "verdict", "error", "unreplayable")


def baseline_of(doc: Mapping[str, Any]) -> str:
    """A ``--json`` report cut to what a baseline compares (still a report ``load`` reads), as text."""
    traces = []
    for trace in doc["traces"]:
        kept = {k: trace[k] for k in KEPT if k in trace}
        kept["checks"] = [
            {"id": c["id"], "status": c["status"]} for c in trace["checks"] if c["status"] == "fail"
        ]
        kept["calls"] = [
            {"n": c["n"], "tool": c["tool"], "unreplayable": c["unreplayable"]}
            for c in trace.get("calls", [])
            if c.get("unreplayable")
        ]
        traces.append(json.dumps(kept, ensure_ascii=False))
    head = {k: json.dumps(v, ensure_ascii=False) for k, v in doc.items() if k not in ("traces", "summary")}
    lines = [f" {json.dumps(k)}: {v}," for k, v in head.items()]
    return "{\n" + "\n".join(lines) + '\n "traces": [\n  ' + ",\n  ".join(traces) + "\n ]\n}\n"


UNGRADED = ("error", "unreplayable")  # verdicts that grade nothing
MISSING = "in the baseline but not in this run"


def _why(trace: Mapping[str, Any]) -> str:
    if trace["verdict"] == "error":
        return str(trace.get("error"))
    missed = [c for c in trace.get("calls", []) if c.get("unreplayable")]
    return "unreplayable: " + "; ".join(f"call {c['n']} {c['tool']}: {c['unreplayable']}" for c in missed)


def render(result: Mapping[str, Any]) -> str:
    lines = []
    for r in result["regressions"]:
        if r.get("missing"):
            continue  # listed below
        what = r["check"] or "(not graded)"
        where = "  (new trace)" if r.get("new") else ""
        lines.append(f"REGRESSION  {r['trace']}  {what}{where}  {r.get('message') or ''}".rstrip())
    for r in result["improved"]:
        lines.append(f"improved    {r['trace']}  {r['check']}")
    lines += [f"new trace   {t}" for t in result["new_traces"]]
    lines += [f"missing     {t}  REGRESSION: {MISSING}" for t in result["missing_traces"]]
    lines.append(
        f"{len(result['regressions'])} regression(s), {len(result['improved'])} improved, "
        f"{len(result['new_traces'])} new, {len(result['missing_traces'])} missing"
    )
    return "\n".join(lines)
