"""Raw config is never serialized: canary secrets in every field of every format never show up in
discovery results, query results, recordings, warnings, or any output of ``wslmcp profile``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from wslmcp.boundaries.mcp_stdio import StdioMcpLauncher
from wslmcp.fakes.mcp_launcher import RecordingMcpLauncher
from wslmcp.profile.querying import query_all

from .conftest import PYTHON, SERVER, Layout

CANARY = "CANARY-s3cr3t-7f1d"


def c(field: str) -> str:
    return f"{CANARY}-{field}"


def _good_spec(fmt: str) -> dict[str, object]:
    """A launchable server whose secret-bearing fields all hold canaries."""
    return {
        "command": PYTHON,
        "args": [SERVER, "--name", "canary-safe", "--junk=0", "--instructions", "ok"],
        "env": {"API_TOKEN": c(f"env-{fmt}"), "OTHER": c(f"env2-{fmt}")},
        "headers": {"Authorization": f"Bearer {c(f'header-{fmt}')}"},
        "bearer_token_env_var": c(f"bearer-{fmt}"),
        "unknown_key": c(f"unknown-{fmt}"),
    }


def _bad_spec(fmt: str) -> dict[str, object]:
    """Canaries in every field that triggers a warning (warnings must name keys, not values)."""
    return {
        "command": c(f"cmd-{fmt}"),
        "args": c(f"args-{fmt}"),
        "env": {"K": 1, "TOKEN": c(f"envok-{fmt}")},
        "enabled": c(f"enabled-{fmt}"),
        "alwaysLoad": c(f"always-{fmt}"),
        "enabled_tools": c(f"et-{fmt}"),
        "disabled_tools": c(f"dt-{fmt}"),
        "startup_timeout_sec": c(f"sts-{fmt}"),
        "url": f"https://user:{c(f'url-{fmt}')}@example.invalid/mcp",
    }


def _toml_table(name: str, spec: dict[str, object]) -> str:
    lines = [f"[mcp_servers.{name}]"]
    for key, value in spec.items():
        if isinstance(value, dict):
            inner = ", ".join(f"{k} = {json.dumps(v)}" for k, v in value.items())
            lines.append(f"{key} = {{ {inner} }}")
        else:
            lines.append(f"{key} = {json.dumps(value)}")
    return "\n".join(lines) + "\n"


@pytest.fixture
def secret_home(layout: Layout) -> Layout:
    project = str(layout.project)
    layout.write(
        ".claude.json",
        {
            "mcpServers": {
                "good": _good_spec("claude-user"),
                "bad": _bad_spec("claude-user"),
                "broken": {
                    "command": "/nonexistent/wslmcp-server",
                    "args": [c("broken-args")],
                    "env": {"T": c("broken-env")},
                },
                "web": {"type": "http", "url": f"https://x.invalid/?key={c('claude-http')}"},
            },
            "projects": {project: {"mcpServers": {"local": _good_spec("claude-local")}}},
            "oauthAccount": {"token": c("claude-account")},
        },
    )
    layout.write(
        ".mcp.json",
        {"mcpServers": {"shared": _good_spec("claude-project"), "bad2": _bad_spec("mcpjson")}},
        base="project",
    )
    layout.write(
        ".codex/config.toml",
        _toml_table("good", _good_spec("codex")) + _toml_table("bad", _bad_spec("codex")),
    )
    layout.write(".codex/config.toml", _toml_table("layer", _good_spec("codex-layer")), base="project")
    layout.write(
        ".cursor/mcp.json", {"mcpServers": {"good": _good_spec("cursor-user"), "bad": _bad_spec("cursor")}}
    )
    layout.write(".cursor/mcp.json", {"mcpServers": {"p": _good_spec("cursor-project")}}, base="project")
    return layout


def _assert_clean(text: str, where: str) -> None:
    assert CANARY not in text, (
        f"a canary secret leaked into {where}: ...{text[text.find(CANARY) - 80 : text.find(CANARY) + 40]}..."
    )


def test_the_fixture_really_holds_canaries_everywhere(secret_home: Layout) -> None:
    blob = b"".join(
        p.read_bytes() for p in [*secret_home.home.rglob("*"), *secret_home.project.rglob("*")] if p.is_file()
    )
    assert blob.count(CANARY.encode()) >= 60
    servers = secret_home.discover().servers()
    assert any(CANARY in v for s in servers for v in s.env.values()), (
        "the launch material is kept for the launcher"
    )


def test_discovery_never_serializes_or_reprs_secrets(secret_home: Layout) -> None:
    result = secret_home.discover()
    assert {c.cli for c in result.clis} == {"claude-code", "codex", "cursor"}
    assert len(result.servers()) >= 10
    _assert_clean(json.dumps(result.to_public_dict()), "DiscoveryResult.to_public_dict()")
    _assert_clean(repr(result), "repr(DiscoveryResult)")
    _assert_clean(str(result), "str(DiscoveryResult)")
    warnings = [w for c in result.clis for w in c.warnings]
    assert len(warnings) >= 20
    _assert_clean("\n".join(warnings), "config warnings")


def test_garbage_files_with_secrets_never_echo_them(layout: Layout) -> None:
    layout.write(".claude.json", f'{{"mcpServers": {{"a": {{"env": {{"T": "{CANARY}"}}}} ,,, }}')
    layout.write(".codex/config.toml", f"[mcp_servers.a]\ncommand = {CANARY}\n")
    layout.write(".cursor/mcp.json", f'{{"mcpServers": {{"a": "{CANARY}" \x00')
    layout.write(".mcp.json", f'"{CANARY}"'.encode() + b"\xff", base="project")
    result = layout.discover()
    assert sum(len(c.warnings) for c in result.clis) == 4
    _assert_clean(json.dumps(result.to_public_dict()), "warnings for garbage files")


def test_query_results_and_recordings_hold_no_secrets(secret_home: Layout, tmp_path: Path) -> None:
    result = secret_home.discover()
    recording = tmp_path / "answers.json"
    launcher = RecordingMcpLauncher(StdioMcpLauncher(), recording)
    results = query_all(launcher, result.servers(), timeout_s=10.0, query_project=True)
    ok = [r for r in results.values() if r.ok]
    assert len(ok) >= 5 and all(r.server_name == "canary-safe" for r in ok)
    failed = [r for r in results.values() if r.status == "error"]
    assert [r.error for r in failed] == ["[Errno 2] No such file or directory: '/nonexistent/wslmcp-server'"]
    for r in results.values():
        _assert_clean(json.dumps(r.to_public_dict()) + repr(r), f"QueryResult {r.key}")
    _assert_clean(recording.read_text(), "the recorded launcher answers")


@pytest.mark.parametrize(
    "extra",
    [["--json"], [], ["--prune"], ["--json", "--prune", "--query-project"], ["snapshot"]],
    ids=["json", "human", "prune", "json-prune-project", "snapshot"],
)
def test_profile_outputs_hold_no_secrets(secret_home: Layout, extra: list[str]) -> None:
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "wslmcp",
            "profile",
            "--home",
            str(secret_home.home),
            "--project",
            str(secret_home.project),
            "--timeout",
            "10",
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert "good" in run.stdout
    _assert_clean(run.stdout, f"stdout of profile {extra}")
    _assert_clean(run.stderr, f"stderr of profile {extra}")
