"""The sandbox's test world, shared by its dynamic suites: a home with secrets and files that run
later, a directory outside it, the transports with and without a sandbox, and running as the ordinary
user ``tester``. Where user namespaces cannot be used, ``REASON`` says why (the suites skip)."""

from __future__ import annotations

import contextlib
import fcntl
import getpass
import os
import pwd
import secrets
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.shell.standin import make_wsl_standin
from wslmcp.boundaries.shell_transport import (
    Confinement,
    LocalTransport,
    ScriptCall,
    ShellTransport,
    WslExeTransport,
    distro_argv,
)
from wslmcp.boundaries.wsl_exe import WslExeCli
from wslmcp.shell.config import load_config
from wslmcp.shell.guard.paths import RUNS_LATER
from wslmcp.shell.guard.registry.git import runs_setting
from wslmcp.shell.runner import Runner
from wslmcp.shell.sandbox import profile_for
from wslmcp.shell.sandbox_launcher import launcher


def _unusable() -> str | None:
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return "bubblewrap is not installed (.ci/run installs it)"
    tried = subprocess.run(
        [bwrap, "--unshare-user", "--ro-bind", "/", "/", "--proc", "/proc", "--unshare-pid", "true"],
        capture_output=True,
        text=True,
    )
    if tried.returncode != 0:
        return f"user namespaces cannot be used here: {tried.stderr.strip()}"
    return None


REASON = _unusable()
ROOT = os.geteuid() == 0
CURL = shutil.which("curl")


@dataclass
class World:
    """A home with secrets and files that run later, and a directory outside it (not under /tmp,
    which the sandbox makes private): every canary holds ``secret``."""

    home: Path
    outside: Path
    secret: str

    def env(self, **extra: str) -> dict[str, str]:
        return {"WSL_DISTRO": "Ubuntu", "WSL_HIDE_PATHS": str(self.outside / "vault"), **extra}


def _make_world(home: Path, outside: Path, secret: str | None = None) -> World:
    secret = secret or "CANARY-" + secrets.token_hex(8)
    files = {
        ".aws/credentials": secret,
        ".netrc": secret,
        ".ssh/id_ed25519": secret,
        ".docker/config.json": secret,
        ".config/gcloud/credentials.db": secret,
        ".profile": "export FROM_PROFILE=yes\n",
        ".bashrc": "# bashrc\n",
        "proj/.git/config": "[core]\n",
        "proj/.git/hooks/pre-commit.sample": "#!/bin/sh\n",
        "proj/src/main.c": "int main;\n",
    }
    for name, text in files.items():
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_text(text)
    (outside / "vault").mkdir()
    (outside / "vault" / "key").write_text(secret)
    (outside / "keep.txt").write_text("keep me\n")
    return World(home, outside, secret)


# The sandbox tests share this machine with each other (pytest's workers): a test marked ``machine``
# makes stand-ins where every launcher looks (/mnt/<drive>, /run/user, host sockets) and holds this
# lock alone; every other holds it shared, so no launcher looks those places up while they change.
MACHINE_LOCK = Path("/var/tmp/wslmcp-sandbox-tests.lock")


@contextlib.contextmanager
def machine(alone: bool) -> Iterator[None]:
    with MACHINE_LOCK.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> Iterator[World]:
    home = tmp_path / "home"
    home.mkdir()
    outside = Path(tempfile.mkdtemp(prefix="wslmcp-sandbox-", dir="/var/tmp"))
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("WSLMCP_STATE_DIR", str(tmp_path / "state"))
    try:
        with machine(request.node.get_closest_marker("machine") is not None):
            yield _make_world(home, outside)
    finally:
        shutil.rmtree(outside, ignore_errors=True)


def confinement(world: World, **env: str) -> Confinement:
    config = load_config(world.env(WSL_SANDBOX="on", **env))
    return Confinement(launcher(profile_for(config.policy, config.sandbox)))


