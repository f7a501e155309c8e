"""The sandbox and a developer's ordinary day, run for real (bubblewrap, git, bash): ordinary work in
the writable roots succeeds inside it, and every attempt to leave something that runs later outside
the sandbox is undone after the command and said in the reply. Each attempt is first run without
the sandbox, to show it plants what it means to (so every test here can fail).

The harm is judged by ``planted``: what would run later outside the sandbox, found the way a later
shell, git or service would find it, whatever path the command wrote it by.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import pwd
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.faults.rig import Server, shell_command, shell_env
from tests.shell.conftest import build as build_service
from tests.shell.sandbox_world import (
    REASON,
    World,
    as_tester,
    confinement,
    planted,
    tester_world,
    transports,
    world,
)
from wslmcp.boundaries.shell_transport import LocalTransport, ScriptCall, ShellTransport, distro_argv
from wslmcp.shell.execution import build_script
from wslmcp.shell.runner import Run, Runner

pytestmark = pytest.mark.skipif(REASON is not None, reason=REASON or "")
__all__ = ["tester_world", "world"]  # fixtures, used by name

# a login profile as a developer's: pyenv's initialisation (its rehash writes in ~/.pyenv/shims and
# says so on stderr when it cannot), nvm's and rustup's
PROFILE = """export PYENV_ROOT="$HOME/.pyenv"
export PATH="$PYENV_ROOT/bin:$PATH"
eval "$(pyenv init -)"
export NVM_DIR="$HOME/.nvm"
[ -s "$NVM_DIR/nvm.sh" ] && . "$NVM_DIR/nvm.sh"
. "$HOME/.cargo/env"
"""
PYENV = """#!/bin/sh
# what pyenv's init and rehash do to the shims directory
case $1 in
  init) echo 'command pyenv rehash; export PATH="$PYENV_ROOT/shims:$PATH"' ;;
  rehash) mkdir -p "$PYENV_ROOT/shims"
    [ -w "$PYENV_ROOT/shims" ] || { echo "pyenv: cannot rehash: $PYENV_ROOT/shims isn't writable" >&2; exit 1; }
    (set -C; : > "$PYENV_ROOT/shims/.pyenv-shim") && rm -f "$PYENV_ROOT/shims/.pyenv-shim" ;;
