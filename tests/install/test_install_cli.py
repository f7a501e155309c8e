"""``wslmcp install`` for real: real files under temp homes on both sides of WSL (the Windows home
found through interop stand-ins, or given), every client of the table, the entries started for real
(the Windows side's through a ``wsl.exe`` stand-in), and the profiler reading what was written."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.install.rig import DISTRO, Rig, make_rig, user
from wslmcp.clients import BACKUP_SUFFIX, CLIENTS

EVERY = {
    ("linux", c.name) for c in CLIENTS for f in c.configs if f.scope == "user" and "linux" in f.sides
} | {("windows", c.name) for c in CLIENTS for f in c.configs if f.scope == "user" and "windows" in f.sides}


@pytest.fixture
def rig(tmp_path: Path) -> Rig:
    return make_rig(tmp_path)


def _entries(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [dict(e, file=f) for f in report["files"] for e in f["entries"]]


def test_every_client_on_both_sides_gets_entries_that_start(rig: Rig) -> None:
    code, report = rig.install()
    assert code == 0, json.dumps(report, indent=1)
    assert {(f["side"], f["client"]) for f in report["files"]} == EVERY
    for e in _entries(report):
        assert e["action"] == "added" and e["check"]["ok"], e
        assert e["check"]["said"] == ("answers: 17 tools" if e["server"] == "shell" else "answers: 6 tools")
        f = e["file"]
        if f["side"] == "linux":  # by absolute path on its own side
            assert os.path.isabs(e["entry"]["command"]) and e["entry"]["args"] == [e["server"]]
        else:  # a Windows client reaches the distro's wslmcp through wsl.exe
            assert e["entry"]["command"] == "wsl.exe"
            assert e["entry"]["args"][:5] == ["-d", DISTRO, "-u", user(), "--"]
            assert e["entry"]["args"][-1] == e["server"] and os.path.isabs(e["entry"]["args"][5])
        if e["server"] == "shell":
            assert e["entry"]["env"]["WSL_DISTRO"] == DISTRO
            if f["side"] == "windows":
                assert e["entry"]["env"]["WSLENV"] == "WSL_DISTRO"
        assert ("type" in e["entry"]) == (f["client"] in ("claude-code", "vscode"))
    written = {f["path"]: f for f in report["files"]}
    vscode = json.loads(Path(rig.windows, "AppData/Roaming/Code/User/mcp.json").read_text())
    assert set(vscode["servers"]) == {"wsl-observe", "wsl-shell"}  # VS Code's own key
    codex = Path(rig.linux, ".codex/config.toml").read_text()
    assert "[mcp_servers.wsl-shell]" in codex and str(Path(rig.linux, ".codex/config.toml")) in written


def test_a_second_run_changes_nothing_and_says_so(rig: Rig) -> None:
    assert rig.install()[0] == 0
    before = rig.snapshot()
    done = rig.run("install")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("wslmcp install: nothing to change: every entry is already there")
    assert "unchanged · answers: 6 tools" in done.stdout
    assert rig.snapshot() == before


def test_everything_else_in_a_file_stays_as_it_was(rig: Rig) -> None:
    claude = rig.linux / ".claude.json"
    kept = '{\n  "numStartups": 42,\n  "mcpServers": {\n    "github": {\n      "command": "gh-mcp"\n    }\n  },\n  "projects": {"/x": {"allowedTools": []}}\n}\n'
    claude.write_text(kept)
    settings = rig.linux / ".gemini" / "settings.json"
    settings.write_text('{\n  // my theme\n  "theme": "dark", /* trailing comma next */\n}\n')
    codex = rig.windows / ".codex" / "config.toml"
    codex.write_text('# my codex\nmodel = "o3"  # the model\n\n[mcp_servers.docs]\ncommand = "npx"  # keep\n')
    vscode = rig.linux / ".vscode-server" / "data" / "User" / "mcp.json"
    vscode.parent.mkdir(parents=True)
    vscode.write_text('{"servers":{"x":{"type":"stdio","command":"y"}},"inputs":[]}')
    code, report = rig.install("--server", "observe")
    assert code == 0, report
    text = claude.read_text()
    assert text.startswith(
        '{\n  "numStartups": 42,\n  "mcpServers": {\n    "github": {\n      "command": "gh-mcp"\n    },\n    "wsl-observe": {'
    )
    assert text.endswith('  },\n  "projects": {"/x": {"allowedTools": []}}\n}\n')
    assert (rig.linux / (".claude.json" + BACKUP_SUFFIX)).read_text() == kept
    assert settings.read_text().startswith(
        '{\n  // my theme\n  "theme": "dark", /* trailing comma next */\n  "mcpServers": {'
    )
    assert codex.read_text().startswith(
        '# my codex\nmodel = "o3"  # the model\n\n[mcp_servers.docs]\ncommand = "npx"  # keep\n\n[mcp_servers.wsl-observe]\n'
    )
    assert vscode.read_text().startswith(
        '{"servers":{"x":{"type":"stdio","command":"y"}, "wsl-observe": {"type": "stdio", '
    )
    assert vscode.read_text().endswith('"inputs":[]}')
    # and --uninstall gives each file back byte for byte
    code, report = rig.install("--uninstall")
    assert code == 0, report
    assert claude.read_text() == kept
    assert (
        codex.read_text()
        == '# my codex\nmodel = "o3"  # the model\n\n[mcp_servers.docs]\ncommand = "npx"  # keep\n'
    )
    assert vscode.read_text() == '{"servers":{"x":{"type":"stdio","command":"y"}},"inputs":[]}'


def test_a_malformed_file_and_someone_elses_entry_are_refused_and_left_untouched(rig: Rig) -> None:
    bad = rig.linux / ".cursor" / "mcp.json"
    bad.write_text('{"mcpServers": {')
    taken = rig.windows / "AppData" / "Roaming" / "Claude" / "claude_desktop_config.json"
    taken.write_text('{"mcpServers": {"wsl-shell": {"command": "node", "args": ["other.js"]}}}')
    code, report = rig.install()
    assert code == 1
    refused = {f["path"]: f for f in report["files"] if f["result"] == "refused"}
    assert set(refused) == {str(bad), str(taken)}
    assert "malformed" in refused[str(bad)]["refused"] and "fix it by hand" in refused[str(bad)]["fix"]
    assert "does not run wslmcp shell" in refused[str(taken)]["refused"]
    assert "--name PREFIX" in refused[str(taken)]["fix"]
    assert bad.read_text() == '{"mcpServers": {' and not Path(str(bad) + BACKUP_SUFFIX).exists()
    assert json.loads(taken.read_text()) == {
        "mcpServers": {"wsl-shell": {"command": "node", "args": ["other.js"]}}
    }
    assert all(f["result"] == "written" for f in report["files"] if f["path"] not in refused)
    # another prefix goes beside it
    code, report = rig.install("--client", "claude-desktop", "--name", "dev-")
    assert code == 0 and set(json.loads(taken.read_text())["mcpServers"]) == {
        "wsl-shell",
        "dev-observe",
        "dev-shell",
    }


def test_dry_run_prints_a_diff_of_every_file_and_writes_nothing(rig: Rig) -> None:
    before = rig.snapshot()
    done = rig.run("install", "--dry-run", "--client", "codex", "--client", "vscode")
    assert done.returncode == 0, done.stderr
    assert rig.snapshot() == before
    assert f"+++ {rig.linux}/.codex/config.toml" in done.stdout
    assert f"+++ {rig.windows}/AppData/Roaming/Code/User/mcp.json" in done.stdout
    assert "+[mcp_servers.wsl-observe]" in done.stdout and '+    "wsl-shell": {' in done.stdout
    assert "dry run: nothing was written" in done.stdout and "would add" in done.stdout


def test_shell_settings_become_wsl_variables_checked_as_the_server_checks_them(rig: Rig) -> None:
    code, report = rig.install(
        "--client", "cursor", "--server", "shell", "--cwd", str(rig.project), "--readonly",
        "--allowed-paths", str(rig.project), "--user", user(), "--sandbox", "off",
    )  # fmt: skip
    assert code == 0, report
    env = {e["file"]["side"]: e["entry"]["env"] for e in _entries(report)}
    wanted = {
        "WSL_DISTRO": DISTRO, "WSL_USER": user(), "WSL_CWD": str(rig.project),
        "WSL_ALLOWED_PATHS": str(rig.project), "WSL_SANDBOX": "off", "WSL_READONLY": "true",
    }  # fmt: skip
    assert env["linux"] == wanted
    assert env["windows"] == {**wanted, "WSLENV": ":".join(wanted)}
    before = rig.snapshot()
    for bad in (["--cwd", "relative/dir"], ["--distro", "no distro!"], ["--sandbox", "sometimes"]):
        done = rig.run("install", "--client", "cursor", *bad)
        assert done.returncode == 2 and done.stderr.startswith("wslmcp install: WSL_"), done.stderr
    assert rig.snapshot() == before


def test_the_windows_side_is_found_through_interop_or_given_and_left_alone_when_asked(
    rig: Rig, tmp_path: Path
) -> None:
    code, report = rig.install("--client", "codex", "--no-check")
    assert code == 0 and {f["side"] for f in report["files"]} == {"linux", "windows"}
    other = make_rig(tmp_path / "other")
    code, report = other.install("--client", "codex", "--no-other-side", "--no-check")
    assert code == 0 and {f["side"] for f in report["files"]} == {"linux"}
    code, report = other.install(
        "--client", "codex", "--windows-home", str(rig.windows), "--no-check", env=other.env(interop=False)
    )
    assert code == 0 and {f["path"] for f in report["files"] if f["side"] == "windows"} == {
        str(rig.windows / ".codex" / "config.toml")
    }


def test_on_plain_linux_a_windows_client_is_refused_with_the_reason(rig: Rig) -> None:
    code, report = rig.install(
        "--client", "codex", "--windows-home", str(rig.windows), env=rig.env(inside_wsl=False)
    )
    assert code == 1
    refused = [f for f in report["files"] if f["side"] == "windows"]
    assert refused and "plain Linux" in refused[0]["refused"]
    linux = [f for f in report["files"] if f["side"] == "linux"]
    assert linux[0]["result"] == "written" and linux[0]["entries"][1]["entry"]["env"] == {
        "WSL_DISTRO": "local"
    }


def test_a_failing_entry_is_shown_with_its_fix(rig: Rig) -> None:
    env = rig.env()
    env["STANDIN_DIR"] = str(rig.cwd)  # wsl.exe knows no distro now
    (rig.cwd / "distros").write_text("Debian\n")
    code, report = rig.install("--client", "cursor", env=env)
    assert code == 1
    failed = [e for e in _entries(report) if not e["check"]["ok"]]
    assert {e["file"]["side"] for e in failed} == {"windows"}
    shell = next(e for e in failed if e["server"] == "shell")
    assert shell["check"]["fix"].startswith(f"run it by hand to see why: wsl.exe -d {DISTRO} -u ")
    assert shell["check"]["fix"].endswith(
        f"-- env WSL_DISTRO={DISTRO} {shell['entry']['args'][5]} shell --check"
    )
    done = rig.run("install", "--client", "cursor", env=env)
    assert "FAILED:" in done.stdout and "fix: run it by hand" in done.stdout


def test_project_scope_writes_the_project_files(rig: Rig) -> None:
    code, report = rig.install(
        "--scope",
        "project",
        "--project",
        str(rig.project),
        "--client",
        "claude-code",
        "--client",
        "vscode",
        "--no-check",
    )
    assert code == 0, report
    assert {f["path"] for f in report["files"]} == {
        str(rig.project / ".mcp.json"),
        str(rig.project / ".vscode" / "mcp.json"),
    }
    assert set(json.loads((rig.project / ".vscode" / "mcp.json").read_text())["servers"]) == {
        "wsl-observe",
        "wsl-shell",
    }


def _profiled(rig: Rig, home: Path) -> dict[tuple[str, str], dict[str, Any]]:
    done = rig.run("profile", "--json", "--home", str(home), "--project", str(rig.project), "--no-other-side")
    assert done.returncode == 0, done.stderr
    return {(c["cli"], s["server"]): s for c in json.loads(done.stdout)["clis"] for s in c["servers"]}


@pytest.mark.parametrize("side", ["linux", "windows"])
def test_the_profiler_lists_the_new_entries_and_queries_them(rig: Rig, side: str) -> None:
    assert rig.install("--no-check")[0] == 0
    servers = _profiled(rig, rig.linux if side == "linux" else rig.windows)
    for cli in ("claude-code", "codex", "cursor"):
        for name, tools in (("wsl-observe", 6), ("wsl-shell", 17)):
            found = servers[(cli, name)]
            assert (found["def_status"], found["def_error"], found["tool_count"]) == ("ok", None, tools), (
                found
            )
