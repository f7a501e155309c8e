"""Which files an install touches and what it writes there, through the twins of the client-file
and Windows-home boundaries (``MemoryConfigFiles``, ``StatedWindowsHome``) and the launcher's."""

from __future__ import annotations

import json

import pytest

from wslmcp.boundaries.mcp_launcher import ServerAnswer
from wslmcp.clients import BACKUP_SUFFIX, CLIENTS
from wslmcp.fakes.config_files import MemoryConfigFiles
from wslmcp.fakes.mcp_launcher import FakeMcpLauncher
from wslmcp.fakes.windows_home import StatedWindowsHome
from wslmcp.install.entries import Installed, Unreachable, is_ours, launch
from wslmcp.install.plan import Home, Request
from wslmcp.install.service import run

LINUX, WINDOWS = "/home/dev", "/mnt/c/Users/Dev"
INSIDE = Installed("linux", ("/home/dev/.venv/bin/wslmcp",), "Ubuntu", "dev")


def _request(windows_home: str | None = WINDOWS, **options: object) -> Request:
    found = StatedWindowsHome(windows_home).find()  # what a run inside WSL is told
    homes = (Home("linux", LINUX), *([Home("windows", found)] if found else []))
    return Request(homes=homes, project="/home/dev/app", shell_env={"WSL_DISTRO": "Ubuntu"}, **options)  # type: ignore[arg-type]


def _paths(files: MemoryConfigFiles, request: Request) -> set[str]:
    return {p.target.path for p in run(request, INSIDE, files, None).files}


def test_every_client_found_on_each_side_and_only_those() -> None:
    files = MemoryConfigFiles(
        directories=(
            f"{LINUX}/.claude",
            f"{LINUX}/.vscode-server",
            f"{WINDOWS}/AppData/Roaming/Claude",
            f"{WINDOWS}/.gemini",
        )
    )
    assert _paths(files, _request()) == {
        f"{LINUX}/.claude.json",
        f"{LINUX}/.vscode-server/data/User/mcp.json",
        f"{WINDOWS}/AppData/Roaming/Claude/claude_desktop_config.json",
        f"{WINDOWS}/.gemini/settings.json",
    }
    assert _paths(files, _request(windows_home=None)) == {
        f"{LINUX}/.claude.json",
        f"{LINUX}/.vscode-server/data/User/mcp.json",
    }


def test_a_client_named_and_found_nowhere_gets_its_usual_file() -> None:
    files = MemoryConfigFiles()
    assert _paths(files, _request(clients=("vscode",))) == {f"{LINUX}/.config/Code/User/mcp.json"}
    assert _paths(files, _request(clients=("claude-desktop",))) == {
        f"{WINDOWS}/AppData/Roaming/Claude/claude_desktop_config.json"
    }
    report = run(_request(windows_home=None, clients=("claude-desktop",)), INSIDE, files, None)
    assert report.files == [] and "Claude Desktop keeps no user-scope configuration" in report.notes[0]


def test_every_client_is_written_in_its_own_format_and_read_back_as_ours() -> None:
    files = MemoryConfigFiles()
    names = tuple(c.name for c in CLIENTS)
    report = run(_request(clients=names), INSIDE, files, None)
    assert {p.target.client.name for p in report.files} == set(names)
    for planned in report.files:
        data = files.files[planned.target.path].decode()
        table = planned.target.config.table
        if planned.target.config.format == "toml":
            from wslmcp.install.toml_edit import check

            held = check(data)[table]
        else:
            held = json.loads(data)[table]
        assert set(held) == {"wsl-observe", "wsl-shell"}
        assert is_ours(held["wsl-observe"], "observe") and is_ours(held["wsl-shell"], "shell")
        assert not is_ours(held["wsl-shell"], "observe")


