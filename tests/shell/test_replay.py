"""The recorded scenario replays through the real server code, and a regression shows as a mismatch."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from wslmcp.scenario.checks import run_checks
from wslmcp.scenario.loader import Scenario

SCENARIO = Path(__file__).resolve().parents[2] / "scenarios" / "shell-basic"


def test_the_recorded_scenario_matches() -> None:
    [result] = run_checks(Scenario.load(SCENARIO))
    assert result.ok, result.detail
    assert result.detail.startswith("14 tool calls replayed")


def test_a_changed_reply_is_a_mismatch(tmp_path: Path) -> None:
    copy = tmp_path / "shell-basic"
    shutil.copytree(SCENARIO, copy)
    expected = copy / "expected" / "03-wsl_exec.json"
    reply = json.loads(expected.read_text())
    reply["text"] = reply["text"].replace("exit code: 3", "exit code: 0")
    expected.write_text(json.dumps(reply))
    [result] = run_checks(Scenario.load(copy))
    assert not result.ok and "call 3 (wsl_exec) differs" in result.detail


def test_a_changed_configuration_misses_the_recording(tmp_path: Path) -> None:
    copy = tmp_path / "shell-basic"
    shutil.copytree(SCENARIO, copy)
    manifest = json.loads((copy / "scenario.json").read_text())
    manifest["shell"]["env"]["WSL_USER"] = "root"
    (copy / "scenario.json").write_text(json.dumps(manifest))
    [result] = run_checks(Scenario.load(copy))
    assert not result.ok and "not recorded" in result.detail


WORKBENCH = SCENARIO.parent / "shell-workbench"


def test_the_recorded_workbench_scenario_matches() -> None:
    """A build read while it runs, a near miss then an edit, a search, input and a stop: each reply
    as recorded, the background processes' output handed over at the recorded looks."""
    [result] = run_checks(Scenario.load(WORKBENCH))
    assert result.ok, result.detail
    assert result.detail.startswith("16 tool calls replayed")


def test_output_handed_over_at_other_looks_shows_in_the_replies(tmp_path: Path) -> None:
    copy = tmp_path / "shell-workbench"
    shutil.copytree(WORKBENCH, copy)
    manifest = json.loads((copy / "scenario.json").read_text())
    live = next(e for e in manifest["exchanges"]["wsl_exe"] if "looks" in e)
    first = live["looks"][0]
    live["looks"][0] = [first[0], first[1] - 5, first[2]]  # five bytes fewer by the first look
    (copy / "scenario.json").write_text(json.dumps(manifest))
    [result] = run_checks(Scenario.load(copy))
    assert not result.ok and "differs" in result.detail
