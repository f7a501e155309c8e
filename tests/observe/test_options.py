"""Startup options (parsed in process; tests/observe/test_stdio_real.py checks the exit codes) and
the scenario manifest's observe section."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from wslmcp.observe.options import Options, UsageError, parse_options
from wslmcp.scenario.loader import Scenario
from wslmcp.scenario.manifest import ScenarioError
from wslmcp.scenario.sections import read_section

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"


def test_defaults() -> None:
    assert parse_options([]) == Options(interval_ms=3000, wsl_only=False, docker=True, wslc=True)
    assert (parse_options([]).history_interval_ms, parse_options([]).history_minutes) == (5000, 60)


def test_history_options() -> None:
    opts = parse_options(["--history-interval-ms", "500", "--history-minutes=1440"])
    assert (opts.history_interval_ms, opts.history_minutes) == (500, 1440)
    assert parse_options(["--history-minutes", "0", "--history-interval-ms=60000"]).history_minutes == 0


def test_every_accepted_option() -> None:
    opts = parse_options(
        ["--interval-ms", "100", "--wsl-only", "--no-docker", "--no-wslc", "--distro", " Ubuntu "]
    )
    assert opts == Options(interval_ms=100, wsl_only=True, docker=False, wslc=False, distro="Ubuntu")
    assert parse_options(["--interval-ms=60000", "--replay=dir"]) == Options(interval_ms=60000, replay="dir")


@pytest.mark.parametrize(
    "args", [["--help"], ["-h"], ["-h", "--wsl-only"], ["--interval-ms", "99", "--help"]]
)
def test_help_wherever_it_is_given(args: list[str]) -> None:
    assert parse_options(args).help


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--json"], "unrecognized arguments: --json"),
        (["--interval-ms"], "requires a value"),
        (["--interval-ms", "99"], "at least 100"),
        (["--interval-ms", "60001"], "at most 60000"),
        (["--interval-ms", "-5"], "whole number"),
        (["--interval-ms", "1e3"], "whole number"),
        (["--interval-ms", "１００"], "whole number"),
        (["--distro", "  "], "must not be empty"),
        (["--no-docker", "--no-docker"], "more than once"),
        (["--wsl-only=yes"], "unrecognized arguments: --wsl-only=yes"),
        (["extra"], "unrecognized arguments: extra"),
        (["--history-interval-ms", "499"], "--history-interval-ms must be at least 500"),
        (["--history-interval-ms", "60001"], "--history-interval-ms must be at most 60000"),
        (["--history-interval-ms", "5s"], "--history-interval-ms must be a whole number of milliseconds"),
        (["--history-interval-ms"], "--history-interval-ms requires a value"),
        (["--history-minutes", "1441"], "--history-minutes must be at most 1440"),
        (["--history-minutes", "-1"], "--history-minutes must be a whole number of minutes"),
        (["--history-minutes", "1", "--history-minutes=2"], "--history-minutes given more than once"),
    ],
)
def test_rejected(args: list[str], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        parse_options(args)


def _with_section(tmp_path: Path, section: object) -> Scenario:
    copy = tmp_path / "s"
    shutil.copytree(SCENARIOS / "slow-build", copy)
    manifest = json.loads((copy / "scenario.json").read_text())
    manifest["observe"] = section
    (copy / "scenario.json").write_text(json.dumps(manifest))
    return Scenario.load(copy)


@pytest.mark.parametrize(
    ("section", "key"),
    [
        ({"surprise": 1}, "observe.surprise"),
        ({"platform": "mac"}, "observe.platform"),
        ({"args": "--wsl-only"}, "observe.args"),
        ({"wsl_interop": "yes"}, "observe.wsl_interop"),
        ({"host": {"logical_cpus": 0}}, "observe.host.logical_cpus"),
        ({"host": {"logical_cpus": 4, "cpu_breakdown": {"total": 1}}}, "observe.host.cpu_breakdown"),
        (
            {"host": {"logical_cpus": 4, "memory": {"total_bytes": -1, "available_bytes": 0}}},
            "observe.host.memory",
        ),
        ({"calls": [{"arguments": {}}]}, "observe.calls"),
    ],
)
def test_bad_observe_sections_name_the_key(tmp_path: Path, section: object, key: str) -> None:
    with pytest.raises(ScenarioError) as err:
        read_section(_with_section(tmp_path, section))
    assert err.value.key == key
