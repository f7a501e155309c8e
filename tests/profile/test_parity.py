"""Side by side with mcp-top 0.5.0 (the oracle, from the dev extras), on the same fixture home.

Both tools run on one copy of a scenario home, so no path needs rewriting: our ``--json`` minus
the "wslmcp" key must equal mcp-top's document, and the human output must be byte-identical.
Windows use ``--days 36500`` so the fixture's fixed timestamps stay inside them on any date (the
home's 1901 and 2999 sessions still fall out as old and future).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.profile.homes import copy_home
from wslmcp.profile.cli import main as wslmcp_profile
from wslmcp.replay.profile import as_today

pytest.importorskip("mcp_top", reason="mcp-top==0.5.0 (dev extra) is the parity oracle")


@pytest.fixture(scope="module")
def homes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return {
        name: copy_home(name, tmp_path_factory.mktemp(name) / "home")
        for name in ("profile-usage", "profile-configs")
    }


@pytest.fixture(scope="module")
def home(homes: dict[str, Path]) -> Path:
    return homes["profile-usage"]


def mcp_top(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcp_top", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        check=False,
    )


def ours(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    capsys.readouterr()
    code = wslmcp_profile(args)
    return code, capsys.readouterr().out


def base(home: Path) -> list[str]:
    return ["--home", str(home), "--project", str(home / "proj"), "--days", "36500"]


def without_ours(doc: dict[str, Any]) -> dict[str, Any]:
    assert "wslmcp" in doc
    return {k: v for k, v in doc.items() if k != "wslmcp"}


@pytest.mark.parametrize(
    ("scenario", "extra"),
    [
        ("profile-usage", ["--no-query", "--prune"]),
        ("profile-usage", ["--no-query", "--project-usage", "--prune"]),
        ("profile-usage", ["--no-query", "--cli", "codex", "--sessions", "1", "--project-usage"]),
        ("profile-usage", ["--prune", "--query-project"]),
        ("profile-usage", ["--prune", "--project-usage", "--timeout", "30"]),
        ("profile-configs", ["--no-query", "--prune", "--project-usage"]),
        ("profile-configs", ["--prune", "--query-project", "--timeout", "5"]),
    ],
    ids=[
        "usage-no-query",
        "usage-no-query-project-usage",
        "usage-codex-one-session",
        "usage-queried",
        "usage-queried-project-usage",
        "configs-no-query",
        "configs-queried",
    ],
)
def test_json_matches_mcp_top(
    homes: dict[str, Path], capsys: pytest.CaptureFixture[str], scenario: str, extra: list[str]
) -> None:
    home = homes[scenario]
    args = [*base(home), *extra, "--json"]
    theirs = mcp_top(args, home)
    code, mine = ours(args, capsys)
    assert (code, theirs.returncode) == (0, 0), theirs.stderr
    assert without_ours(json.loads(mine)) == json.loads(theirs.stdout)


@pytest.mark.parametrize(
    "extra", [["--no-query", "--prune", "--project-usage"], ["--prune", "--query-project"]]
)
def test_human_output_is_identical(home: Path, capsys: pytest.CaptureFixture[str], extra: list[str]) -> None:
    args = [*base(home), *extra]
    theirs = mcp_top(args, home)
    code, mine = ours(args, capsys)
    assert code == 0 and mine == as_today(theirs.stdout)  # one deliberate difference: our own name


def test_nothing_detected_note(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--home", str(tmp_path), "--project", str(tmp_path), "--no-query"]
    for extra in ([], ["--json"]):
        theirs = mcp_top([*args, *extra], tmp_path)
        _, mine = ours([*args, *extra], capsys)
        if extra:
            assert without_ours(json.loads(mine)) == json.loads(theirs.stdout)
        else:
            assert mine == theirs.stdout


def test_snapshots_and_diffs_match(home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = [*base(home), "--no-query"]
    theirs_old = json.loads(mcp_top([*args, "snapshot"], home).stdout)
    _, mine = ours([*args, "snapshot"], capsys)
    mine_old = json.loads(mine)
    assert {**mine_old, "generated_at": None} == {**theirs_old, "generated_at": None}
    theirs_new = json.loads(
        mcp_top([*args, "--sessions", "1", "snapshot", "--redact-identifiers"], home).stdout
    )
    _, mine = ours([*args, "--sessions", "1", "snapshot", "--redact-identifiers"], capsys)
    assert {**json.loads(mine), "generated_at": None} == {**theirs_new, "generated_at": None}

    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps(theirs_old), encoding="utf-8")
    # a smaller window: usage deltas must come out incomparable in both tools
    new.write_text(mcp_top([*args, "--sessions", "1", "snapshot"], home).stdout, encoding="utf-8")
    for extra in ([], ["--json"]):
        theirs = mcp_top(["diff", str(old), str(new), *extra], tmp_path)
        code, mine = ours(["diff", str(old), str(new), *extra], capsys)
        assert code == 0
        if extra:
            assert mine == theirs.stdout
        else:  # mcp-top's text, then our token growth block
            head, _, growth = mine.rpartition("\n\nAdvertised tokens (")
            assert head + "\n" == theirs.stdout
            assert growth.startswith("chars/4 estimates") and "claude-code: ~" in growth
    assert "population/scope differs" in mine


def test_bad_diff_input_exits_2_like_mcp_top(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema": "mcp-top-snapshot/v1"}', encoding="utf-8")
    theirs = mcp_top(["diff", str(bad), str(bad)], tmp_path)
    code = wslmcp_profile(["diff", str(bad), str(bad)])
    err = capsys.readouterr().err
    assert (code, theirs.returncode) == (2, 2)
    assert theirs.stderr.removeprefix("mcp-top diff: ") == err.removeprefix("wslmcp profile diff: ")
