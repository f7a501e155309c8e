"""The recorded exchange records (``wslmcp.scenario.exchanges``): the one place the formats are read
and written, by the manifest's validation, the twins and the recorders alike."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from wslmcp.scenario.exchanges import (
    KINDS,
    EngineExchange,
    ProcessExchange,
    Stream,
    answers_to_json,
    read_answers,
)
from wslmcp.scenario.fields import Fields
from wslmcp.scenario.loader import Scenario, discover
from wslmcp.scenario.manifest import SCHEMA, ScenarioError, read_manifest


def _bundled(repo: Path) -> list[tuple[Scenario, str, int, dict[str, Any]]]:
    found = []
    for path in discover(repo / "scenarios"):
        scenario = Scenario.load(path)
        for boundary, items in scenario.manifest.get("exchanges", {}).items():
            found.extend((scenario, boundary, i, item) for i, item in enumerate(items))
    return found


def test_every_bundled_record_reads_and_writes_back_as_the_same_record(repo: Path) -> None:
    bundled = _bundled(repo)
    assert {boundary for _, boundary, _, _ in bundled} == set(KINDS)
    for scenario, boundary, i, item in bundled:
        fields = Fields(scenario.root / "scenario.json")
        record = KINDS[boundary].read(item, f"exchanges.{boundary}[{i}]", fields, scenario.root)
        again = KINDS[boundary].read(record.to_json(), "again", fields, scenario.root)
        assert again == record, (scenario.name, boundary, i)


def test_a_recorded_scenarios_records_are_exactly_the_recorders_form(repo: Path) -> None:
    """What ``wslmcp scenario record`` wrote is what ``to_json`` writes, key order included."""
    recorded = [b for b in _bundled(repo) if b[0].manifest.get("source") == "recorded"]
    assert recorded
    for scenario, boundary, i, item in recorded:
        record = KINDS[boundary].read(item, "", Fields(scenario.root / "scenario.json"), scenario.root)
        assert list(record.to_json().items()) == list(item.items()), (scenario.name, i)


def test_optional_parts_are_written_only_when_they_say_something() -> None:
    assert ProcessExchange(("-l",)).to_json() == {"args": ["-l"], "exit_code": 0, "duration_ms": 0}
    assert ProcessExchange(("x",), absent=True).to_json() == {"args": ["x"], "absent": True}
    full = ProcessExchange(
        ("a",),
        "0" * 64,
        Stream("o", "bytes", 9),
        Stream("e", "utf-8"),
        None,
        5,
        timed_out=True,
        overflowed=True,
    )
    assert list(full.to_json()) == [
        "args", "stdin_sha256", "stdout", "stdout_encoding", "stdout_total", "stderr", "stderr_encoding",
        "exit_code", "duration_ms", "timed_out", "overflowed",
    ]  # fmt: skip
    failed = EngineExchange("/x", {"a": "1"}, duration_ms=3, error="timeout", message="hung")
    assert list(failed.to_json()) == ["path", "query", "error", "message", "duration_ms"]
    answered = EngineExchange("/x", status=404, api_version="1.41", body="b", duration_ms=1)
    assert list(answered.to_json()) == ["path", "status", "api_version", "headers", "body", "duration_ms"]


def _manifest(tmp_path: Path, exchanges: dict[str, Any]) -> Path:
    (tmp_path / "out").write_bytes(b"x")
    (tmp_path / "scenario.json").write_text(
        json.dumps({"schema": SCHEMA, "name": "t", "exchanges": exchanges})
    )
    return tmp_path


@pytest.mark.parametrize(
    ("exchanges", "key", "expected"),
    [
        ({"wsl.exe": []}, "exchanges.wsl.exe", "a recorded boundary (docker_api, wsl_exe, wslc)"),
        ({"wsl_exe": [{"args": [], "stdin_sha256": "abc"}]}, "exchanges.wsl_exe[0].stdin_sha256", "64 lowercase"),
        ({"wsl_exe": [{"args": [], "stdout": "out", "stdout_total": -1}]}, "exchanges.wsl_exe[0].stdout_total",
         "an integer >= 0"),
        ({"wsl_exe": [{"args": [], "stdout": "missing"}]}, "exchanges.wsl_exe[0].stdout", "an existing file"),
        ({"wsl_exe": [{"args": [], "timed_out": "yes"}]}, "exchanges.wsl_exe[0].timed_out", "true or false"),
        ({"wslc": [{"args": ["x"], "absent": 1}]}, "exchanges.wslc[0].absent", "true or false"),
        ({"docker_api": [{"path": "/x", "error": "timeout", "message": ""}]}, "exchanges.docker_api[0].message",
         "a non-empty string"),
    ],
)  # fmt: skip
def test_a_bad_record_is_named_by_its_key(
    tmp_path: Path, exchanges: dict[str, Any], key: str, expected: str
) -> None:
    with pytest.raises(ScenarioError) as info:
        read_manifest(_manifest(tmp_path, exchanges))
    assert (info.value.key, expected in info.value.expected) == (key, True), info.value


def test_the_answers_file_reads_back_what_it_writes(tmp_path: Path) -> None:
    doc = {
        "schema": "wslmcp-mcp-answers/1",
        "answers": [{"name": "a", "tools": [{"name": "t"}], "instructions": "use it", "duration_ms": 1500}],
    }
    answers = read_answers(doc, Fields(tmp_path / "a.json"), "profile.mcp_answers")
    assert (answers[0].instructions, answers[0].duration_s) == ("use it", 1.5)
    assert read_answers(answers_to_json(answers), Fields(tmp_path / "a.json"), "") == answers
    with pytest.raises(ScenarioError, match=r"answers\[0\]\.error a string or null"):
        read_answers({**doc, "answers": [{"name": "a", "error": 5}]}, Fields(tmp_path / "a.json"), "")
