"""Replay check ``observe-tools``: assemble the observe server on the scenario (as ``wslmcp observe
--replay DIR`` would, with the section's ``args``), make the scenario's scripted tool calls through
the SDK client in process, and compare every answer with the expected JSON it stores.

Calls come from the manifest's ``observe.calls``; an argument string ``{{snapshot:N}}`` is the
snapshot ID returned by call N (1-based) and ``{{resource:N:I}}`` the ``resource_id`` of item I of
call N's data. Snapshot IDs are random per run, so answers are compared with every snapshot ID
replaced by ``<snapshot K>`` in order of first appearance.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

import anyio
from mcp.shared.exceptions import MCPError

from wslmcp.catalogue import INVALID_ARGUMENTS
from wslmcp.observe.assembly import build
from wslmcp.observe.handlers import dispatch
from wslmcp.observe.options import parse_options
from wslmcp.observe.tools import SERVER
from wslmcp.protocol import INVALID_PARAMS
from wslmcp.replay.client import connect
from wslmcp.scenario.checks import CheckResult
from wslmcp.scenario.figure_versions import as_recorded
from wslmcp.scenario.loader import Scenario
from wslmcp.scenario.sections import ObserveSection, read_section
from wslmcp.serving import build_server
from wslmcp.wiring.replay import replaying

KIND = "observe-tools"
_REF = re.compile(r"\{\{(snapshot|resource):(\d+)(?::(\d+))?\}\}")


def _resolve(value: Any, answers: Sequence[Mapping[str, Any]]) -> Any:
    if isinstance(value, dict):
        return {k: _resolve(v, answers) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolve(v, answers) for v in value]
    if isinstance(value, str) and (m := _REF.fullmatch(value)):
        result = answers[int(m.group(2)) - 1]["result"]
        if m.group(1) == "snapshot":  # a snapshot's own, or the one a history answer names
            return result["snapshot"]["snapshot_id"] if "snapshot" in result else result["snapshot_id"]
        items = result["data"] if "data" in result else result["top"]
        return items[int(m.group(3) or 0)]["resource_id"]
    return value


REFUSED_ARGUMENTS = {"jsonrpc_error": INVALID_PARAMS}
"""How an expected file states a call refused for its arguments, in either protocol form."""


async def drive(
    scenario: Scenario, args: Sequence[str], calls: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """Answers to ``calls`` from a replaying server, each ``{"result": ..., "is_error": bool}`` or
    ``{"jsonrpc_error": code}``. The text block must equal structuredContent, or this raises."""
    run = replaying(scenario)
    server = build_server(SERVER, dispatch(build(run.boundaries, run.host, parse_options(args))))
    answers: list[dict[str, Any]] = []
    async with connect(server) as client:
        for call in calls:
            arguments = _resolve(call.get("arguments", {}), answers)
            try:
                res = await client.call_tool(call["tool"], arguments)
            except MCPError as exc:
                answers.append({"jsonrpc_error": exc.code})
                continue
            if (
                res.is_error
                and (res.structured_content or {}).get("error", {}).get("code") == INVALID_ARGUMENTS
            ):
                answers.append(REFUSED_ARGUMENTS)  # the 2025-11-25 form of the same refusal
                continue
            text = res.content[0].text if res.content and res.content[0].type == "text" else None
            if text is None or json.loads(text) != res.structured_content:
                raise AssertionError(f"call {call['tool']}: the text block differs from structuredContent")
            answers.append({"result": res.structured_content, "is_error": bool(res.is_error)})
    return answers


def normalize(answers: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    names: dict[str, str] = {}
    resources: dict[str, str] = {}

    def rid(value: Any) -> Any:
        if not isinstance(value, str):
            return value
        return resources.setdefault(value, f"<resource {len(resources) + 1}>")

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            out = {k: walk(v) for k, v in value.items()}
            sid = out.get("snapshot_id")
            if isinstance(sid, str):  # a snapshot's metadata, or the snapshot a history answer names
                out["snapshot_id"] = names.setdefault(sid, f"<snapshot {len(names) + 1}>")
            if "resource_id" in out:  # a resource, or a history consumer still alive
                out["resource_id"] = rid(out["resource_id"])
            if "parent_ids" in out and "usage" in out:
                out["parent_ids"] = [rid(p) for p in out.get("parent_ids", [])]
            return out
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value

    return [walk(dict(a)) for a in answers]


def run(scenario: Scenario, section: ObserveSection | None = None) -> list[dict[str, Any]]:
    """The normalized answers to the scenario's ``observe.calls``."""
    section = section or read_section(scenario)
    answers: list[dict[str, Any]] = anyio.run(drive, scenario, section.args, section.calls)
    return normalize(answers)


#: What answers gained after some bundled expectations were written: per tool, keys of the
#: answer's ``result.data`` (get_system_summary's pressure evidence). An answer is compared without
#: such a key when its expectation lacks it, as the expectation was written before it existed.
ADDED_SINCE: dict[str, tuple[str, ...]] = {"get_system_summary": ("pressure",)}


def _as_expected(tool: str, answer: dict[str, Any], expected: Mapping[str, Any]) -> dict[str, Any]:
    if isinstance(answer.get("result"), dict):  # figures an earlier version measured otherwise
        answer = {**answer, "result": as_recorded(expected.get("result"), answer["result"])}
    data, wanted = answer.get("result", {}).get("data"), expected.get("result", {}).get("data")
    if not isinstance(data, dict) or not isinstance(wanted, dict):
        return answer
    predates = [key for key in ADDED_SINCE.get(tool, ()) if key not in wanted]
    if not predates:
        return answer
    kept = {key: value for key, value in data.items() if key not in predates}
    return {**answer, "result": {**answer["result"], "data": kept}}


def compared(
    scenario: Scenario, section: ObserveSection | None = None
) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Each call's (expected, answer), as ``make run`` compares them: both normalized, so files
    written before resource IDs carried the server session's epoch (raw ``r1-…`` IDs) compare by
    identity, not by spelling; the answer without what its expectation predates (``ADDED_SINCE``),
    and its figures an earlier version measured otherwise read as recorded where today's lie within
    what the change could move them (``scenario.figure_versions``)."""
    section = section or read_section(scenario)
    got = run(scenario, section)
    wanted = normalize(
        [json.loads(scenario.file(call["expected"]).read_text(encoding="utf-8")) for call in section.calls]
    )
    return [
        (expected, _as_expected(call["tool"], answer, expected))
        for call, answer, expected in zip(section.calls, got, wanted, strict=True)
    ]


def check(scenario: Scenario, spec: Mapping[str, Any]) -> CheckResult:
    section = read_section(scenario)
    for i, call in enumerate(section.calls):
        if not isinstance(call.get("expected"), str):
            return CheckResult(KIND, False, f"observe.calls[{i}] names no expected file")
    pairs = compared(scenario, section)
    for i, (call, (expected, answer)) in enumerate(zip(section.calls, pairs, strict=True), start=1):
        if expected != answer:
            return CheckResult(KIND, False, f"call {i} ({call['tool']}) differs from {call['expected']}")
    return CheckResult(KIND, True, f"{len(pairs)} tool calls match their expected answers")