def test_twice_is_once_and_uninstall_removes_only_ours() -> None:
    files = MemoryConfigFiles(
        {f"{LINUX}/.cursor/mcp.json": b'{"mcpServers": {"docs": {"command": "npx"}}}\n'}
    )
    first = run(_request(), INSIDE, files, None)
    assert [p.changes for p in first.files] == [True]
    after = dict(files.files)
    second = run(_request(), INSIDE, files, None)
    assert [p.changes for p in second.files] == [False] and files.files == after
    assert {e.action for e in second.files[0].entries} == {"unchanged"}
    assert (
        files.files[f"{LINUX}/.cursor/mcp.json{BACKUP_SUFFIX}"]
        == b'{"mcpServers": {"docs": {"command": "npx"}}}\n'
    )
    gone = run(_request(uninstall=True), INSIDE, files, None)
    assert {e.action for e in gone.files[0].entries} == {"removed"}
    assert json.loads(files.files[f"{LINUX}/.cursor/mcp.json"]) == {
        "mcpServers": {"docs": {"command": "npx"}}
    }


def test_an_entry_of_ours_is_updated_keeping_what_a_user_added_to_it() -> None:
    old = {"command": "/old/venv/bin/wslmcp", "args": ["observe"], "alwaysLoad": True}
    files = MemoryConfigFiles(
        {f"{LINUX}/.claude.json": json.dumps({"mcpServers": {"wsl-observe": old}}).encode()}
    )
    report = run(_request(servers=("observe",)), INSIDE, files, None)
    assert [e.action for e in report.files[0].entries] == ["updated"]
    assert json.loads(files.files[f"{LINUX}/.claude.json"])["mcpServers"]["wsl-observe"] == {
        "command": "/home/dev/.venv/bin/wslmcp", "args": ["observe"], "alwaysLoad": True, "type": "stdio",
    }  # fmt: skip


def test_each_entry_is_started_as_its_client_would_start_it() -> None:
    files = MemoryConfigFiles(directories=(f"{WINDOWS}/.codex",))
    answers = [
        ServerAnswer("wsl-observe", tools=[{"name": "t"}]),
        ServerAnswer("wsl-shell", error="timeout after 20 seconds"),
    ]
    launcher = FakeMcpLauncher(answers)
    report = run(_request(), INSIDE, files, launcher)
    checks = report.checks
    path = f"{WINDOWS}/.codex/config.toml"
    assert checks[(path, "wsl-observe")].ok and checks[(path, "wsl-observe")].said == "answers: 1 tool"
    failed = checks[(path, "wsl-shell")]
    assert not failed.ok and failed.said == "timeout after 20 seconds" and not report.ok
    assert (
        failed.fix
        == "run it by hand to see why: wsl.exe -d Ubuntu -u dev -- env WSL_DISTRO=Ubuntu /home/dev/.venv/bin/wslmcp shell --check"
    )
    assert sorted(name for name, _ in launcher.calls) == ["wsl-observe", "wsl-shell"]


@pytest.mark.parametrize(
    ("installed", "side", "why"),
    [
        (
            Installed("windows", ("C:\\wslmcp\\Scripts\\wslmcp.exe",)),
            "linux",
            "cannot start wslmcp installed on Windows",
        ),
        (Installed("linux", ("/usr/local/bin/wslmcp",)), "windows", "plain Linux"),
    ],
)
def test_the_side_that_cannot_reach_wslmcp_is_refused_with_the_reason(
    installed: Installed, side: str, why: str
) -> None:
    with pytest.raises(Unreachable, match=why):
        launch(installed, side, "observe", {})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("entry", "server", "ours"),
    [
        ({"command": "/x/bin/wslmcp", "args": ["shell"]}, "shell", True),
        ({"command": "C:\\tools\\Scripts\\WSLMCP.EXE", "args": ["observe"]}, "observe", True),
        ({"command": "wsl.exe", "args": ["-d", "U", "--", "/x/wslmcp", "observe"]}, "observe", True),
        ({"command": "python3", "args": ["-m", "wslmcp", "shell"]}, "shell", True),
        ({"command": "/x/bin/wslmcp", "args": ["observe"]}, "shell", False),
        ({"command": "node", "args": ["wslmcp", "shell.js"]}, "shell", False),
        ({"url": "http://x"}, "shell", False),
        ("wslmcp shell", "shell", False),
    ],
)
def test_what_counts_as_an_entry_of_ours(entry: object, server: str, ours: bool) -> None:
    assert is_ours(entry, server) is ours
