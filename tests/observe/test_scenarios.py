"""The observe scenarios replayed through `wslmcp observe --replay DIR` over stdio: every tool
answer is pinned by a syrupy snapshot and must equal the expected JSON the scenario stores (what
`make run` compares). The facts each scenario exists to show are asserted explicitly too."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion

from wslmcp.replay.observe import check, compared, run
from wslmcp.scenario.loader import Scenario

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
NAMES = ["slow-build", "multi-distro", "hostile-names"]


@functools.cache
def answers(name: str) -> list[dict[str, Any]]:
    return run(Scenario.load(SCENARIOS / name))


@pytest.mark.parametrize("name", NAMES)
def test_every_tool_answer_matches_its_snapshot(name: str, snapshot: SnapshotAssertion) -> None:
    assert answers(name) == snapshot


@pytest.mark.parametrize("name", NAMES)
def test_answers_equal_the_expected_files_make_run_compares(name: str) -> None:
    for want, got in compared(Scenario.load(SCENARIOS / name)):
        assert want == got


def data(name: str, call: int) -> Any:
    return answers(name)[call - 1]["result"]["data"]


def test_slow_build_shows_one_busy_core_on_a_quarter_busy_16_cpu_host() -> None:
    summary = data("slow-build", 1)
    assert summary["host_logical_cpu_count"] == 16 and summary["host_cpu_percent"] == 25.4
    top = data("slow-build", 2)[0]
    assert (
        top["usage"]["name"] == "gw_sh" and top["cores_used"] == 1.0 and top["usage"]["cpu_percent"] == 6.25
    )
    assert data("slow-build", 4) == [] and data("slow-build", 5) == []  # no children, no containers
    assert answers("slow-build")[8]["result"]["error"]["code"] == "unknown_resource"
    assert answers("slow-build")[9]["is_error"] is False
    assert answers("slow-build")[10] == {"jsonrpc_error": -32602}


def test_multi_distro_labels_additional_distros_and_reports_a_stopped_one() -> None:
    sources = {r["usage"].get("source") for r in data("multi-distro", 2)}
    assert sources == {None, "Debian", "Alpine"}
    assert [r["usage"]["name"] for r in data("multi-distro", 4)] == ["postgres"]
    assert data("multi-distro", 5) == []  # case-sensitive
    later = answers("multi-distro")[6]["result"]
    assert any("'Alpine' could not be sampled" in w for w in later["snapshot"]["warnings"])
    assert later["data"]["environments"]["wsl"]["memory_bytes"] is None
    assert later["data"]["environments"]["wsl"]["cpu_percent"] is not None  # kernel CPU stays valid


def test_hostile_names_survive_and_reused_pids_get_no_rate() -> None:
    rows = {r["usage"]["pid"]: r for r in data("hostile-names", 1)}
    names = {pid: r["usage"]["name"] for pid, r in rows.items()}
    assert names[200] == "my proc (x)" and names[201] == ") ) ("
    assert names[202] == "line\nbreak" and names[203] == "bad\ufffd\ufffdutf"
    # the kernel comm (first "(" to last ")") wins over an argv[0] that disagrees with it
    assert names[204] == "evil) R 1 2 3" and rows[204]["usage"]["args"] == "/usr/bin/evil) R 1 --flag"
    assert rows[300]["usage"]["cpu_percent"] is None and rows[300]["cores_used"] is None  # PID reused
    # new in the closing sample, but its start time lies long before the window: one reading tells
    # nothing of what it used inside it (one born inside the window is rated: tests/observe/test_procstat.py)
    assert rows[301]["usage"]["cpu_percent"] is None
    assert rows[200]["usage"]["cpu_percent"] == 2.5  # 30 ticks / 3 s / 4 CPUs


@pytest.mark.parametrize("name", ["slow-build"])
def test_the_replay_check_reports_a_match(name: str) -> None:
    result = check(Scenario.load(SCENARIOS / name), {"kind": "observe-tools"})
    assert result.ok, result.detail


def test_a_changed_expected_answer_is_a_mismatch(tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "hostile-names"
    shutil.copytree(SCENARIOS / "hostile-names", copy)
    target = copy / "expected" / "07-get_system_summary.json"
    doc = json.loads(target.read_text(encoding="utf-8"))
    doc["result"]["data"]["host_logical_cpu_count"] = 99
    target.write_text(json.dumps(doc), encoding="utf-8")
    result = check(Scenario.load(copy), {"kind": "observe-tools"})
    assert not result.ok and "call 7" in result.detail


def test_pressure_is_compared_wherever_the_expectation_states_it(tmp_path: Path) -> None:
    """hostile-names' summary was written before get_system_summary had pressure evidence, so the
    answer is compared without it; an expectation that states pressure is held to it."""
    import shutil

    copy = tmp_path / "hostile-names"
    shutil.copytree(SCENARIOS / "hostile-names", copy)
    target = copy / "expected" / "07-get_system_summary.json"
    doc = json.loads(target.read_text(encoding="utf-8"))
    assert (
        "pressure" not in doc["result"]["data"] and check(Scenario.load(copy), {"kind": "observe-tools"}).ok
    )
    doc["result"]["data"]["pressure"] = {"memory": {}, "io": {}, "cpu": {}, "warnings": []}
    target.write_text(json.dumps(doc), encoding="utf-8")
    result = check(Scenario.load(copy), {"kind": "observe-tools"})
    assert not result.ok and "call 7" in result.detail
