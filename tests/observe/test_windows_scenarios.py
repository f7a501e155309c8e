"""The Windows-side scenarios replayed through the observe server (the replay layer, in process):
every answer equals its expected file (what `make run` compares) and the facts each scenario exists
to show are asserted explicitly."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest

from wslmcp.replay.observe import compared, run
from wslmcp.scenario.loader import Scenario

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
NAMES = ["docker-build-host", "no-hypervisor", "access-denied", "docker-500", "docker-absent"]


@functools.cache
def answers(name: str) -> list[dict[str, Any]]:
    return run(Scenario.load(SCENARIOS / name))


def data(name: str, call: int) -> Any:
    return answers(name)[call - 1]["result"]["data"]


def warnings(name: str, call: int) -> list[str]:
    return list(answers(name)[call - 1]["result"]["snapshot"]["warnings"])


@pytest.mark.parametrize("name", NAMES)
def test_answers_equal_the_expected_files(name: str) -> None:
    for want, got in compared(Scenario.load(SCENARIOS / name)):
        assert want == got


def test_the_worked_example_separates_wsl_docker_and_wslc() -> None:
    s = data("docker-build-host", 1)
    assert s["host_cpu_percent"] == s["cpu_breakdown"]["total"] == 62.5
    assert s["cpu_breakdown"] == {"total": 62.5, "windows": 10.0, "virtual_machines": 50.0, "other": 2.5}
    env = s["environments"]
    assert env["wsl"]["cpu_percent"] == pytest.approx(35.0)
    assert env["docker"]["cpu_percent"] == pytest.approx(10.0)
    assert env["wslc"]["cpu_percent"] == pytest.approx(5.0)
    assert s["cpu_overlap_unresolved"] is False and warnings("docker-build-host", 1) == []
    assert data("docker-build-host", 10)["environments"]["wsl"]["cpu_percent"] == pytest.approx(35.0)


def test_the_observed_hierarchy() -> None:
    containers = data("docker-build-host", 2)
    builder = next(c for c in containers if c["usage"]["name"] == "builder")
    assert builder["parent_ids"] == [] and builder["usage"]["memory_bytes"] == 1_288_490_188 - 209_715_200
    kids = data("docker-build-host", 3)
    assert {k["usage"]["name"] for k in kids} == {"node", "sh"}
    assert all(k["parent_ids"] == [builder["resource_id"]] for k in kids)
    assert kids[0]["usage"]["args"].startswith("node /app/node_modules/.bin/vite build")
    hosts = data("docker-build-host", 4)
    assert [h["usage"]["name"] for h in hosts] == ["vmmemWSL", "vmmemwslc-3f2a9c"]
    wsl_kids = data("docker-build-host", 5)
    assert wsl_kids and all(k["usage"]["environment"] == "wsl" for k in wsl_kids)
    assert [k["usage"]["name"] for k in data("docker-build-host", 6)] == ["agent-sandbox"]
    apps = data("docker-build-host", 7)
    assert {a["usage"]["name"] for a in apps} == {"Code.exe", "chrome.exe"} and all(
        a["usage"]["pid"] is None for a in apps
    )
    members = data("docker-build-host", 8)
    assert sum(m["usage"]["memory_bytes"] for m in members) == apps[0]["usage"]["memory_bytes"]


def test_no_hypervisor_gives_the_native_breakdown() -> None:
    s = data("no-hypervisor", 1)
    b = s["cpu_breakdown"]
    assert b["total"] == pytest.approx(37.5) and b["windows"] == b["total"]
    assert b["virtual_machines"] == 0.0 and b["other"] == 0.0 and s["host_cpu_percent"] == b["total"]
    assert s["environments"]["docker"] is None and s["cpu_overlap_unresolved"] is False


def test_access_denied_rows_stay_null_and_are_counted() -> None:
    rows = {r["usage"]["name"]: r for r in data("access-denied", 2)}
    for name in ("System", "MsMpEng.exe", "csrss.exe"):
        assert rows[name]["usage"]["cpu_percent"] is None and rows[name]["cores_used"] is None
    (w,) = warnings("access-denied", 1)
    assert "3 Windows processes" in w and "elevated" in w
    assert data("access-denied", 1)["environments"]["windows"]["cpu_percent"] is None


def test_a_500_and_a_hang_null_docker_with_the_reason_and_keep_the_rest() -> None:
    first, second = data("docker-500", 1), data("docker-500", 2)
    for s in (first, second):
        assert s["environments"]["docker"] is None and s["cpu_overlap_unresolved"] is True
        assert s["host_cpu_percent"] == 62.5 and s["environments"]["wsl"]["cpu_percent"] is not None
    assert any("HTTP 500" in w for w in warnings("docker-500", 1))
    assert any("timed out" in w for w in warnings("docker-500", 2))


def test_docker_absent_is_null_not_zero_and_resolved() -> None:
    s = data("docker-absent", 1)
    assert s["environments"]["docker"] is None and s["environments"]["wslc"] is None
    assert s["cpu_overlap_unresolved"] is False
    assert any("no Docker daemon" in w for w in warnings("docker-absent", 1))
