"""The ``profile-report`` scenario check: match on the bundled scenario, MISMATCH on a changed one."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.profile.homes import SCENARIOS
from wslmcp.scenario.checks import run_checks
from wslmcp.scenario.loader import Scenario


def test_bundled_profile_scenario_matches() -> None:
    results = run_checks(Scenario.load(SCENARIOS / "profile-usage"))
    assert results and all(r.ok for r in results), [r.detail for r in results if not r.ok]


def test_a_changed_transcript_is_a_mismatch(tmp_path: Path) -> None:
    copy = tmp_path / "profile-usage"
    shutil.copytree(SCENARIOS / "profile-usage", copy)
    extra = copy / "home/.claude/projects/-home-user-proj/s-new.jsonl"
    extra.write_text(
        '{"type":"assistant","version":"2.1.0","timestamp":"2026-01-14T00:00:00Z",'
        '"message":{"content":[{"type":"tool_use","id":"n1","name":"mcp__spare__x"}]}}\n',
        encoding="utf-8",
    )
    results = run_checks(Scenario.load(copy))
    failed = [r for r in results if not r.ok]
    assert failed and "differs from expected/" in failed[0].detail


def _with_expected(tmp_path: Path, name: str, edit: Callable[[dict[str, Any]], None]) -> Scenario:
    """A copy of ``profile-configs`` whose ``expected/no-query.json`` went through ``edit``."""
    copy = tmp_path / "profile-configs"
    shutil.copytree(SCENARIOS / "profile-configs", copy)
    path = copy / "expected" / name
    doc = json.loads(path.read_text(encoding="utf-8"))
    edit(doc)
    path.write_text(json.dumps(doc, sort_keys=True) + "\n", encoding="utf-8")
    return Scenario.load(copy)


def _no_query(results: list[Any]) -> Any:
    (only,) = [r for r in results if "no-query.json" in r.detail]
    return only


def test_an_expected_file_pins_the_wslmcp_fields_it_states_and_no_others(tmp_path: Path) -> None:
    # written before the wslmcp part grew: it states neither "homes" nor per-row "home"/"tokens"
    older = _with_expected(tmp_path / "a", "no-query.json", lambda d: [d["wslmcp"].pop("homes", None)])
    assert _no_query(run_checks(older)).ok

    def wrong_stated_value(doc: dict[str, Any]) -> None:
        doc["wslmcp"]["servers"][0]["home"] = "/elsewhere"

    assert not _no_query(run_checks(_with_expected(tmp_path / "b", "no-query.json", wrong_stated_value))).ok

    def extra_row(doc: dict[str, Any]) -> None:
        doc["wslmcp"]["servers"].append(dict(doc["wslmcp"]["servers"][0]))

    assert not _no_query(run_checks(_with_expected(tmp_path / "c", "no-query.json", extra_row))).ok


def test_outside_the_wslmcp_key_the_document_is_compared_byte_for_byte(tmp_path: Path) -> None:
    def drop_a_v3_field(doc: dict[str, Any]) -> None:
        del doc["clis"][0]["servers"][0]["verdict"]

    assert not _no_query(run_checks(_with_expected(tmp_path, "no-query.json", drop_a_v3_field))).ok
