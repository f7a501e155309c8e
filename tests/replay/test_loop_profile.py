"""A profile recording takes what the profiler reads and nothing else: the client files and
transcripts of the test home, never our own caches, credentials or anything else under the home,
and never a secret a config hands a server; the scenario lists what it took, and replays with
``wslmcp profile --replay DIR`` alone."""

from __future__ import annotations

import json
from pathlib import Path

from tests.profile.homes import FIXTURE_HOME, copy_home
from tests.replay.loop import clean_env, wslmcp
from wslmcp.scenario.loader import Scenario

SECRET = "sk-test-0123456789abcdef"


def _home(tmp_path: Path) -> Path:
    home = copy_home("profile-usage", tmp_path / "home")
    config = home / ".claude.json"
    doc = json.loads(config.read_text(encoding="utf-8"))
    servers = doc.setdefault("mcpServers", {})
    servers["keyed"] = {"command": "/bin/false", "env": {"API_KEY": SECRET}}
    config.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    extras = {
        ".cache/wslmcp/o200k_base.ranks": b"\0" * 4096,  # our own token-count cache
        ".claude/.credentials.json": json.dumps({"claudeAiOauth": {"accessToken": SECRET}}).encode(),
        ".codex/auth.json": json.dumps({"OPENAI_API_KEY": SECRET}).encode(),
        ".ssh/id_ed25519": b"-----BEGIN OPENSSH PRIVATE KEY-----\n",
        "Documents/notes.txt": b"private\n",
        ".bash_history": b"export TOKEN=x\n",
    }
    for rel, data in extras.items():
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).write_bytes(data)
    return home


def test_a_profile_recording_takes_only_client_files_and_transcripts(tmp_path: Path) -> None:
    home = _home(tmp_path)
    out = tmp_path / "rec"
    done = wslmcp("scenario", "record", "--area", "profile", "--home", str(home), "--out", str(out),
                  env=clean_env())  # fmt: skip
    assert done.returncode == 0, done.stderr
    taken = sorted(str(p.relative_to(out / "home")) for p in (out / "home").rglob("*") if p.is_file())
    assert ".claude.json" in taken and any(t.endswith(".jsonl") for t in taken)  # configs, transcripts
    for never in (".cache", ".credentials.json", "auth.json", ".ssh", "Documents", ".bash_history"):
        assert not any(never in t for t in taken), (never, taken)
    for path in (out / "home").rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path
    manifest = Scenario.load(out).manifest
    assert sorted(manifest["home"]["mtimes"]) == taken  # the scenario lists what it took
    for rel in taken:
        assert rel in done.stdout
    replayed = wslmcp("profile", "--replay", str(out), "--query-project", env=clean_env())
    assert replayed.returncode == 0, replayed.stderr
    assert replayed.stdout == (out / "expected" / "query-project.txt").read_text(encoding="utf-8")
    assert FIXTURE_HOME in replayed.stdout or "keyed" in replayed.stdout
