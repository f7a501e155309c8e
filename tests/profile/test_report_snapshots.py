"""Syrupy snapshots of the JSON and human reports for every profile fixture home (``scenarios/profile-*``).

Each run replays the scenario: its fixture home at its virtual path, its recorded server answers
(``--no-query`` when it has none) and its clock, so the output is deterministic.
"""

from __future__ import annotations

import json

import pytest
from syrupy.assertion import SnapshotAssertion

from tests.profile.homes import SCENARIOS
from wslmcp.replay.profile import render
from wslmcp.scenario.loader import Scenario

HOMES = sorted(
    p.name for p in SCENARIOS.glob("profile-*") if (p / "scenario.json").is_file() and (p / "home").is_dir()
)


def args_for(scenario: Scenario, extra: list[str]) -> list[str]:
    has_answers = scenario.section("profile").get("mcp_answers") is not None
    return [*extra, "--prune", *([] if has_answers else ["--no-query"])]


@pytest.mark.parametrize("name", HOMES)
def test_json_report(name: str, snapshot: SnapshotAssertion) -> None:
    scenario = Scenario.load(SCENARIOS / name)
    doc = json.loads(render(scenario, args_for(scenario, ["--json"])))
    assert doc["schema"] == "mcp-top/v3"
    assert doc == snapshot


@pytest.mark.parametrize("name", HOMES)
def test_human_report(name: str, snapshot: SnapshotAssertion) -> None:
    scenario = Scenario.load(SCENARIOS / name)
    text = render(scenario, args_for(scenario, []))
    assert text.startswith(("Coverage:", "=== ", "no supported CLIs"))
    assert text == snapshot


@pytest.mark.parametrize("name", HOMES)
def test_snapshot_document(name: str, snapshot: SnapshotAssertion) -> None:
    scenario = Scenario.load(SCENARIOS / name)
    doc = json.loads(render(scenario, ["snapshot", *args_for(scenario, [])[1:]]))
    assert doc["schema"] == "mcp-top-snapshot/v1"
    assert doc == snapshot
