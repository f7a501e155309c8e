"""Replay through the McpSession boundary: the twin for the rubric, the real servers for drift."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from tests.evals.pairs import GW, OBS, S1, B, listing, most_cpu, ok, snap
from wslmcp.boundaries.client_files import LocalClientFiles
from wslmcp.boundaries.mcp_session import ReplayTarget, SessionSpec, StdioMcpSessions
from wslmcp.evals import extract
from wslmcp.evals.cases import Case, Intent
from wslmcp.evals.replay import replay, to_result
from wslmcp.evals.rubric.drift import compare
from wslmcp.evals.session import Session
from wslmcp.fakes.mcp_session import SCHEMA, FakeMcpSessions

REPO = Path(__file__).resolve().parents[2]
SCENARIO = REPO / "scenarios" / "eval-slow-build"
INFO = ReplayTarget(str(SCENARIO), "eval-slow-build", ("--no-docker", "--no-wslc"), "Ubuntu")
TOOLS = ["get_system_summary", "list_resources", "inspect_resource", "list_children"]
S_REPLAY = "fedcba9876543210fedcba9876543210-1"
GW_REPLAY = {**GW, "resource_id": "r1-REPLAYED"}


def twin(calls: list[dict[str, object]]) -> FakeMcpSessions:
    session = {
        "kind": "observe",
        "scenario": "eval-slow-build",
        "args": ["--no-docker", "--no-wslc"],
        "tools": TOOLS,
        "calls": calls,
    }
    return FakeMcpSessions({"schema": SCHEMA, "sessions": [session]})


def answer(payload: dict[str, object]) -> dict[str, object]:
    result = ok(payload)
    return {"status": "ok", "content": result.content, "structured": result.structured, "error": None}


def test_replay_binds_ids_to_the_replayed_answers_and_queries_the_oracle() -> None:
    trace = (
        most_cpu("gw_sh")
        .obs(
            "inspect_resource",
            {"snapshot_id": S1, "resource_id": GW["resource_id"]},
            ok({"snapshot": snap(S1), "data": GW}),
        )
        .say("gw_sh")
        .trace
    )
    first = {"max_age_ms": 0, "sort_by": "cpu", "sort_order": "desc", "limit": 1}
    sessions = twin(
        [
            {
                "tool": "list_resources",
                "arguments": first,
                "answer": answer({"snapshot": snap(S_REPLAY), "data": [GW_REPLAY]}),
            },
            {
                "tool": "inspect_resource",
                "arguments": {"snapshot_id": S_REPLAY, "resource_id": "r1-REPLAYED"},
                "answer": answer({"snapshot": snap(S_REPLAY), "data": GW_REPLAY}),
            },
            {
                "tool": "list_resources",
                "arguments": {"snapshot_id": S_REPLAY, "sort_by": "cpu", "sort_order": "desc", "limit": 1},
                "answer": answer({"snapshot": snap(S_REPLAY), "data": [GW_REPLAY]}),
            },
        ]
    )
    case = Case("most-cpu", intent=Intent(sort_by="cpu"), names_top={"sort_by": "cpu"})
    session = Session(trace, {OBS: "observe"}, case)
    out = anyio.run(replay, sessions, session, INFO, case)
    assert out.sent[2] == {"snapshot_id": S_REPLAY, "resource_id": "r1-REPLAYED"}
    assert [b["state"] for b in out.bindings[2]] == ["bound", "bound"]
    assert out.oracle_top == ["gw_sh"]
    assert out.drift == []  # IDs differ, but normalization and binding line them up
    assert out.tools[OBS] == set(TOOLS)


def test_an_unrecorded_request_fails_the_twin_loudly() -> None:
    from wslmcp.fakes.replay import ReplayMiss

    trace = B().user("q").obs("list_children", {"snapshot_id": "x", "resource_id": "y"}, listing(S1)).trace
    with pytest.raises(ReplayMiss, match="mcp_session"):
        anyio.run(replay, twin([]), Session(trace, {OBS: "observe"}, Case("c")), INFO, None)


def test_a_live_trace_passes_no_drift_only_because_of_binding() -> None:
    """The bundled t14 was recorded against another server process: its snapshot IDs are not the
    replay's. Sent verbatim, the drill-down fails; bound by role, every answer matches."""
    path = SCENARIO / "eval" / "traces" / "t14-busiest-inspect-good.jsonl"
    trace = extract.read(LocalClientFiles(), str(path))
    session = Session(trace, {OBS: "observe"}, Case("c"))
    bound = anyio.run(replay, StdioMcpSessions(), session, INFO, None)
    assert bound.drift == [] and all(b["state"] == "bound" for b in bound.bindings[2])

    async def verbatim() -> list[dict[str, object]]:
        pairs = []
        async with StdioMcpSessions().open(SessionSpec("observe", str(SCENARIO), INFO.observe_args)) as live:
            for call in trace.calls:
                pairs.append((call.n, call.result, to_result(await live.call(call.tool, call.arguments))))
        return compare(pairs)

    drift = anyio.run(verbatim)
    assert [(d["call"], d["kind"]) for d in drift] == [(2, "status")]
    assert json.dumps(drift)  # evidence is JSON
