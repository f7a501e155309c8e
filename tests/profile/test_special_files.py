"""Special-file homes: FIFOs, a symlink to /dev/zero and a unix socket where configs, settings and
transcripts should be. The real CLI must finish, skip each with a reason, and count the rest.

Each run has a subprocess timeout, so a regression (a blocking FIFO, an endless /dev/zero read)
fails in seconds instead of hanging the suite.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.profile.homes import SCENARIOS, slug
from wslmcp.scenario.checks import run_checks
from wslmcp.scenario.loader import Scenario

TIMEOUT_S = 30


@pytest.fixture
def home() -> Iterator[Path]:
    # a short base: a unix socket's path must fit in 108 bytes
    base = Path(tempfile.mkdtemp(prefix="sf", dir="/tmp"))
    home = base / "h"
    project = home / ".claude" / "projects" / slug(str(home))
    project.mkdir(parents=True)
    (home / ".codex").mkdir()
    (home / ".cursor").mkdir()
    os.mkfifo(home / ".claude.json")
    os.symlink("/dev/zero", home / ".claude" / "settings.json")
    os.symlink("/dev/zero", home / ".codex" / "config.toml")
    os.mkfifo(project / "fifo.jsonl")
    os.symlink("/dev/zero", project / "zero.jsonl")
    now = datetime.now(UTC).isoformat()
    call = {
        "type": "assistant",
        "version": "2.1.0",
        "timestamp": now,
        "message": {"content": [{"type": "tool_use", "id": "a", "name": "mcp__fs__read"}]},
    }
    (project / "ok.jsonl").write_text(json.dumps(call) + "\n", encoding="utf-8")
    sockets = []
    for path in (project / "sock.jsonl", home / ".cursor" / "mcp.json"):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.bind(str(path))
        sock.listen(1)
        sockets.append(sock)
    try:
        yield home
    finally:
        for sock in sockets:
            sock.close()
        shutil.rmtree(base)


def profile(home: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "wslmcp", "profile", "--home", str(home), "--project", str(home), *extra],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        stdin=subprocess.DEVNULL,
    )


def by_cli(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["cli"]: c for c in doc["clis"]}


def test_special_files_are_skipped_with_reasons_and_the_rest_counted(home: Path) -> None:
    proc = profile(home, "--json", "--no-query")
    assert proc.returncode == 0, proc.stderr
    clis = by_cli(json.loads(proc.stdout))
    assert set(clis) == {"claude-code", "codex", "cursor"}
    project = home / ".claude" / "projects" / slug(str(home))

    claude = clis["claude-code"]["coverage"]
    assert (
        f"could not read {home}/.claude.json: not a regular file (FIFO): '{home}/.claude.json'"
        in claude["config_warnings"]
    )
    settings = f"{home}/.claude/settings.json"
    assert any(
        settings in w and "not a regular file (character device)" in w for w in claude["config_warnings"]
    )
    assert sorted(claude["transcripts_skipped"]) == sorted(
        [
            [str(project / name), f"unreadable: not a regular file ({kind}): '{project / name}'"]
            for name, kind in (
                ("fifo.jsonl", "FIFO"),
                ("sock.jsonl", "socket"),
                ("zero.jsonl", "character device"),
            )
        ]
    )
    assert (claude["transcripts_found"], claude["transcripts_parsed"], claude["total_tool_calls"]) == (
        4,
        1,
        1,
    )

    codex = clis["codex"]["coverage"]["config_warnings"]
    assert any("config.toml" in w and "not a regular file (character device)" in w for w in codex)
    cursor = clis["cursor"]["coverage"]["config_warnings"]
    assert any("mcp.json" in w and "not a regular file (socket)" in w for w in cursor)


def test_the_human_report_and_a_snapshot_finish_too(home: Path, tmp_path: Path) -> None:
    human = profile(home, "--no-query")
    assert human.returncode == 0 and "not a regular file (FIFO)" in human.stdout
    out = tmp_path / "snap.json"
    assert profile(home, "--no-query", "snapshot", "--out", str(out)).returncode == 0
    assert json.loads(out.read_text())["schema"] == "mcp-top-snapshot/v1"


def test_a_diff_of_special_files_is_an_input_error(home: Path) -> None:
    fifo = home / ".claude.json"
    proc = subprocess.run(
        [sys.executable, "-m", "wslmcp", "profile", "diff", str(fifo), "/dev/zero"],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
    )
    assert proc.returncode == 2
    assert proc.stderr == f"wslmcp profile diff: {fifo}: not a regular file (FIFO): '{fifo}'\n"


def test_the_twin_skips_the_scenarios_special_files_the_same_way() -> None:
    """``scenarios/profile-special-files`` names its special files in ``home.special`` (git holds
    none); replayed, each gets the reason the real adapter gives above, and the rest is counted."""
    scenario = Scenario.load(SCENARIOS / "profile-special-files")
    results = run_checks(scenario)
    assert results and all(r.ok for r in results), [r.detail for r in results if not r.ok]
    doc = json.loads(scenario.file("expected/prune.json").read_text(encoding="utf-8"))
    claude = by_cli(doc)["claude-code"]["coverage"]
    pipe = "/home/user/.claude/projects/-home-user-proj/session-pipe.jsonl"
    assert [pipe, f"unreadable: not a regular file (FIFO): '{pipe}'"] in claude["transcripts_skipped"]
    assert claude["transcripts_parsed"] == 1
