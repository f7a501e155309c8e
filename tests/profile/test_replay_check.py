"""The ``profile-report`` scenario check: match on the bundled scenario, MISMATCH on a changed one."""

from __future__ import annotations

import shutil
from pathlib import Path

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