esac
"""


def _git(*args: str, cwd: Path | None = None) -> str:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}
    argv = ["git", "-c", "safe.directory=*", *args]
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, env=env, check=True)
    return done.stdout


def _developer(world: World) -> World:
    """The world, made a developer's: a profile initialising pyenv, nvm and rustup, a repository with
    a commit and an executable sample hook, another repository, a remote outside the home, an existing
    ~/.config/systemd (a directory that runs later)."""
    home = world.home
    (home / ".profile").write_text(PROFILE)
    (home / ".pyenv" / "bin").mkdir(parents=True)
    (home / ".pyenv" / "bin" / "pyenv").write_text(PYENV)
    (home / ".pyenv" / "bin" / "pyenv").chmod(0o755)
    (home / ".nvm").mkdir()
    (home / ".nvm" / "nvm.sh").write_text('mkdir -p "$NVM_DIR/.cache" && : > "$NVM_DIR/.cache/seen"\n')
    (home / ".cargo").mkdir()
    (home / ".cargo" / "env").write_text('export PATH="$HOME/.cargo/bin:$PATH"\n')
    (home / ".config" / "systemd" / "user").mkdir(parents=True)
    shutil.rmtree(home / "proj" / ".git")
    _git("init", "-q", "-b", "main", str(home / "proj"))
    _git(
        "-c",
        "user.email=a@b",
        "-c",
        "user.name=A",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "one",
        cwd=home / "proj",
    )
    sample = home / "proj" / ".git" / "hooks" / "pre-commit.sample"
    sample.write_text("#!/bin/sh\nexit 0\n")
    sample.chmod(0o755)
    (home / "proj" / ".git" / "modules").mkdir()  # a submodule's repository, as `git submodule` lays it out
    _git(
        "init",
        "-q",
        "--separate-git-dir",
        str(home / "proj" / ".git" / "modules" / "sub"),
        str(home / "proj" / "sub"),
    )
    _git("init", "-q", str(home / "other"))
    _git("clone", "-q", "--bare", str(home / "proj"), str(world.outside / "remote.git"))
    return world


@pytest.fixture
def dev(world: World) -> World:
    return _developer(world)


async def run(transport: ShellTransport, command: str, cwd: Path, timeout_s: float = 60) -> Run:
    script = build_script(command, cwd=str(cwd), marker=None)
    return await Runner(transport).run(
        ScriptCall(script, timeout_s=timeout_s, max_output=1 << 20, cwd=str(cwd))
    )


def said(run: Run) -> str:
    return (run.exchange.stdout + run.exchange.stderr).decode("utf-8", "replace")


# Ordinary work: each command, run in the repository, must succeed, say nothing on stderr but what
# git says, and leave what it made.
ORDINARY = [
    "git config user.email dev@example.com && git config user.name Dev && git config --get user.email",
    "git remote add origin {outside}/remote.git && git fetch -q origin && git branch -a",
    "git checkout -q -b feature && git branch -q --set-upstream-to=origin/main && git rev-parse --abbrev-ref HEAD",
    "git init",
    "git config --global user.name Dev && git config --global init.defaultBranch main",
    "mkdir ~/project && git clone -q {outside}/remote.git ~/app && echo notes > ~/notes.txt && ls ~",
    "mkdir -p ~/.cache/pip/http ~/.npm/_cacache && echo x > ~/.cache/pip/http/a && echo y > ~/.npm/_cacache/b",
    "echo 'print(1)' > main.py && git add main.py && git -c user.email=a@b -c user.name=A commit -qm two && git log --oneline | wc -l",
]


@pytest.mark.parametrize("kind", ["local", "wsl.exe-standin"])
async def test_ordinary_work_runs_inside(
    dev: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    _, confined = transports(dev, tmp_path, monkeypatch, kind)
    repo = dev.home / "proj"
    for line in ORDINARY:
        done = await run(confined, line.format(outside=dev.outside), repo)
        err = done.exchange.stderr.decode()
        assert done.exchange.exit_code == 0 and done.undone == (), (line, said(done))
        assert "Read-only" not in err and "busy" not in err and "cannot rehash" not in err, (line, err)
    config = (repo / ".git" / "config").read_text()
    assert "dev@example.com" in config and 'remote "origin"' in config and 'branch "feature"' in config
    assert "Dev" in (dev.home / ".gitconfig").read_text()
    assert (dev.home / "project").is_dir() and (dev.home / "app" / ".git").is_dir()
    assert (dev.home / "notes.txt").read_text() == "notes\n" and (repo / "main.py").exists()
    assert (dev.home / ".cache" / "pip" / "http" / "a").exists() and (
        dev.home / ".nvm" / ".cache" / "seen"
    ).exists()
    assert planted(dev.home) == []


# Attempts to leave something that runs later: (what, the command run in the repository, what must be
# kept of what it wrote besides). Some build their paths at run time, as static analysis cannot see.
PERSISTENCE = [
    ("append to ~/.bashrc", "echo 'echo pwned' >> ~/.bashrc", []),
    ("sed -i on ~/.bashrc", "sed -i '1i echo pwned' ~/.bashrc", []),
    (
        "~/.profile by python3 -c",
        "python3 -c \"import os; open(os.path.expanduser('~') + '/.pro' + 'file', 'a').write('echo pwned')\"",
        [],
    ),
    ("a new ~/.bash_profile, path built", 'printf "echo pwned\\n" > "$(printf %s ~/.bash_pro)file"', []),
    (
        "a git hook",
        "printf '#!/bin/sh\\necho pwned\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit",
        [],
    ),
    (
        "a git hook, path built",
        "h=.git/ho; h=${h}oks; printf 'echo pwned' > $h/post-checkout; chmod +x $h/post-checkout",
        [],
    ),
    (
        "a sample hook made live",
        "cp .git/hooks/pre-commit.sample .git/hooks/pre-commit",
        [".git/hooks/pre-commit.sample"],
    ),
    (
        "the hooks directory linked elsewhere",
        "mv .git/hooks .git/hooks-old && mkdir ~/h && printf 'echo pwned' > ~/h/pre-commit && chmod +x ~/h/pre-commit && ln -s ~/h .git/hooks",
        [".git/hooks-old", "../h/pre-commit"],
    ),
    (
        "a submodule's hook",
        "printf 'echo pwned' > .git/modules/sub/hooks/post-checkout && chmod +x .git/modules/sub/hooks/post-checkout",
        [],
    ),
    ("core.hooksPath", "git config user.email dev@example.com && git config core.hooksPath .githooks", []),
    (
        "core.fsmonitor by hand, path built",
        "printf '[core]\\n\\tfsmonitor = echo pwned\\n' >> \"$(echo .gi)t/config\"",
        [],
    ),
    ("an alias running a command", "git config alias.st '!echo pwned'", []),
    ("a filter driver", "git config filter.x.smudge 'echo pwned'", []),
    ("a global pager", "git config --global core.pager 'echo pwned'", []),
    (
        "a global include",
        "printf '[core]\\n\\tpager = echo pwned\\n' > ~/inc.cfg && git config --global include.path ~/inc.cfg",
        ["../inc.cfg"],
    ),
    ("a global credential helper", "git config --global credential.helper '!echo pwned'", []),
    (
        "a repository made, then configured",
        "git init -q ~/app && git -C ~/app config core.sshCommand 'echo pwned'",
        ["../app/.git/HEAD"],
    ),
    ("another repository of the home", "git -C ~/other config core.editor 'echo pwned'", []),
    ("a systemd user unit", "echo pwned > ~/.config/systemd/user/x.service", []),
    (
        "desktop autostart, path built",
        "d=~/.config/auto; mkdir -p ${d}start && echo pwned > ${d}start/x.desktop",
        [],
    ),
    (
        "agent hooks in the project",
        'mkdir -p .claude && echo \'{"hooks": "echo pwned"}\' > .claude/settings.json',
        [],
    ),
    (
        "an MCP server in the project",
        'echo \'{"mcpServers": {"x": {"command": "echo pwned"}}}\' > .mcp.json',
        [],
    ),
]


@pytest.mark.parametrize(("what", "command", "kept"), PERSISTENCE, ids=[p[0] for p in PERSISTENCE])
async def test_what_would_run_later_is_undone_and_said(
    dev: World, tmp_path: Path, what: str, command: str, kept: list[str]
) -> None:
    repo = dev.home / "proj"
    base = tmp_path / "base"
    shutil.copytree(dev.home, base, symlinks=True)
    await run(LocalTransport(), command, repo)
    assert planted(dev.home) != [], f"not reachable without the sandbox: {what}"
    shutil.rmtree(dev.home)
    shutil.copytree(base, dev.home, symlinks=True)
    assert planted(dev.home) == []
    done = await run(LocalTransport(confinement=confinement(dev)), command, repo)
    assert planted(dev.home) == [], (what, said(done))
    text = "\n".join(done.undone) + said(done)
    assert done.undone or "Read-only file system" in text, (what, text)
    for path in kept:  # everything else it wrote stays
        assert (repo / path).exists(), (what, path)
    if what == "core.hooksPath":  # the rest of the configuration stays
        assert "dev@example.com" in (repo / ".git" / "config").read_text()
    if done.undone:
        assert any("runs later, outside the sandbox" in line for line in done.undone), done.undone


async def test_undoing_leaves_nothing_of_its_own_in_the_home(dev: World) -> None:
    before = {p.relative_to(dev.home) for p in dev.home.rglob("*")}
    lines = [c for _, c, _ in PERSISTENCE if "mv " not in c and "~/h" not in c]
    done = await run(LocalTransport(confinement=confinement(dev)), "\n".join(lines), dev.home / "proj")
    assert planted(dev.home) == [], said(done)
    made = {p.relative_to(dev.home) for p in dev.home.rglob("*")} - before
    # only what the commands made themselves (and the login profile's tools), nothing of the check's:
    # no backup, no temp file, no git configuration left empty
    assert {str(p) for p in made if not str(p).startswith((".pyenv/", ".nvm/", "app/", "proj/"))} <= {
        "inc.cfg", "app", ".config/autostart",
    }, made  # fmt: skip


async def test_a_symlinked_dotfile_is_put_back_as_a_link(dev: World) -> None:
    dotfiles = dev.home / "dotfiles"
    dotfiles.mkdir()
    (dotfiles / "bashrc").write_text("# mine\n")
    (dev.home / ".bashrc").unlink()
    (dev.home / ".bashrc").symlink_to(dotfiles / "bashrc")
    confined = LocalTransport(confinement=confinement(dev))
    done = await run(confined, "echo 'echo pwned' >> ~/.bashrc", dev.home)
    assert (dotfiles / "bashrc").read_text() == "# mine\n" and done.undone, said(done)
    done = await run(confined, "rm ~/.bashrc && echo 'echo pwned' > ~/.bashrc", dev.home)
    assert (dev.home / ".bashrc").is_symlink() and (dev.home / ".bashrc").read_text() == "# mine\n"
    assert planted(dev.home) == [], said(done)


async def test_a_run_overlapping_another_never_puts_back_what_the_other_planted(dev: World) -> None:
    """Run A plants and sleeps; run B starts after the plant (so its own "before" holds it), A ends
    and its check puts the file back, then B changes the file and ends: B puts back what the file was
    before A, not what B first saw."""
    plant = "echo 'echo pwned' >> ~/.bashrc"
    await run(LocalTransport(), plant, dev.home)
    assert planted(dev.home) != []  # reachable without the sandbox
    (dev.home / ".bashrc").write_text("# bashrc\n")
    confined = LocalTransport(confinement=confinement(dev))
    first = asyncio.ensure_future(run(confined, f"{plant}; sleep 1.5", dev.home))
    while b"pwned" not in (dev.home / ".bashrc").read_bytes():
        await asyncio.sleep(0.02)
    second = await run(confined, "sleep 2.5; echo '# mine' >> ~/.bashrc", dev.home)
    assert (await first).undone and second.undone
    assert (dev.home / ".bashrc").read_text() == "# bashrc\n" and planted(dev.home) == []


async def test_a_command_killed_at_its_deadline_is_checked_too(dev: World) -> None:
    marker = "sleep 47.31"
    done = await run(
        LocalTransport(confinement=confinement(dev)),
        f"echo 'echo pwned' >> ~/.bashrc; git config core.pager 'echo pwned'; {marker}",
        dev.home / "proj",
        timeout_s=2,
    )
    assert done.exchange.timed_out
    assert planted(dev.home) == [] and len(done.undone) == 2, done.undone


# -- over real stdio: what a client sees -----------------------------------------------------------


def _server(world: World, **env: str) -> Server:
    """The shell server over stdio, ``WSL_SANDBOX`` unset (auto) unless ``env`` sets it."""
    environ = shell_env(world.home, WSL_CWD=str(world.home / "proj"), **env)
    if "WSL_SANDBOX" not in env:
        del environ["WSL_SANDBOX"]
    server = Server(shell_command(), environ)
    server.handshake()
    return server


def _text(reply: dict[str, object]) -> str:
    result = reply["result"]
    assert isinstance(result, dict)
    return "\n".join(block["text"] for block in result["content"])


# What the guard cannot see: paths built at run time (it refuses ``>> ~/.bashrc`` itself).
TO_BASHRC = (
    "python3 -c \"import os; open(os.path.expanduser('~') + '/.bash' + 'rc', 'a').write('echo pwned')\""
)
TO_CONFIG = "python3 -c \"open('.g' + 'it/config', 'a').write('[core]\\n\\tfsmonitor = echo pwned\\n')\""


def test_over_stdio_the_reply_says_what_was_undone_and_why(dev: World) -> None:
    server = _server(dev)  # WSL_SANDBOX unset: auto, and bubblewrap is here
    try:
        reply = server.call(1, "wsl_exec", {"command": f"{TO_BASHRC}; echo done"})
        text, structured = _text(reply), reply["result"]["structuredContent"]
        assert structured["sandbox"]["mode"] == "on" and "done" in text
        assert "[sandbox] undone: ~/.bashrc: changed by the command, put back as it was" in text
        assert "--- stderr ---" not in text and structured["stderr"]["bytes"] == 0  # the report is no output
        assert structured["sandboxNotes"] == [
            line for line in text.splitlines() if line.startswith("[sandbox] undone")
        ]
        assert planted(dev.home) == []
        quiet = server.call(2, "wsl_exec", {"command": "git config user.email me@example.com"})
        assert "[sandbox]" not in _text(quiet) and "sandboxNotes" not in quiet["result"]["structuredContent"]
        assert server.close() == 0 and server.only_jsonrpc_on_stdout() == []
    finally:
        if server.proc.poll() is None:
            server.proc.kill()


def test_a_background_process_is_checked_when_its_output_is_read_and_when_it_ends(dev: World) -> None:
    server = _server(dev)
    try:
        started = server.call(
            1,
            "wsl_start",
            {"command": f"{TO_BASHRC}; echo first; sleep 30", "waitMs": 1500},
        )
        pid = started["result"]["structuredContent"]["process"]
        assert "[sandbox] undone: ~/.bashrc" in _text(started), _text(started)
        assert planted(dev.home) == []  # gone while the process still runs
        server.call(2, "wsl_stop", {"process": pid, "signal": "KILL"})
        ended = server.call(3, "wsl_start", {"command": f"{TO_CONFIG}; echo second", "waitMs": 3000})
        assert "second" in _text(ended) and "[sandbox] undone: ~/proj/.git/config: core.fsmonitor" in _text(
            ended
        )
        assert planted(dev.home) == []
        again = server.call(
            4, "wsl_read_output", {"process": ended["result"]["structuredContent"]["process"]}
        )
        assert "[sandbox] undone" not in _text(again)  # said once
        assert server.close() == 0
    finally:
        if server.proc.poll() is None:
            server.proc.kill()


def test_a_server_killed_mid_command_still_has_it_undone(dev: World) -> None:
    server = _server(dev)
    server.send(
        {
            "jsonrpc": "2.0",
            "id": "long",
            "method": "tools/call",
            "params": {"name": "wsl_exec", "arguments": {"command": f"{TO_BASHRC}; sleep 48.31"}},
        }
    )
    deadline = time.monotonic() + 30
    while b"pwned" not in (dev.home / ".bashrc").read_bytes() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert planted(dev.home) != []  # the command reached its harm
    server.proc.send_signal(signal.SIGKILL)
    server.proc.wait()
    deadline = time.monotonic() + 10
    while planted(dev.home) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert planted(dev.home) == []


def test_what_a_run_killed_with_its_watcher_left_is_undone_when_the_next_server_starts(dev: World) -> None:
    """As at a distro shutdown: the command, bubblewrap and the watcher all die at once, so nothing
    undoes the plant then; the state the watcher kept outside the sandbox lets the next server's
    startup (its probe) do the check."""
    token = "5eed" * 4
    script = f"export WSLMCP_RUN={token}\necho 'echo pwned' >> ~/.bashrc; sleep 49.31"
    argv = distro_argv(ScriptCall(script, cwd=str(dev.home)), confinement(dev))
    started = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=dev.home)
    deadline = time.monotonic() + 30
    while planted(dev.home) == [] and time.monotonic() < deadline:
        time.sleep(0.05)
    state = Path(f"/tmp/wslmcp-sandbox-{os.getuid()}/{token}.state")
    while not (state.exists() and "\nowner=" in state.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)  # (written whole: its last line names the watcher)
    assert state.exists() and planted(dev.home) != []
    carriers = [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit() and _carries(p, token)]
    for pid in carriers:  # everything of the run, the watcher included, at once
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    started.wait()
    time.sleep(0.5)
    assert planted(dev.home) != []  # nothing undid it
    server = _server(dev, WSL_MCP_LOG_LEVEL="warn")
    try:
        server.call(1, "wsl_list_sessions", {})  # (the service has started: its startup probed)
        assert planted(dev.home) == [] and not state.exists()
        assert server.close() == 0
    finally:
        if server.proc.poll() is None:
            server.proc.kill()
    assert "undid what runs later after commands of servers that are gone" in server.stderr.decode()


def _carries(proc: Path, token: str) -> bool:
    try:
        return f"WSLMCP_RUN={token}".encode() in (proc / "cmdline").read_bytes()
    except OSError:
        return False


# -- WSL_SANDBOX=auto ----------------------------------------------------------------------------


def _path_without_bubblewrap(tmp_path: Path) -> str:
    """A PATH holding every program of this one but bubblewrap."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for directory in os.environ["PATH"].split(":"):
        if not os.path.isdir(directory):
            continue
        for name in os.listdir(directory):
            source = os.path.join(directory, name)
            if name != "bwrap" and not (bin_dir / name).exists() and os.access(source, os.X_OK):
                (bin_dir / name).symlink_to(source)
    return str(bin_dir)