def transports(
    world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str, **env: str
) -> tuple[ShellTransport, ShellTransport]:
    """The transport of ``kind`` without a sandbox and with one, as the server would build them."""
    confined = confinement(world, **env)
    if kind == "local":
        return LocalTransport(), LocalTransport(confinement=confined)
    standin = make_wsl_standin(tmp_path / "standin", {"Ubuntu": "Running"})
    for key, value in standin.env().items():
        monkeypatch.setenv(key, value)
    cli = WslExeCli("wsl.exe", kill_on_overflow=True)
    return WslExeTransport(cli, "Ubuntu", getpass.getuser()), WslExeTransport(cli, "Ubuntu", None, confined)


async def output(transport: ShellTransport, script: str, timeout_s: float = 60) -> str:
    run = await Runner(transport).run(ScriptCall(script, timeout_s=timeout_s, max_output=1 << 20))
    return (run.exchange.stdout + run.exchange.stderr).decode("utf-8", "replace")


def snapshot(*roots: Path) -> dict[str, bytes | None]:
    """Every file and link under ``roots`` (content, or link target), by path."""
    seen: dict[str, bytes | None] = {}
    for root in roots:
        for path in [root, *root.rglob("*")]:
            if path.is_symlink():
                seen[str(path)] = b"-> " + os.readlink(path).encode()
            elif path.is_file():
                seen[str(path)] = path.read_bytes()
            elif path.is_dir():
                seen[str(path)] = None
    return seen


@pytest.fixture
def tester_world(world: World) -> Iterator[World]:
    if not ROOT:
        pytest.skip("running as another user needs root")
    try:
        account = pwd.getpwnam("tester")
    except KeyError:
        pytest.skip("no user 'tester' here")
    base = Path(tempfile.mkdtemp(prefix="wslmcp-sandbox-tester-", dir="/var/tmp"))
    try:
        (base / "home").mkdir()
        (base / "outside").mkdir()
        made = _make_world(base / "home", base / "outside")
        for path in [base, *base.rglob("*")]:
            os.chown(path, account.pw_uid, account.pw_gid, follow_symlinks=False)
        yield made
    finally:
        shutil.rmtree(base, ignore_errors=True)


def as_tester(world: World, script: str, confined: Confinement | None) -> str:
    argv = distro_argv(ScriptCall(script), confined)
    done = subprocess.run(
        ["runuser", "-u", "tester", "--", "env", f"HOME={world.home}", "PATH=/usr/bin:/bin", *argv],
        capture_output=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    return (done.stdout + done.stderr).decode("utf-8", "replace")


def planted(home: Path) -> list[str]:
    """What would run later outside the sandbox: a file that runs later holding 'pwned' (or any file
    under a directory that does), a git hook that is not a sample, a git setting that runs a command,
    agent settings or MCP configuration holding 'pwned'."""
    found = []
    for _, path in RUNS_LATER:
        if not path.startswith("~/"):
            continue
        target = home / path[2:]
        files = [target] if target.is_file() else [p for p in target.rglob("*") if p.is_file()]
        found += [str(p) for p in files if b"pwned" in p.read_bytes()]
    gits = [p for p in home.rglob(".git") if p.is_dir()]
    for git in gits + [m for g in gits for m in (g / "modules").glob("*") if m.is_dir()]:  # submodules' too
        hooks = git / "hooks"
        if hooks.is_dir():
            found += [str(p) for p in hooks.iterdir() if p.is_file() and not p.name.endswith(".sample")]
    configs = [g / "config" for g in gits] + [home / ".gitconfig", home / ".config" / "git" / "config"]
    for config in configs:
        if config.is_file():
            listed = subprocess.run(["git", "config", "-f", str(config), "-z", "--list"], capture_output=True)
            for entry in listed.stdout.decode().split("\0"):
                key, _, value = entry.partition("\n")
                if key and runs_setting(key, value):
                    found.append(f"{config}: {key}")
    for name in (".mcp.json", ".claude/settings.json", ".claude/settings.local.json"):
        found += [str(p) for p in home.rglob(name) if p.is_file() and b"pwned" in p.read_bytes()]
    return found
