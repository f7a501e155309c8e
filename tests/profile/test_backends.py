"""The client backends' contract: every backend in the table goes through the same shape.

Each client gets a fixture home holding one configured server and (where the client keeps them)
one transcript that calls it; every backend must detect it, discover the server, scan the
transcript, key the project, give the server a regime, name its tools and write a recipe.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wslmcp.boundaries.client_files import LocalClientFiles
from wslmcp.profile.clients import BACKENDS, Backend, Scan, backend
from wslmcp.profile.model import CLIS
from wslmcp.profile.prune import Removal
from wslmcp.profile.regimes import DEFERRED, UNKNOWN, UPFRONT
from wslmcp.profile.tokens import Tokens
from wslmcp.profile.wire_tokens import WIRES

SERVER = {"command": "srv-cmd", "args": ["--x"]}


def _claude(home: Path) -> None:
    (home / ".claude.json").write_text(json.dumps({"mcpServers": {"srv": SERVER}}))
    session = home / ".claude" / "projects" / "-proj" / "s1.jsonl"
    session.parent.mkdir(parents=True)
    call = {"type": "tool_use", "id": "t1", "name": "mcp__srv__do", "input": {}}
    line = {"type": "assistant", "timestamp": "2026-01-10T10:00:00Z", "message": {"content": [call]}}
    session.write_text(json.dumps(line) + "\n")


def _codex(home: Path) -> None:
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").write_text('[mcp_servers.srv]\ncommand = "srv-cmd"\n')
    rollout = home / ".codex" / "sessions" / "2026" / "01" / "rollout-a.jsonl"
    rollout.parent.mkdir(parents=True)
    meta = {"timestamp": "2026-01-10T10:00:00Z", "type": "session_meta", "payload": {"cwd": "/proj"}}
    rollout.write_text(json.dumps(meta) + "\n")


def _cursor(home: Path) -> None:
    (home / ".cursor").mkdir()
    (home / ".cursor" / "mcp.json").write_text(json.dumps({"mcpServers": {"srv": SERVER}}))


HOMES = {"claude-code": _claude, "codex": _codex, "cursor": _cursor}


def test_the_table_holds_one_backend_per_client_in_detection_order() -> None:
    assert tuple(BACKENDS) == CLIS == tuple(HOMES)
    assert all(backend(cli).cli == cli for cli in CLIS)
    with pytest.raises(KeyError):
        backend("vscode")


@pytest.fixture(params=CLIS)
def client(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Backend, Path]:
    home = tmp_path / "home"
    home.mkdir()
    HOMES[request.param](home)
    return BACKENDS[request.param], home


def test_detects_its_own_files_and_nothing_in_an_empty_home(
    client: tuple[Backend, Path], tmp_path: Path
) -> None:
    b, home = client
    files = LocalClientFiles()
    empty = tmp_path / "empty"
    empty.mkdir()
    assert b.detect(files, str(home), str(empty)) is True
    assert b.detect(files, str(empty), str(empty)) is False
    assert b.discover(files, str(empty), str(empty)).servers == ()


def test_discovers_the_server_and_gives_it_a_regime(client: tuple[Backend, Path]) -> None:
    b, home = client
    files = LocalClientFiles()
    found = b.discover(files, str(home), str(home / "proj"))
    assert found.cli == b.cli
    (server,) = found.servers
    assert (server.name, server.cli, server.command) == ("srv", b.cli, "srv-cmd")
    loading = b.loading(files, str(home), str(home / "proj"), str(home / "managed.json"))
    assert loading.regime(server).name in (UPFRONT, DEFERRED, UNKNOWN)
    assert all(isinstance(w, str) for w in loading.warnings)
    assert b.loading(None, "", "", "").regime(server).name in (UPFRONT, DEFERRED, UNKNOWN)


def test_scans_transcripts_or_says_why_usage_is_unknown(client: tuple[Backend, Path]) -> None:
    b, home = client
    got = b.scan(LocalClientFiles(), str(home), ["srv"])
    key = b.project_key("/proj", "/")
    if got is None:
        assert b.usage_note and key is None
        return
    assert isinstance(got, Scan) and b.usage_note is None and isinstance(key, str)
    assert len(got.transcripts) == len(got.keys) == 1


def test_names_tools_limits_text_and_writes_a_recipe(client: tuple[Backend, Path]) -> None:
    b, _ = client
    assert "tool_x" in b.visible_name("srv", "tool_x")
    assert b.wire in WIRES
    assert b.text_limit is None or b.text_limit > 0
    for kind in ("suggestion", "candidate"):
        removal = Removal(kind, b.cli, "srv", "user", "/cfg", Tokens(1, False), None, None, ())
        recipe = b.recipe(removal)
        assert recipe["kind"] in ("command", "guidance")
        assert (recipe["source_path"], recipe["scope"]) == ("/cfg", "user") and recipe["change"]
        if recipe["kind"] == "command":
            assert kind == "suggestion" and "srv" in recipe["argv"]
        assert removal.recipe() == recipe


def test_the_shared_modules_name_no_client() -> None:
    """What differs per client is chosen by the table: the shared modules hold no client's name."""
    import ast

    from wslmcp import profile

    root = Path(profile.__file__).parent
    # the client's own modules: its backend, its config reader, and the table of names itself
    own = {"model.py", "configs/claude.py", "configs/codex.py", "configs/cursor.py"}
    shared = [
        p.relative_to(root).as_posix()
        for p in sorted(root.rglob("*.py"))
        if p.relative_to(root).parts[0] != "clients" and p.relative_to(root).as_posix() not in own
    ]
    assert {"engine.py", "definitions.py", "prune.py", "regimes.py", "configs/specs.py"} <= set(shared)
    for rel in shared:
        tree = ast.parse((root / rel).read_text(encoding="utf-8"))
        literals = {
            n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
        }
        assert not literals & set(CLIS), f"{rel} names {sorted(literals & set(CLIS))}"
