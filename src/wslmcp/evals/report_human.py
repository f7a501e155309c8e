"""The human table: one line per trace, its failing checks below with the call and the reason."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from wslmcp.wording import counted, one_line


def _short_args(arguments: Any, limit: int = 60) -> str:
    if not isinstance(arguments, dict):
        return ""
    text = "{" + ", ".join(f"{k}: {json.dumps(v)}" for k, v in arguments.items()) + "}"
    return text if len(text) <= limit else text[: limit - 4] + "...}"


MIN_WIDTHS = (40, 19, 9)  # the trace, case and verdict columns, wider when a name needs it
SHOWN = {"pass": "pass", "fail": "FAIL", "unreplayable": "UNREPLAYABLE", "error": "ERROR"}


def block(
    trace: Mapping[str, Any], verbose: bool = False, widths: tuple[int, int, int] = MIN_WIDTHS
) -> list[str]:
    """One trace's line (``widths``: of the trace, case and verdict columns) and its failures below;
    an unreplayable trace's checks are no grade, so its line names the calls the scenario lacks."""
    verdict = trace["verdict"]
    failed = [c for c in trace["checks"] if c["status"] == "fail"] if verdict != "unreplayable" else []
    names = ", ".join(c["id"] + ("" if c["severity"] == "error" else " (warn)") for c in failed)
    case = trace.get("case") or "-"
    lines = [f"{trace['id']:<{widths[0]}}{case:<{widths[1]}}{SHOWN[verdict]:<{widths[2]}}{names}".rstrip()]
    if verdict == "error":
        lines.append(f"  {trace.get('error')}")
        return lines
    calls = {c["n"]: c for c in trace["calls"]}
    for check in failed:
        first = next((e for e in check.get("evidence", []) if isinstance(e, int)), None)
        where = ""
        if first is not None and first in calls:
            where = f"call {first} {calls[first]['tool']} {_short_args(calls[first]['arguments'])}: "
        lines.append(f"  {where}{check['id']}: {one_line(check['message'], 240)}")
        lines.extend(f'    "{one_line(s)}"' for s in check.get("sentences", [])[:3])
    if failed:
        lines.extend(_failing_calls(trace["calls"]))
    for n in trace.get("unreplayable", []):
        lines.append(
            f"  call {n} {calls[n]['tool']}: unreplayable: {one_line(calls[n].get('unreplayable', ''))}"
        )
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


def _failing_calls(calls: Sequence[Mapping[str, Any]]) -> list[str]:
    """Every call answered with an error (as replayed, else as recorded): what it was told and why."""
    lines = []
    for call in calls:
        result = call.get("replayed") or call["recorded"]
        if result.get("status") in ("tool_error", "jsonrpc_error", "client_error"):
            code = f" {result['code']}" if result.get("code") is not None else ""
            said = one_line(str(result.get("message", "")), 160)
            lines.append(
                f"  call {call['n']} {call['tool']} {_short_args(call['arguments'])} failed:"
                f" {result['status']}{code}: {said}"
            )
    return lines


def table(traces: Sequence[Mapping[str, Any]], summary: Mapping[str, Any], verbose: bool = False) -> str:
    widths = (
        max([MIN_WIDTHS[0], *(len(t["id"]) + 2 for t in traces)]),
        max([MIN_WIDTHS[1], *(len(t.get("case") or "-") + 2 for t in traces)]),
        max([MIN_WIDTHS[2], *(len(SHOWN[t["verdict"]]) + 2 for t in traces)]),
    )
    lines = [f"{'TRACE':<{widths[0]}}{'CASE':<{widths[1]}}{'VERDICT':<{widths[2]}}FAILED CHECKS"]
    for trace in traces:
        lines.extend(block(trace, verbose, widths))
    unreplayable = f"{summary['unreplayable']} unreplayable, " if summary.get("unreplayable") else ""
    lines.append(
        f"{counted(summary['traces'], 'trace')}: {summary['passed']} passed, {summary['failed']} failed, "
        f"{unreplayable}{counted(summary['errors'], 'error')}"
    )
    return "\n".join(lines)