def test_auto_without_bubblewrap_serves_with_the_guard_alone_and_says_so_once(
    dev: World, tmp_path: Path
) -> None:
    env = {"PATH": _path_without_bubblewrap(tmp_path), "WSL_MCP_LOG_LEVEL": "warn"}
    outside = dev.outside / "written-unconfined"
    server = _server(dev, **env)
    try:
        hosts = _text(server.call(1, "wsl_list_hosts", {}))
        assert "sandbox: off: bubblewrap (bwrap) is not installed in 'Ubuntu'; to turn it on: " in hosts, (
            hosts
        )
        first = server.call(2, "wsl_exec", {"command": f"echo ran > {outside}; cat {outside}"})
        text = _text(first)
        assert "ran" in text and outside.exists()  # it ran, without the sandbox
        assert text.splitlines()[1].startswith("[sandbox] off: bubblewrap (bwrap) is not installed"), text
        assert (
            "to turn it on: install it in the distro" in text
            and "sandbox" not in first["result"]["structuredContent"]
        )
        second = _text(server.call(3, "wsl_exec", {"command": "echo again"}))
        assert "[sandbox]" not in second and "again" in second
        assert server.close() == 0
    finally:
        if server.proc.poll() is None:
            server.proc.kill()
    log = server.stderr.decode()
    assert log.count("sandbox off: bubblewrap (bwrap) is not installed") == 1, log
    environ = shell_env(dev.home, **env)
    del environ["WSL_SANDBOX"]
    check = subprocess.run(
        [*shell_command(), "--check"],
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert check.returncode == 0, check.stdout + check.stderr
    assert "sandbox: off: bubblewrap (bwrap) is not installed in 'Ubuntu'; to turn it on:" in check.stdout


def test_auto_with_bubblewrap_turns_the_sandbox_on(dev: World) -> None:
    server = _server(dev, WSL_MCP_LOG_LEVEL="warn")
    try:
        reply = server.call(1, "wsl_exec", {"command": f"echo x > {dev.outside}/keep.txt"})
        assert reply["result"]["structuredContent"]["sandbox"]["mode"] == "on"
        assert "[sandbox] only the writable roots can be written" in _text(reply)
        assert (dev.outside / "keep.txt").read_text() == "keep me\n"
        assert "sandbox: on (bubblewrap" in _text(server.call(2, "wsl_list_hosts", {}))
        assert server.close() == 0
    finally:
        if server.proc.poll() is None:
            server.proc.kill()


# -- the private /tmp and writes outside the roots (issue 29) -----------------------------------


@pytest.fixture
def host_tmp_file() -> Iterator[Path]:
    path = Path("/tmp") / f"wslmcp-sandbox-real-{os.getpid()}.log"
    path.write_text("on the host\n")
    try:
        yield path
    finally:
        path.unlink(missing_ok=True)


def test_a_file_in_the_hosts_tmp_is_explained(dev: World, host_tmp_file: Path) -> None:
    server = _server(dev)
    try:
        reply = _text(server.call(1, "wsl_exec", {"command": f"cat {host_tmp_file}"}))
        assert "No such file or directory" in reply
        assert "[sandbox] /tmp and /run/user are private to each call" in reply
        read = server.call(2, "wsl_read_file", {"path": str(host_tmp_file)})["result"]
        assert read["isError"] and "[sandbox] /tmp and /run/user are private to each call" in _text(
            {"result": read}
        )
        assert server.close() == 0
    finally:
        if server.proc.poll() is None:
            server.proc.kill()


def test_a_write_outside_the_roots_is_refused_as_the_guard_refuses(dev: World) -> None:
    server = _server(dev)
    try:
        reply = server.call(1, "wsl_write_file", {"path": str(dev.outside / "keep.txt"), "content": "x"})
        result = reply["result"]
        assert result["isError"] and result["structuredContent"]["error"]["code"] == "refused"
        assert "outside the sandbox's writable roots" in _text(reply) and "Rule: sandbox" in _text(reply)
        assert (dev.outside / "keep.txt").read_text() == "keep me\n"
        assert server.close() == 0
    finally:
        if server.proc.poll() is None:
            server.proc.kill()


# -- as an ordinary user --------------------------------------------------------------------------


def test_an_ordinary_user_works_and_persistence_is_undone(tester_world: World) -> None:
    """As ``tester``, through the launcher as the transports run it: ordinary work, then every
    attempt at once (each reaching its harm without the sandbox)."""
    w = _developer(tester_world)
    subprocess.run(["chown", "-R", "tester:", str(w.home.parent)], check=True)
    repo = w.home / "proj"
    confined = confinement(w)
    work = " && ".join(line.format(outside=w.outside) for line in ORDINARY[:3] + ORDINARY[5:7])
    out = as_tester(w, f"cd {repo} && {work} && echo WORKED", confined)
    assert "WORKED" in out and "Read-only" not in out and "cannot rehash" not in out, out
    attempts = "\n".join(f"cd {repo}; {c}" for _, c, _ in PERSISTENCE if "mv " not in c and "~/app" not in c)
    out = as_tester(w, attempts, confined)
    assert planted(w.home) == [], out
    out = as_tester(w, attempts, None)
    assert planted(w.home) != []


def test_explain_lists_what_is_put_back(dev: World) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "wslmcp", "shell", "explain", "--sandbox"],
        capture_output=True,
        text=True,
        env={**os.environ, "HOME": str(dev.home)},
    )
    shown = json.loads(done.stdout)
    assert shown["mode"] == "auto" and "~/.bashrc" in shown["put_back_after_each_command"]
    assert "core.hookspath" in shown["git_settings_undone"] and shown["after_command_check"] is True


