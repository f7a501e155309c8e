"""Scenario manifest validation: every failure names the file, the key and what was expected."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from wslmcp.scenario.loader import Scenario, discover
from wslmcp.scenario.manifest import SCHEMA, ScenarioError


def write(root: Path, manifest: dict[str, Any] | str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    text = manifest if isinstance(manifest, str) else json.dumps(manifest)
    (root / "scenario.json").write_text(text, encoding="utf-8")
    return root


def minimal(**extra: Any) -> dict[str, Any]:
    return {"schema": SCHEMA, "name": "t", **extra}


def test_minimal_manifest_loads(tmp_path: Path) -> None:
    sc = Scenario.load(write(tmp_path / "s", minimal(description="d")))
    assert (sc.name, sc.description, sc.timeline) == ("t", "d", [])


def test_bundled_scenarios_all_load(repo: Path) -> None:
    paths = discover(repo / "scenarios")
    assert paths
    for path in paths:
        Scenario.load(path)


@pytest.mark.parametrize(
    ("manifest", "key", "expected"),
    [
        ('{"name": "t", "schema": "wslmcp-scenario/1.0"}', "schema", 'the first key to be "schema"'),
        ({"schema": "wslmcp-scenario/2.0", "name": "t"}, "schema", "major version 1"),
        ({"schema": "wslmcp-scenario/1", "name": "t"}, "schema", '"wslmcp-scenario/<major>.<minor>"'),
        ({"schema": "other/1.0", "name": "t"}, "schema", '"wslmcp-scenario/<major>.<minor>"'),
        ({"schema": SCHEMA}, "name", "a non-empty string"),
        (minimal(colour="red"), "colour", "one of the known keys"),
        (minimal(source="guessed"), "source", '"recorded" or "hand-written"'),
        (minimal(timeline={}), "timeline", "a list of samples"),
        (minimal(timeline=[{"t_ms": -1}]), "timeline[0].t_ms", "an integer >= 0"),
        (minimal(timeline=[{"t_ms": 5}, {"t_ms": 5}]), "timeline[1].t_ms", "greater than 5"),
        (minimal(timeline=[{"t_ms": 0, "procfs": {"dir": "nope", "clk_tck": 100, "page_size": 4096}}]),
         "timeline[0].procfs.dir", "an existing directory"),
        (minimal(timeline=[{"t_ms": 0, "procfs": {"dir": "../..", "clk_tck": 100, "page_size": 4096}}]),
         "timeline[0].procfs.dir", "a path inside the scenario directory"),
        (minimal(exchanges={"wsl_exe": [{"args": "-l"}]}), "exchanges.wsl_exe[0].args", "a list of strings"),
        (minimal(exchanges={"wsl_exe": [{"args": [], "stdout_encoding": "latin1"}]}),
         "exchanges.wsl_exe[0].stdout_encoding", "one of"),
        (minimal(home={"dir": "h", "path": "/home/u", "mtime_default": 0}), "home.dir", "an existing directory"),
        (minimal(expect=[{"name": "x"}]), "expect[0].kind", "a non-empty string"),
        ("{not json", "line 1", "valid JSON"),
    ],
)  # fmt: skip
def test_invalid_manifests_name_file_key_and_expectation(
    tmp_path: Path, manifest: dict[str, Any] | str, key: str, expected: str
) -> None:
    root = write(tmp_path / "s", manifest)
    with pytest.raises(ScenarioError) as info:
        Scenario.load(root)
    assert info.value.file == str(root / "scenario.json")
    assert info.value.key == key
    assert expected in info.value.expected
    assert str(root / "scenario.json") in str(info.value)


def test_a_newer_minor_version_of_major_one_is_read(tmp_path: Path) -> None:
    assert Scenario.load(write(tmp_path / "s", {"schema": "wslmcp-scenario/1.7", "name": "t"})).name == "t"


def test_missing_directory_and_manifest(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match=r"absent: no such directory$"):
        Scenario.load(tmp_path / "absent")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ScenarioError, match="a scenario manifest file"):
        Scenario.load(tmp_path / "empty")


def test_a_broken_sample_in_a_copy_of_a_real_recording_is_named(tmp_path: Path, recorded_linux: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(recorded_linux, copy)
    manifest = json.loads((copy / "scenario.json").read_text())
    manifest["timeline"][1]["procfs"]["clk_tck"] = "100"
    (copy / "scenario.json").write_text(json.dumps(manifest))
    with pytest.raises(
        ScenarioError, match=r"timeline\[1\]\.procfs\.clk_tck: expected an integer >= 1, got \"100\""
    ):
        Scenario.load(copy)


def test_scenario_files_stay_inside_the_scenario(tmp_path: Path) -> None:
    sc = Scenario.load(write(tmp_path / "s", minimal()))
    assert sc.file("expected/a.json") == (tmp_path / "s" / "expected" / "a.json").resolve()
    for rel in ("../outside.json", str(tmp_path / "s" / "scenario.json"), "/etc/passwd"):
        with pytest.raises(ScenarioError, match="a path inside the scenario directory"):
            sc.file(rel)


def _with_files(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")


REPLY = json.dumps({"is_error": False, "text": "ok"})
ANSWERS = json.dumps({"schema": "wslmcp-mcp-answers/1", "answers": [{"name": "s", "tools": []}]})


@pytest.mark.parametrize(
    ("section", "files", "key", "expected"),
    [
        ({"shell": {"env": {"WSL_DISTRO": 1}, "calls": []}}, {}, "shell.env.WSL_DISTRO", "a string"),
        ({"shell": {"env": {}, "calls": []}}, {}, "shell.calls", "a non-empty list of tool calls"),
        ({"shell": {"env": {}, "calls": [{"args": {}, "expected": "e.json"}]}}, {"e.json": REPLY},
         "shell.calls[0].tool", "a non-empty string"),
        ({"shell": {"env": {}, "calls": [{"tool": "t", "args": [], "expected": "e.json"}]}}, {"e.json": REPLY},
         "shell.calls[0].args", "an object"),
        ({"shell": {"env": {}, "calls": [{"tool": "t", "expected": "e.json", "advance_s": -1}]}}, {"e.json": REPLY},
         "shell.calls[0].advance_s", "a number >= 0"),
        ({"shell": {"env": {}, "calls": [{"tool": "t", "expected": "missing.json"}]}}, {},
         "shell.calls[0].expected", "an existing file"),
        ({"shell": {"env": {}, "calls": [{"tool": "t", "expected": "e.json"}]}}, {"e.json": '{"text": "x"}'},
         "shell.calls[0].expected", '{"is_error": bool, "text": str}'),
        ({"profile": {"mcp_answers": "a.json"}}, {"a.json": '{"answers": []}'},
         "profile.mcp_answers", '"wslmcp-mcp-answers/1"'),
        ({"profile": {"mcp_answers": "a.json"}}, {"a.json": ANSWERS.replace('"tools": []', '"tools": {}')},
         "profile.mcp_answers", "string 'name' and a list of tool objects"),
        ({"profile": {"mcp_answers": "a.json", "project": "rel"}}, {"a.json": ANSWERS},
         "profile.project", "an absolute path"),
        ({"local_files": {"dir": "l", "path": "rel"}}, {"l/x": ""}, "local_files.path", "an absolute POSIX path"),
    ],
)  # fmt: skip
def test_every_fixture_format_is_validated_by_the_loader(
    tmp_path: Path, section: dict[str, Any], files: dict[str, str], key: str, expected: str
) -> None:
    root = write(tmp_path / "s", minimal(**section))
    _with_files(root, files)
    with pytest.raises(ScenarioError) as info:
        Scenario.load(root)
    assert (info.value.key, expected in info.value.expected) == (key, True), str(info.value)
