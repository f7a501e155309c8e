"""Every place of operator state the client table knows (``wslmcp.clients``), read for real: each
file is readable without protection, and then refused by the guard and hidden by the sandbox, on
the Linux side (the home) and the Windows side (a user profile on a drive stand-in).

The four files an earlier table missed (VS Code's and Windsurf's MCP configuration, Gemini CLI's
OAuth credentials, the GitHub CLI's token) are named here, so the table cannot lose them again.
"""

from __future__ import annotations

import os
import secrets
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.shell.sandbox_world import _unusable, machine
from wslmcp.boundaries.shell_transport import Confinement, LocalTransport, ScriptCall, ShellTransport
from wslmcp.clients import BACKUP_SUFFIX, home_places
from wslmcp.shell.config import load_config
from wslmcp.shell.guard import Guard
from wslmcp.shell.runner import Runner
from wslmcp.shell.sandbox import profile_for
from wslmcp.shell.sandbox_launcher import launcher

ONCE_READABLE = (
    ".config/Code/User/mcp.json",
    ".gemini/oauth_creds.json",
    ".codeium/windsurf/mcp_config.json",
    ".config/gh/hosts.yml",
)


def _files(side: str) -> list[str]:
    """Every place of ``side`` (a directory place is planted as a file: hidden all the same)."""
    return [place.path for place in home_places() if side in place.sides]


def test_the_table_covers_what_was_once_readable() -> None:
    linux = _files("linux")
    for path in ONCE_READABLE:
        assert any(path == f or path.startswith(f + "/") for f in linux), path
    assert all(f + BACKUP_SUFFIX in linux for f in ONCE_READABLE[::2])  # install's backups too


def test_the_guard_refuses_every_place_on_both_sides() -> None:
    guard = Guard(load_config({"WSL_DISTRO": "Ubuntu"}).policy)
    for side, base in (("linux", "~"), ("windows", "/mnt/c/Users/Jun Cha")):
        for path in _files(side):
            decision = guard.check_command(
                f"cat '{base}/{path}'" if " " in base + path else f"cat {base}/{path}", None
            )
            assert (decision.verdict, decision.rule) == ("reject", "operator_path"), (path, decision.reason)
            assert guard.check_path(f"/home/me/{path}", "read").rule == "operator_path", path
    # and what lies beside them is ordinary work
    assert (
        guard.check_command("cat ~/.config/Code/User/settings.json ~/.gemini/GEMINI.md", None).verdict
        == "allow"
    )


async def _said(transport: ShellTransport, script: str) -> str:
    run = await Runner(transport).run(ScriptCall(script, timeout_s=60, max_output=1 << 20))
    return (run.exchange.stdout + run.exchange.stderr).decode("utf-8", "replace")


def _reads(paths: list[str]) -> str:
    """Reads the guard cannot see: a program opens each file by a name built at run time."""
    quoted = " ".join(f"'{p}'" for p in paths)
    return f'for f in {quoted}; do python3 -c "import sys; print(open(sys.argv[1]).read())" "$f" 2>&1; done'


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    reason = _unusable()
    if reason is not None:
        pytest.skip(reason)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    with machine(alone=False):
        yield home


def _confined(**env: str) -> LocalTransport:
    config = load_config({"WSL_DISTRO": "Ubuntu", "WSL_SANDBOX": "on", **env})
    return LocalTransport(confinement=Confinement(launcher(profile_for(config.policy, config.sandbox))))


def _plant(base: Path, files: list[str], secret: str) -> list[str]:
    for name in files:
        (base / name).parent.mkdir(parents=True, exist_ok=True)
        (base / name).write_text(f"{secret} {name}\n")
    return [str(base / name) for name in files]


async def test_the_sandbox_hides_every_place_in_the_home(home: Path) -> None:
    secret = "CANARY-" + secrets.token_hex(8)
    paths = _plant(home, _files("linux"), secret)
    plain = await _said(LocalTransport(), _reads(paths))
    for name in _files("linux"):  # each readable without the sandbox
        assert f"{secret} {name}" in plain, name
    said = await _said(_confined(), _reads(paths) + "\ngrep -r CANARY ~ 2>&1")
    assert secret not in said, said
    assert said.count("Permission denied") >= len(paths)


@pytest.fixture
def profile_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A Windows user profile on a drive stand-in at /mnt/<letter> (root only), made while no other
    sandbox test's launcher looks at /mnt (the machine lock, held alone)."""
    reason = _unusable()
    if reason is not None:
        pytest.skip(reason)
    monkeypatch.setenv("HOME", str(tmp_path))
    if os.geteuid() != 0:
        pytest.skip("making a /mnt/<drive> stand-in needs root")
    letter = next((c for c in "qrstuvwxyz" if not Path(f"/mnt/{c}").exists()), None)
    if letter is None:
        pytest.skip("no free /mnt/<letter> for a drive stand-in")
    drive = Path(f"/mnt/{letter}")
    with machine(alone=True):
        try:
            yield drive / "Users" / "Jun Cha"
        finally:
            shutil.rmtree(drive, ignore_errors=True)


async def test_the_sandbox_hides_every_place_in_a_windows_profile(profile_dir: Path) -> None:
    secret = "CANARY-" + secrets.token_hex(8)
    paths = _plant(profile_dir, _files("windows"), secret)
    plain = await _said(LocalTransport(), _reads(paths))
    for name in _files("windows"):
        assert f"{secret} {name}" in plain, name
    said = await _said(_confined(WSL_ALLOWED_PATHS="/"), _reads(paths))
    assert secret not in said, said