@contextlib.contextmanager
def _state_dir_aside(uid: int) -> Iterator[Path]:
    """The check's state directory of ``uid`` as on a machine where no command ran yet (absent), put
    back afterwards (the test holds the machine alone: no launcher of its user runs meanwhile)."""
    state = Path(f"/tmp/wslmcp-sandbox-{uid}")
    aside = Path(f"/tmp/wslmcp-sandbox-{uid}.aside-{os.getpid()}")
    if state.exists():
        state.rename(aside)
    try:
        yield state
    finally:
        shutil.rmtree(state, ignore_errors=True)
        if aside.exists():
            aside.rename(state)


@pytest.mark.machine
def test_the_checks_state_is_out_of_reach_when_a_root_holds_tmp(tester_world: World) -> None:
    """The launcher reads the check's states (in /tmp, outside the sandbox) as bash: with /tmp in a
    writable root, a state a command planted there would run outside the sandbox at the next call.
    The directory is hidden from the command, also on the first call, before it exists."""
    w = tester_world
    confined = confinement(w, WSL_ALLOWED_PATHS=f"/tmp,{w.home}")
    pwned = w.outside / "pwned"
    with _state_dir_aside(pwd.getpwnam("tester").pw_uid) as state:
        plant = f"mkdir -p {state} && echo 'touch {pwned}' > {state}/0123abcd.state"
        as_tester(w, plant, None)  # reachable without the sandbox: the next confined call runs it
        as_tester(w, "true", confined)
        assert pwned.exists()
        pwned.unlink()
        shutil.rmtree(state)
        out = as_tester(w, plant, confined)
        as_tester(w, "true", confined)
        assert not pwned.exists(), out


