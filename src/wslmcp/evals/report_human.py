"""The human table: one line per trace, its failing checks below with the call and the reason."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any


def _short_args(arguments: Any, limit: int = 60) -> str:
    if not isinstance(arguments, dict):
        return ""
    text = "{" + ", ".join(f"{k}: {json.dumps(v)}" for k, v in arguments.items()) + "}"
    return text if len(text) <= limit else text[: limit - 4] + "...}"


def block(trace: Mapping[str, Any], verbose: bool = False) -> list[str]:
    failed = [c for c in trace["checks"] if c["status"] == "fail"]
    verdict = {"pass": "pass", "fail": "FAIL", "error": "ERROR"}[trace["verdict"]]
    names = ", ".join(c["id"] + ("" if c["severity"] == "error" else " (warn)") for c in failed)
    lines = [f"{trace['id']:<40}{(trace.get('case') or '-'):<19}{verdict:<9}{names}".rstrip()]
    if trace["verdict"] == "error":
        lines.append(f"  {trace.get('error')}")
        return lines
    calls = {c["n"]: c for c in trace["calls"]}
    for check in failed:
        first = next((e for e in check.get("evidence", []) if isinstance(e, int)), None)
        where = ""
        if first is not None and first in calls:
            where = f"call {first} {calls[first]['tool']} {_short_args(calls[first]['arguments'])}: "
        lines.append(f"  {where}{check['id']}: {check['message']}")
        lines.extend(f'    "{s}"' for s in check.get("sentences", [])[:3])
    for n in trace.get("unreplayable", []):
        lines.append(f"  call {n} {calls[n]['tool']}: unreplayable: {calls[n].get('unreplayable', '')[:200]}")
    if verbose:
        for call in trace["calls"]:
            for b in call.get("bindings", []):
                origin = b["origin"]
                src = f"call {origin['call']} {origin['path']}" if origin else "no earlier call"
                lines.append(f"  call {call['n']} {b['argument']}: {b['state']} ({src})")
        for check in trace["checks"]:
            if check["id"] == "replay.no_drift":
                for d in check.get("evidence", []):
                    if isinstance(d, dict):
                        lines.append(
                            f"  drift call {d['call']} {d['kind']}: {d['recorded']} -> {d['replayed']}"
                        )
    return lines


def table(traces: Sequence[Mapping[str, Any]], summary: Mapping[str, Any], verbose: bool = False) -> str:
    lines = [f"{'TRACE':<40}{'CASE':<19}{'VERDICT':<9}FAILED CHECKS"]
    for trace in traces:
        lines.extend(block(trace, verbose))
    lines.append(
        f"{summary['traces']} traces: {summary['passed']} passed, {summary['failed']} failed, {summary['errors']} errors"
    )
    return "\n".join(lines)
