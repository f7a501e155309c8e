"""The replay layer: every area's check runs through wiring's replay and the SDK client in process,
and a check that fails says why in the scenario's terms."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from wslmcp.scenario.checks import CHECKS, resolve, run_checks
from wslmcp.scenario.loader import Scenario

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"


def test_every_check_kind_lives_in_the_replay_layer() -> None:
    assert all(target.startswith("wslmcp.replay.") for target in CHECKS.values())
    for kind in CHECKS:
        assert callable(resolve(kind))


def test_a_shell_replay_miss_is_reported_as_the_miss_not_as_a_bare_error(tmp_path: Path) -> None:
    copy = tmp_path / "shell-basic"
    shutil.copytree(SCENARIOS / "shell-basic", copy)
    manifest = copy / "scenario.json"
    data = json.loads(manifest.read_text(encoding="utf-8"))
    first_exec = next(c for c in data["shell"]["calls"] if c["tool"] == "wsl_exec")
    first_exec["args"]["command"] = "echo never-recorded"
    manifest.write_text(json.dumps(data), encoding="utf-8")
    [result] = run_checks(Scenario.load(copy))
    assert not result.ok
    assert "wsl_exe replay of scenario 'shell-basic': not recorded: wsl.exe -d Ubuntu" in result.detail
    assert "The scenario offers: " in result.detail


def test_an_observe_answer_that_differs_names_the_call_and_its_file(tmp_path: Path) -> None:
    copy = tmp_path / "multi-distro"
    shutil.copytree(SCENARIOS / "multi-distro", copy)
    data = json.loads((copy / "scenario.json").read_text(encoding="utf-8"))
    expected = copy / data["observe"]["calls"][0]["expected"]
    answer = json.loads(expected.read_text(encoding="utf-8"))
    answer["is_error"] = not answer.get("is_error", False)
    expected.write_text(json.dumps(answer), encoding="utf-8")
    [result] = run_checks(Scenario.load(copy))
    assert not result.ok
    assert (
        result.detail
        == f"call 1 ({data['observe']['calls'][0]['tool']}) differs from {data['observe']['calls'][0]['expected']}"
    )
