"""McpLauncher contract: the real adapter (real stdio servers) and the fake (answers recorded from
those same servers by ``RecordingMcpLauncher``) pass the same suite."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wslmcp.boundaries.mcp_launcher import McpLauncher, ServerSpec
from wslmcp.boundaries.mcp_stdio import StdioMcpLauncher
from wslmcp.fakes.mcp_launcher import SCHEMA, FakeMcpLauncher, load_answers
from wslmcp.fakes.replay import ReplayMiss

from .mcp_contract_servers import FIXTURE, SERVERS, record, spec


@pytest.fixture(params=["real", "fake"])
def launcher(request: pytest.FixtureRequest) -> McpLauncher:
    if request.param == "real":
        return StdioMcpLauncher()
    return FakeMcpLauncher.from_file(FIXTURE)


def test_answers_name_version_instructions_and_tools_as_listed(launcher: McpLauncher) -> None:
    answer = launcher.query(spec("nice"), 10.0)
    assert (answer.name, answer.error, answer.server_name, answer.server_version) == (
        "nice",
        None,
        "nice-server",
        "1.2.3",
    )
    assert answer.instructions == "Call tool_00000 first."
    assert answer.protocol_version in ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
    assert [t["name"] for t in answer.tools] == ["tool_00000", "tool_00001", "tool_00002"]
    assert answer.tools[0] == {
        "name": "tool_00000",
        "description": "Test tool number 0.",
        "inputSchema": {"type": "object", "properties": {"x": {"type": "integer"}}},
    }
    assert list(answer.tools[0]) == ["name", "description", "inputSchema"]  # received key order


def test_every_page_is_collected_in_order(launcher: McpLauncher) -> None:
    answer = launcher.query(spec("paged"), 10.0)
    assert [t["name"] for t in answer.tools] == [f"tool_{i:05d}" for i in range(7)]


def test_ids_echoed_as_floats_still_answer_their_requests(launcher: McpLauncher) -> None:
    answer = launcher.query(spec("floatid"), 10.0)
    assert (answer.error, [t["name"] for t in answer.tools]) == (None, ["tool_00000", "tool_00001"])


def test_no_tools_and_no_instructions(launcher: McpLauncher) -> None:
    answer = launcher.query(spec("empty"), 10.0)
    assert (answer.error, answer.tools, answer.instructions) == (None, (), None)


def test_stdout_junk_is_tolerated_and_reported(launcher: McpLauncher) -> None:
    answer = launcher.query(spec("chatty"), 10.0)
    assert answer.error is None and len(answer.tools) == 1
    assert answer.detail == "ignored 3 stdout line(s) that were not JSON-RPC"


@pytest.mark.parametrize(
    ("name", "error"),
    [
        ("exits", "server closed stdout before response id 1"),
        ("crashes", "server closed stdout before response id 2"),
        ("refuses", "initialize failed (code -32603)"),
        ("textcode", "initialize failed (no code)"),
        ("boolcode", "tools/list failed (no code)"),
        ("noresult", "tools/list response has no result object"),
        ("resulterror", "tools/list failed (code 7)"),
    ],
)
def test_failures_are_answers_not_exceptions(launcher: McpLauncher, name: str, error: str) -> None:
    answer = launcher.query(spec(name), 10.0)
    assert (answer.error, answer.tools, answer.server_name) == (error, (), None)


def test_an_initialize_result_that_is_not_an_object_leaves_the_server_unnamed(
    launcher: McpLauncher,
) -> None:
    answer = launcher.query(spec("nullinit"), 10.0)
    assert (answer.error, answer.server_name, answer.protocol_version, answer.instructions) == (
        None,
        None,
        None,
        None,
    )
    assert [t["name"] for t in answer.tools] == ["tool_00000", "tool_00001"]


def test_non_object_entries_are_dropped_and_nameless_tools_kept(launcher: McpLauncher) -> None:
    answer = launcher.query(spec("odd"), 10.0)
    assert answer.error is None
    assert [t.get("name") for t in answer.tools] == ["tool_00000", None, "tool_00001", "tool_00002"]
    assert answer.tools[1] == {"description": "A tool without a name.", "inputSchema": {}}


def test_a_lone_surrogate_in_a_description_is_passed_on(launcher: McpLauncher) -> None:
    answer = launcher.query(spec("surrogate"), 10.0)
    assert answer.error is None
    assert answer.tools[0]["description"] == "Lone surrogate \ud800 here."


def test_a_deadline_shorter_than_the_server_is_a_timeout(launcher: McpLauncher) -> None:
    answer = launcher.query(spec("slow"), 0.3)
    assert answer.error == "timeout after 0.3 seconds" and answer.tools == ()


def test_a_generous_deadline_gets_the_slow_answer(launcher: McpLauncher) -> None:
    answer = launcher.query(spec("slow"), 10.0)
    assert answer.error is None and len(answer.tools) == 2


# ---- the fake's own strictness, and the fixture's provenance -------------------------------


def test_fake_unknown_server_is_a_replay_miss() -> None:
    with pytest.raises(ReplayMiss, match=r"'nicer'.*nice"):
        FakeMcpLauncher.from_file(FIXTURE).query(ServerSpec(name="nicer", command="x"), 1.0)


def test_fixture_holds_no_launch_material() -> None:
    text = FIXTURE.read_text()
    assert "stdio_server.py" not in text and '"command"' not in text and '"args"' not in text


def test_fixture_is_a_faithful_recording(tmp_path: Path) -> None:
    """Recording the same servers again gives the committed fixture (timings aside)."""

    fresh = tmp_path / "answers.json"
    record(path=fresh)
    doc = json.loads(fresh.read_text())
    assert doc["schema"] == SCHEMA

    def strip(path: Path) -> list[dict[str, object]]:
        return [{k: v for k, v in a.__dict__.items() if k != "duration_s"} for a in load_answers(path)]

    assert strip(fresh) == strip(FIXTURE)
    assert [a["name"] for a in doc["answers"]] == sorted(SERVERS)
