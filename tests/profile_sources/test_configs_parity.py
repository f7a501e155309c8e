"""The discovery + querying half against the oracle, on the hostile-config scenario home.

One copy of ``scenarios/profile-configs/home`` with its real stdio servers (crashing, silent,
junk-printing, slow, paginated...): our ``--json`` minus the "wslmcp" key equals mcp-top 0.5.0's
document and the human output is byte-identical. The scenario's expected files (replayed from the
recorded answers) equal the same real run with the copy's path written back to ``/home/user``, so
the recording and the expectations stay tied to reality.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.profile.homes import FIXTURE_HOME, SCENARIOS, TEST_SERVER, copy_home
from wslmcp.replay.profile import as_stated, as_today

pytest.importorskip("mcp_top", reason="mcp-top==0.5.0 (dev extra) is the parity oracle")

SCENARIO = SCENARIOS / "profile-configs"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_home("profile-configs", tmp_path_factory.mktemp("configs") / "home")


def run(tool: list[str], home: Path, args: list[str]) -> str:
    done = subprocess.run(
        [sys.executable, "-m", *tool, "--home", str(home), "--project", str(home / "proj"), *args],
        capture_output=True,
        text=True,
        cwd=home,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _expected(rel: str, home: Path) -> str:
    return (SCENARIO / rel).read_text(encoding="utf-8").replace(FIXTURE_HOME, str(home))


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--query-project", "--prune", "--json"], "expected/queried-prune.json"),
        (["--query-project", "--prune"], "expected/queried-prune.txt"),
    ],
    ids=["json", "human"],
)
def test_queried_output_matches_mcp_top_and_the_scenario(home: Path, args: list[str], expected: str) -> None:
    ours = run(["wslmcp", "profile"], home, args)
    theirs = run(["mcp_top"], home, args)
    if "--json" in args:
        doc: dict[str, Any] = json.loads(ours)
        assert "wslmcp" in doc
        assert {k: v for k, v in doc.items() if k != "wslmcp"} == json.loads(theirs)
        failed = dict(map(tuple, doc["clis"][0]["coverage"]["servers_query_failed"]))
        assert set(failed) == {
            *("crash", "exit", "refuses", "silent", "badcwd", "nocmd", "notools"),
            *("nocode", "list-nocode", "noresult"),
        }
        tools = {row["server"]: row["tool_count"] for row in doc["clis"][0]["servers"]}
        assert (tools["odd-entries"], tools["nullinit"]) == (4, 2), "nameless tools count, non-objects do not"
    else:
        assert ours == as_today(theirs)  # one deliberate difference: our own name
    want = as_today(_expected(expected, home))
    assert as_stated(ours, want) == want  # the wslmcp fields the file states (the check's rule)


def test_the_copy_runs_the_test_server_where_the_configs_name_it(home: Path) -> None:
    assert not list((SCENARIO / "home").rglob("stdio_server.py")), "the scenario carries no server copy"
    original = TEST_SERVER.read_bytes()
    named = {
        arg
        for cfg in (home / ".claude.json", home / "proj" / ".mcp.json")
        for arg in json.dumps(json.loads(cfg.read_text(encoding="utf-8"))).split('"')
        if arg.endswith("stdio_server.py")
    }
    assert named == {str(home / ".servers" / "stdio_server.py")}
    assert all(Path(p).read_bytes() == original for p in named)