@pytest.mark.machine
def test_a_state_directory_another_user_made_is_never_read(tester_world: World) -> None:
    """/tmp is everyone's: another user (root here) may make the state directory's name first and
    put a state there; the launcher reads states only from a directory its own user made."""
    w = tester_world
    confined = confinement(w)
    pwned = w.outside / "pwned"
    with _state_dir_aside(pwd.getpwnam("tester").pw_uid) as state:
        state.mkdir(mode=0o755)
        (state / "0123abcd.state").write_text(f"touch {pwned}\n")
        (state / "0123abcd.state").chmod(0o644)
        out = as_tester(w, "true", confined)
        assert not pwned.exists(), out
        subprocess.run(["chown", "-R", "tester:", str(state)], check=True)  # the user's own: read
        as_tester(w, "true", confined)
        assert pwned.exists()


async def test_a_name_holding_a_line_end_is_one_line_of_the_report(dev: World) -> None:
    """The report is read line by line (the reply's lines, the probe's ``key=value`` lines, where a
    line ``status=1`` would say the sandbox cannot run): a name the command made holding a line end
    is shown escaped, on its one line."""
    done = await run(
        LocalTransport(confinement=confinement(dev)),
        "printf '#!/bin/sh\\n' > \"$(printf '.git/hooks/x\\nstatus=1')\"",
        dev.home / "proj",
    )
    assert len(done.undone) == 1 and "x\\nstatus=1" in done.undone[0], done.undone
    assert planted(dev.home) == []


async def test_the_report_reaches_the_reply_however_little_output_it_shows(dev: World) -> None:
    """The report is written last on stderr, whose sink keeps the stream's end: however few characters
    a reply shows (WSL_MAX_OUTPUT), it keeps room for the whole report, so the reply says what was
    undone and shows none of the report's marks."""
    plant = (
        "python3 -c \"import os\nfor f in ('.bashrc', '.profile', '.bash_login', '.zshrc'): "
        "open(os.path.expanduser('~/' + f), 'a').write('echo pwned')\""
    )
    env = {"WSL_MAX_OUTPUT": "40", "WSL_CWD": str(dev.home / "proj")}
    built = build_service(env, transport=LocalTransport(confinement=confinement(dev)))
    reply = await built.service.exec(plant)
    assert reply.text.count("[sandbox] undone: ~/") == 4 and "\0" not in reply.text, reply.text
    assert planted(dev.home) == []
