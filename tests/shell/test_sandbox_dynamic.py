"""The sandbox, run for real: commands under bubblewrap against canaries, each case also run with the
sandbox off to show the canary was reachable (so every test can fail).

The confinement is checked where the guard cannot help: scripts go straight to the runner and its
transport (the one path every tool, file-tool script and sweep takes), over the local transport and
the wsl.exe stand-in, as root and as the ordinary user ``tester`` where it matters. The server-level
tests check what a user sees: the ``[sandbox]`` line, the file tools, failing closed, ``--check``.
Where user namespaces cannot be used, everything here skips with that reason.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.faults.rig import Server, alive, descendants, shell_command, shell_env
from tests.shell.conftest import survivors
from tests.shell.sandbox_world import (
    CURL,
    REASON,
    ROOT,
    World,
    _make_world,
    as_tester,
    confinement,
    output,
    planted,
    snapshot,
    tester_world,
    transports,
    world,
)
from tests.shell.standin import make_wsl_standin
from wslmcp import wiring
from wslmcp.boundaries.shell_transport import (
    LocalTransport,
    ScriptCall,
    ShellTransport,
    WslExeTransport,
)
from wslmcp.boundaries.wsl_exe import WslExeCli
from wslmcp.shell.assembly import Options, build
from wslmcp.shell.config import load_config
from wslmcp.shell.execution import build_script
from wslmcp.shell.replies import render, render_check
from wslmcp.shell.runner import Run, Runner
from wslmcp.shell.sandbox import profile_for
from wslmcp.shell.sandbox_gate import SandboxGate
from wslmcp.shell.service import ShellService

pytestmark = pytest.mark.skipif(REASON is not None, reason=REASON or "")
__all__ = ["tester_world", "world"]  # fixtures, used by name


# The harm, many ways: reading hidden files, directly, recursively, through links and after trying
# to undo the mounts.
READS = """cat ~/.aws/credentials ~/.netrc ~/.ssh/id_ed25519 ~/.docker/config.json ~/.config/gcloud/credentials.db
grep -r CANARY ~ {outside} 2>&1
find ~ {outside} -type f -exec cat {{}} + 2>&1
ln -s ~/.aws ~/proj/link 2>/dev/null; cat ~/proj/link/credentials; rm -f ~/proj/link
cd ~/.ssh && cat id_ed25519; cd {outside}/vault && cat key
cat {outside}/vault/key
unshare -Urm sh -c 'umount ~/.aws; umount {outside}/vault; cat ~/.aws/credentials {outside}/vault/key' 2>&1
cat /proc/1/root{outside}/vault/key /proc/1/root$HOME/.netrc 2>&1
chmod 700 ~/.aws {outside}/vault 2>&1; cat ~/.aws/credentials {outside}/vault/key 2>&1
true"""


@pytest.mark.parametrize("kind", ["local", "wsl.exe-standin"])
async def test_hidden_secrets_never_appear(
    world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    plain, confined = transports(world, tmp_path, monkeypatch, kind)
    script = READS.format(outside=world.outside)
    assert world.secret in await output(plain, script)  # reachable without the sandbox
    said = await output(confined, script)
    assert world.secret not in said, said
    assert "Permission denied" in said
    # a secret made after the server started is hidden too (paths are looked up at every call)
    (world.home / ".kube").mkdir()
    (world.home / ".kube" / "config").write_text(world.secret)
    assert world.secret in await output(plain, "cat ~/.kube/config")
    assert world.secret not in await output(confined, "cat ~/.kube/config; grep -r CANARY ~/.kube")


# Writes outside the writable roots, and hidden paths renamed out of reach of the next call, many ways
# (each line on its own). What runs later inside the roots is test_sandbox_work's.
WRITES = """echo pwned > {outside}/keep.txt
rm -f {outside}/keep.txt
touch {outside}/new.txt
mv ~/.aws ~/aws-old
mv ~/.config ~/.config-old
mv ~/.docker ~/docker-old
mkdir ~/moved && mv ~/.ssh ~/moved/"""


# The hooks and configuration of a repository deep in the home, written from inside it (the call
# starts there, as a session's or a given working directory makes it), its path built at run time.
DEEP = "work/apps/proj"
DEEP_WRITES = """h=.git/ho; h=${h}oks; echo pwned > $h/pre-commit
g=.gi; printf '[core]\\n\\tpager = echo pwned\\n' >> ${g}t/config
cd .. && mv proj proj-old && mkdir -p proj/.git/hooks && echo pwned > proj/.git/hooks/pre-commit"""


@pytest.mark.parametrize("kind", ["local", "wsl.exe-standin"])
async def test_a_repository_worked_in_at_any_depth_is_checked(
    world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    repo = world.home / DEEP

    def make() -> None:
        (repo / ".git" / "hooks").mkdir(parents=True)
        (repo / ".git" / "config").write_text("[core]\n")
        (repo / "main.c").write_text("int main;\n")

    make()
    plain, confined = transports(world, tmp_path, monkeypatch, kind)

    async def run(transport: ShellTransport, line: str) -> Run:
        script = build_script(line, cwd=str(repo), marker=None)
        return await Runner(transport).run(
            ScriptCall(script, timeout_s=60, max_output=1 << 20, cwd=str(repo))
        )

    for line in DEEP_WRITES.splitlines():  # each reachable without the sandbox, then undone with it
        await run(plain, line)
        assert planted(world.home) != [], f"not reachable without the sandbox: {line}"
        shutil.rmtree(world.home / "work/apps")
        make()
        done = await run(confined, line)
        assert planted(world.home) == [] and done.undone, (line, done)
        shutil.rmtree(world.home / "work/apps")
        make()
    done = await run(confined, "echo made > new.c && cat new.c")  # the project itself stays writable
    assert (repo / "new.c").read_text() == "made\n" and done.undone == ()


@pytest.mark.parametrize("kind", ["local", "wsl.exe-standin"])
async def test_what_lies_outside_and_what_is_hidden_stays_where_it_is(
    world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    plain, confined = transports(world, tmp_path, monkeypatch, kind)
    lines = WRITES.format(outside=world.outside).splitlines()
    before = snapshot(world.home, world.outside)
    for line in lines:  # each harm on its own, then the world made again, so each is shown reachable
        await output(plain, line)
        assert snapshot(world.home, world.outside) != before, f"not reachable without the sandbox: {line}"
        for directory in (world.home, world.outside):
            shutil.rmtree(directory)
            directory.mkdir()
        _make_world(world.home, world.outside, world.secret)
        assert snapshot(world.home, world.outside) == before
    said = await output(confined, "\n".join(lines))
    after = snapshot(world.home, world.outside)
    assert {k: v for k, v in after.items() if not k.endswith("/moved")} == before, said
    assert "Read-only file system" in said and "busy" in said
    # inside the writable root, work goes on
    said = await output(
        confined, "echo made > ~/proj/src/new.c && cat ~/proj/src/new.c && rm ~/proj/src/main.c"
    )
    assert "made" in said and not (world.home / "proj/src/main.c").exists()
    assert (world.home / "proj/src/new.c").read_text() == "made\n"


async def test_writable_roots_are_wsl_allowed_paths_and_none_when_read_only(
    world: World, tmp_path: Path
) -> None:
    work = world.home / "proj"
    only_proj = LocalTransport(confinement=confinement(world, WSL_ALLOWED_PATHS=str(work)))
    said = await output(
        only_proj,
        f"echo a > {work}/a.txt; echo b > ~/b.txt; echo b > {world.outside}/b.txt; cat {work}/a.txt",
    )
    assert (work / "a.txt").read_text() == "a\n"
    assert not (world.home / "b.txt").exists() and not (world.outside / "b.txt").exists()
    assert "b.txt: Read-only file system" in said
    read_only = LocalTransport(confinement=confinement(world, WSL_READONLY="true"))
    said = await output(read_only, f"echo c > {work}/c.txt; echo c > {world.outside}/c.txt")
    assert not (work / "c.txt").exists() and not (world.outside / "c.txt").exists()
    assert "c.txt: Read-only file system" in said


@pytest.fixture
def drive(world: World) -> Iterator[Path]:
    """A Windows drive stand-in at /mnt/<letter>, with a user profile holding a secret (root only)."""
    if not ROOT:
        pytest.skip("making a /mnt/<drive> stand-in needs root")
    letter = next((c for c in "qrstuvwxyz" if not Path(f"/mnt/{c}").exists()), None)
    if letter is None:
        pytest.skip("no free /mnt/<letter> for a drive stand-in")
    mount = Path(f"/mnt/{letter}")
    profile = mount / "Users" / "bob"
    try:
        (profile / ".aws").mkdir(parents=True)
        (profile / ".aws" / "credentials").write_text(world.secret)
        (profile / "AppData" / "Roaming" / "Claude").mkdir(parents=True)
        (profile / "AppData" / "Roaming" / "Claude" / "config.json").write_text(world.secret)
        (profile / "doc.txt").write_text("doc\n")
        (profile / "proj").mkdir()
        yield mount
    finally:
        shutil.rmtree(mount, ignore_errors=True)


@pytest.mark.machine
async def test_windows_drives_are_read_only_and_their_profiles_secrets_hidden(
    world: World, drive: Path
) -> None:
    profile = drive / "Users" / "bob"
    script = f"cat {profile}/.aws/credentials {profile}/AppData/Roaming/Claude/config.json; echo x >> {profile}/doc.txt; touch {profile}/proj/new"
    before = snapshot(drive)
    said = await output(LocalTransport(), script)
    assert world.secret in said and snapshot(drive) != before  # reachable without the sandbox
    (profile / "doc.txt").write_text("doc\n")
    (profile / "proj" / "new").unlink()
    before = snapshot(drive)
    everything = LocalTransport(confinement=confinement(world, WSL_ALLOWED_PATHS="/"))
    said = await output(everything, script)
    assert world.secret not in said and snapshot(drive) == before, said
    # with Windows allowed, a writable root on the drive is writable, the rest of it is not
    opened = LocalTransport(
        confinement=confinement(world, WSL_ALLOW_WINDOWS="true", WSL_ALLOWED_PATHS=str(profile / "proj"))
    )
    said = await output(opened, script)
    assert (profile / "proj" / "new").exists() and (profile / "doc.txt").read_text() == "doc\n"
    assert world.secret not in said


class Listener:
    """A real listening socket (unix or TCP on loopback) that answers every connection with
    ``answer`` as an HTTP response, until closed."""

    def __init__(self, sock: socket.socket, answer: str) -> None:
        self.sock = sock
        self.answer = answer
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except (TimeoutError, OSError):
                continue
            with conn, contextlib.suppress(OSError):
                conn.settimeout(2)
                conn.recv(4096)
                conn.sendall(
                    f"HTTP/1.0 200 OK\r\nContent-Length: {len(self.answer)}\r\n\r\n{self.answer}".encode()
                )

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self.sock.close()


@contextlib.contextmanager
def unix_listener(path: Path, answer: str) -> Iterator[Listener]:
    made = [p for p in [path.parent, *path.parent.parents] if not p.exists()]
    path.parent.mkdir(parents=True, exist_ok=True)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(path))
    os.chmod(path, 0o777)
    listener = Listener(sock, answer)
    try:
        yield listener
    finally:
        listener.close()
        path.unlink(missing_ok=True)
        for directory in made:
            with contextlib.suppress(OSError):
                directory.rmdir()


SOCKETS = {  # the stand-ins: Docker's, WSL's interop, the system D-Bus and a user's gpg-agent sockets
    "docker": Path("/run/docker.sock"),
    "interop": Path("/run/WSL/1_interop"),
    "dbus": Path("/run/dbus/system_bus_socket"),
    "gpg-agent": Path(f"/run/user/{os.getuid()}/gnupg/S.gpg-agent"),
}


@pytest.mark.machine
@pytest.mark.skipif(CURL is None, reason="needs curl to talk to the socket stand-ins")
@pytest.mark.parametrize("name", list(SOCKETS))
async def test_host_control_sockets_cannot_be_reached(
    world: World, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    path = SOCKETS[name]
    if path.exists():
        pytest.skip(f"{path} exists on this machine; the stand-in is made only where it is absent")
    if not ROOT:
        pytest.skip(f"making a stand-in at {path} needs root")
    command = (
        f"curl -s --max-time 5 --unix-socket {path} http://localhost/_ping; echo; env | grep ^WSL_INTEROP="
    )
    monkeypatch.setenv("WSL_INTEROP", str(SOCKETS["interop"]))
    with unix_listener(path, world.secret):
        assert world.secret in await output(LocalTransport(), command)  # reachable without the sandbox
        said = await output(LocalTransport(confinement=confinement(world)), command)
        assert world.secret not in said and "WSL_INTEROP" not in said, said
        if name == "interop":  # open when Windows is allowed
            opened = LocalTransport(confinement=confinement(world, WSL_ALLOW_WINDOWS="true"))
            said = await output(opened, command)
            assert world.secret in said and f"WSL_INTEROP={path}" in said


async def test_the_network_is_on_by_default_and_off_when_asked(world: World) -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    listener = Listener(sock, world.secret)
    command = f"exec 3<>/dev/tcp/127.0.0.1/{port} && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3"
    try:
        assert world.secret in await output(LocalTransport(), command)
        assert world.secret in await output(LocalTransport(confinement=confinement(world)), command)
        off = LocalTransport(confinement=confinement(world, WSL_SANDBOX_NETWORK="off"))
        said = await output(off, command)
        assert world.secret not in said and ("Network is unreachable" in said or "refused" in said), said
    finally:
        listener.close()


async def test_secret_looking_variables_are_not_passed_in(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in (
        "GITHUB_TOKEN",
        "MY_SECRET_THING",
        "DB_PASSWORD",
        "OPENAI_API_KEY",
        "gh_token",
        "SSH_AUTH_SOCK",
    ):
        monkeypatch.setenv(name, world.secret)
    monkeypatch.setenv("ORDINARY", "kept")
    monkeypatch.setenv("W", "mine")  # named like one of the launcher's own variables
    assert (await output(LocalTransport(), "env")).count(world.secret) == 6
    said = await output(LocalTransport(confinement=confinement(world)), "env")
    assert world.secret not in said and "ORDINARY=kept" in said and "\nW=mine\n" in said
    # nor does any process of the sandbox hold them: bubblewrap itself (PID 1 of the namespace) neither
    everywhere = "cat /proc/1/environ /proc/[0-9]*/environ /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' '\\n'"
    bare = [shutil.which("bwrap") or "bwrap", "--unshare-user", "--unshare-pid", "--ro-bind", "/", "/"]
    bare += ["--proc", "/proc", "--dev", "/dev", "--clearenv", "--setenv", "PATH", "/usr/bin:/bin"]
    started_so = subprocess.run([*bare, "bash", "-c", everywhere], capture_output=True, text=True)
    assert world.secret in started_so.stdout  # reachable: a bubblewrap started with them keeps them
    said = await output(LocalTransport(confinement=confinement(world)), everywhere)
    assert world.secret not in said and "ORDINARY=kept" in said, said


async def test_the_launcher_runs_nothing_of_the_users_outside_the_sandbox(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The launcher runs before bubblewrap, unconfined: a program the user's PATH puts first (an
    earlier command may have written ~/.local/bin/bwrap), BASH_ENV and exported functions must not run
    there. Each would create a canary where only an unconfined process can write."""
    ran = world.outside / "ran-unconfined"
    fake = world.home / ".local" / "bin" / "bwrap"
    fake.parent.mkdir(parents=True)
    fake.write_text(f"#!/bin/sh\ntouch {ran}\nexit 0\n")
    fake.chmod(0o755)
    hook = world.home / "hook.sh"
    hook.write_text(f"touch {ran}\n")
    monkeypatch.setenv("PATH", f"{fake.parent}:{os.environ['PATH']}")
    monkeypatch.setenv("BASH_ENV", str(hook))
    monkeypatch.setenv("BASH_FUNC_realpath%%", f"() {{ touch {ran}; }}")
    # reachable: a shell taking this environment as it is runs all three
    for naive in ("bwrap --version", "true", "realpath /"):
        subprocess.run(["bash", "-c", naive], capture_output=True, check=False)
        assert ran.exists(), naive
        ran.unlink()
    said = await output(LocalTransport(confinement=confinement(world)), "echo inside; ls ~/.local/bin")
    assert "inside" in said and "bwrap" in said and not ran.exists(), said


async def test_limits_namespaces_and_privileges_inside(world: World) -> None:
    command = "ulimit -u; ulimit -f; grep NoNewPrivs /proc/self/status; grep CapEff /proc/self/status; ps -e | wc -l"
    plain = (await output(LocalTransport(), command)).split()
    said = (await output(LocalTransport(confinement=confinement(world)), command)).split()
    assert said[:2] == ["1024", str(4 << 20)] and plain[:2] != said[:2]
    assert said[2:6] == ["NoNewPrivs:", "1", "CapEff:", "0000000000000000"]
    assert int(said[6]) <= 5 < int(plain[6])  # its own PID namespace: only its own processes


@pytest.mark.parametrize("kind", ["local", "wsl.exe-standin"])
async def test_a_timeout_ends_the_whole_sandbox_and_leaves_no_process(
    world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    _, confined = transports(world, tmp_path, monkeypatch, kind)
    marker = "sleep 37.31"
    run = await Runner(confined).run(
        ScriptCall(
            f"{marker}1 & setsid {marker}2 & ({marker}3 &) ; nohup {marker}4 >/dev/null 2>&1 & {marker}5",
            timeout_s=2,
            max_output=1 << 16,
        )
    )
    assert run.exchange.timed_out and run.sweep_error is None, run
    if kind == "local":  # the process group: bubblewrap, whose PID namespace takes everything with it
        assert [k.split()[1] for k in run.group_killed] == ["bwrap"], run
    assert await survivors(marker) == []


async def test_the_sweep_finds_a_sandbox_whose_parent_outlives_wsl_exe(
    world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As in a real distro, the Linux side's parent lives on when wsl.exe is killed (here a shell
    between the stand-in and the launcher, in a session of its own): only the token sweep, from a
    sandbox that shares the distro's PID namespace, can end the command's sandbox. What the command
    left to run later is undone all the same, and the reply says so (the check that follows the
    sweep, whatever became of the watcher)."""
    standin = make_wsl_standin(tmp_path / "standin", {"Ubuntu": "Running"})
    script = Path(standin.executable)
    script.write_text(
        script.read_text().replace('exec setsid -w "$@"', 'exec setsid -w sh -c \'"$@"; exit $?\' sh "$@"')
    )
    for key, value in standin.env().items():
        monkeypatch.setenv(key, value)
    transport = WslExeTransport(
        WslExeCli("wsl.exe", kill_on_overflow=True), "Ubuntu", None, confinement(world)
    )
    marker = "sleep 38.31"
    plant = "echo 'echo pwned' >> ~/.bashrc; "
    run = await Runner(transport).run(
        ScriptCall(f"{plant}{marker}1 & setsid {marker}2 & {marker}3", timeout_s=2, max_output=1 << 16)
    )
    assert run.exchange.timed_out and run.sweep_error is None, run
    named = [k.split(" ", 1)[1] for k in run.swept]
    assert named.count("bwrap") == 2 and named.count("sleep") == 3, run.swept
    assert await survivors(marker) == []
    assert planted(world.home) == [] and [u for u in run.undone if u.startswith("~/.bashrc: changed")], run


def test_a_crashed_server_leaves_no_process_behind(world: World, tmp_path: Path) -> None:
    server = Server(shell_command(), shell_env(world.home, WSL_SANDBOX="on"))
    server.handshake()
    server.send(
        {
            "jsonrpc": "2.0",
            "id": "long",
            "method": "tools/call",
            "params": {
                "name": "wsl_exec",
                "arguments": {"command": "sleep 41.41 & setsid sleep 41.42 & sleep 41.43"},
            },
        }
    )
    deadline = time.monotonic() + 60
    tree: set[int] = set()
    while time.monotonic() < deadline:
        tree = descendants(server.proc.pid)
        if len([p for p in tree if _comm(p) == "sleep"]) == 3:
            break
        time.sleep(0.05)
    try:
        assert len([p for p in tree if _comm(p) == "sleep"]) == 3, [(_comm(p), p) for p in tree]
        server.proc.send_signal(signal.SIGKILL)
        server.proc.wait()
        deadline = time.monotonic() + 10
        while any(alive(p) for p in tree) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [p for p in tree if alive(p)] == []
    finally:
        for pid in tree:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_over_real_stdio_what_the_guard_lets_through_stays_confined(world: World) -> None:
    """The server as a client sees it (WSL_SANDBOX=on, local transport, the real stdio transport):
    hidden files, writes outside the roots, and the sandbox in each result."""
    command = (
        f"grep -r CANARY ~ {world.outside}; cat {world.outside}/vault/key; find ~ -type f -exec cat {{}} +"
    )
    plain = Server(shell_command(), shell_env(world.home, WSL_CWD=str(world.home), WSL_SANDBOX="off"))
    try:
        plain.handshake()
        assert world.secret in json.dumps(plain.call(1, "wsl_exec", {"command": command}))  # reachable
        assert plain.close() == 0
    finally:
        if plain.proc.poll() is None:
            plain.proc.kill()
    server = Server(
        shell_command(),
        shell_env(
            world.home, WSL_SANDBOX="on", WSL_HIDE_PATHS=str(world.outside / "vault"), WSL_CWD=str(world.home)
        ),
    )
    try:
        server.handshake()
        said = server.call(1, "wsl_exec", {"command": command})["result"]
        assert not said["isError"], said
        assert world.secret not in json.dumps(said) and said["structuredContent"]["sandbox"]["mode"] == "on"
        # The guard refuses `echo … >> ~/.profile` itself (persistence); a path built at run time is
        # what static analysis cannot see, and the sandbox still keeps the file read-only.
        profile = "python3 -c \"import os; open(os.path.expanduser('~') + '/.profile', 'a').write('pwned')\""
        wrote = server.call(2, "wsl_exec", {"command": f"{profile}; echo x > {world.outside}/keep.txt"})
        assert "[sandbox] only the writable roots can be written" in wrote["result"]["content"][0]["text"]
        assert (world.home / ".profile").read_text() == "export FROM_PROFILE=yes\n"
        assert (world.outside / "keep.txt").read_text() == "keep me\n"
        read = server.call(3, "wsl_read_file", {"path": str(world.outside / "vault" / "key")})["result"]
        assert read["isError"] and world.secret not in json.dumps(read)
        assert server.close() == 0 and server.only_jsonrpc_on_stdout() == []
    finally:
        if server.proc.poll() is None:
            server.proc.kill()


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


# -- as an ordinary user ------------------------------------------------------------------------


def test_an_ordinary_user_is_confined_the_same_way(tester_world: World) -> None:
    w = tester_world
    confined = confinement(w)
    reads = READS.format(outside=w.outside)
    assert w.secret in as_tester(w, reads, None)
    said = as_tester(w, reads, confined)
    assert w.secret not in said and "Permission denied" in said, said
    before = snapshot(w.home, w.outside)
    said = as_tester(w, WRITES.format(outside=w.outside), confined)
    after = snapshot(w.home, w.outside)
    assert {k: v for k, v in after.items() if not k.endswith("/moved")} == before, said
    said = as_tester(w, "ulimit -u; echo ok > ~/proj/ok.txt; cat ~/proj/ok.txt", confined)
    assert said.split()[:2] == ["1024", "ok"]


# -- what the server says -----------------------------------------------------------------------


def serve(world: World, **env: str) -> ShellService:
    """The service over the local transport; without the sandbox unless ``env`` asks for it."""
    environ = {
        **os.environ,
        **world.env(
            **{"WSLMCP_SHELL_TRANSPORT": "local", "WSL_MCP_LOG_LEVEL": "silent", "WSL_SANDBOX": "off", **env}
        ),
    }
    wired = wiring.wire(None, environ)
    return build(wired.boundaries, wired.host, Options()).service


async def test_a_command_stopped_by_the_sandbox_says_so_and_carries_the_sandbox(world: World) -> None:
    service = serve(world, WSL_SANDBOX="on")
    reply = render(await service.exec(f"echo x > {world.outside}/keep.txt"))
    assert "[sandbox] only the writable roots can be written;" in reply.text
    assert reply.text.split("[sandbox]")[1].split("\n")[0].endswith(f"; writable: {world.home}")
    reply = render(await service.exec(f"cat {world.outside}/vault/key"))
    assert "[sandbox] this path is hidden by the sandbox" in reply.text and world.secret not in reply.text
    sandbox = reply.structured["sandbox"]
    assert sandbox["mode"] == "on" and sandbox["writable"] == [str(world.home)] and sandbox["network"] is True
    assert str(world.outside / "vault") in sandbox["hidden"]
    assert reply.structured["sandboxNote"].startswith("[sandbox] this path is hidden")
    ok = render(await service.exec("echo fine"))
    assert "[sandbox]" not in ok.text and "fine" in ok.text and "sandboxNote" not in ok.structured
    # off: nothing of it
    plain = render(await serve(world).exec(f"echo x > {world.outside}/new.txt"))
    assert "[sandbox]" not in plain.text and "sandbox" not in plain.structured


async def test_the_private_tmp_keeps_wsl_cwd_visible_and_says_why_another_directory_is_not(
    world: World, tmp_path: Path
) -> None:
    start, other = tmp_path / "start", tmp_path / "other"
    start.mkdir()
    other.mkdir()
    (start / "here.txt").write_text("here\n")
    service = serve(world, WSL_SANDBOX="on", WSL_CWD=str(start))
    reply = render(await service.exec("pwd; cat here.txt; echo x > new.txt"))
    assert f"{start}\nhere\n" in reply.text and not (start / "new.txt").exists()
    assert "[sandbox] only the writable roots can be written" in reply.text
    reply = render(await service.exec("pwd", cwd=str(other)))
    assert "[sandbox] /tmp and /run/user are private to each call" in reply.text
    plain = render(await serve(world, WSL_CWD=str(start)).exec("pwd", cwd=str(other)))
    assert f"{other}\n" in plain.text  # reachable without the sandbox


async def test_the_file_tools_run_in_the_sandbox(world: World) -> None:
    service = serve(world, WSL_SANDBOX="on")
    read = render(await service.read_file(str(world.outside / "vault" / "key")))
    assert world.secret not in read.text and read.is_error
    assert "[sandbox] this path is hidden by the sandbox" in read.text
    assert world.secret in render(await serve(world).read_file(str(world.outside / "vault" / "key"))).text
    wrote = render(await service.write_file(str(world.outside / "keep.txt"), "pwned"))
    assert wrote.is_error and "outside the sandbox's writable roots" in wrote.text
    assert (world.outside / "keep.txt").read_text() == "keep me\n"
    tmp = render(await service.write_file("/tmp/vanishes.txt", "x"))
    assert tmp.is_error and "outside the sandbox's writable roots" in tmp.text
    done = render(await service.write_file(str(world.home / "proj" / "w.txt"), "written"))
    assert not done.is_error and (world.home / "proj" / "w.txt").read_text() == "written"
    local = world.home / "proj" / "down.txt"
    render(await service.download(str(world.outside / "vault" / "key"), str(local)))
    assert not local.exists() or world.secret not in local.read_text()


def _distro_without_bwrap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A distro where bubblewrap is not installed: the wsl.exe stand-in, run in a mount namespace of
    its own where bwrap is not executable (the rest of the machine is left as it is)."""
    if not ROOT or shutil.which("unshare") is None:
        pytest.skip("hiding bubblewrap in a mount namespace of its own needs root and unshare")
    standin = make_wsl_standin(tmp_path / "standin", {"Ubuntu": "Running"})
    outer = tmp_path / "outer"
    outer.mkdir()
    bwrap, nothing = shutil.which("bwrap"), outer / "not-a-program"
    nothing.write_text("")
    (outer / "wsl.exe").write_text(
        "#!/bin/sh\n"
        f'exec unshare -m --propagation private sh -c \'mount --bind {nothing} {bwrap} && exec "$0" "$@"\' '
        f'{standin.executable} "$@"\n'
    )
    (outer / "wsl.exe").chmod(0o755)
    for key, value in standin.env().items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("PATH", f"{outer}:{os.environ['PATH']}")


async def test_without_bubblewrap_nothing_runs_and_every_tool_says_why(
    world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _distro_without_bwrap(tmp_path, monkeypatch)
    service = serve(world, WSL_SANDBOX="on", WSLMCP_SHELL_TRANSPORT="wsl.exe")
    canary = world.home / "ran"
    assert "ran" in render(await serve(world, WSLMCP_SHELL_TRANSPORT="wsl.exe").exec("echo ran")).text
    # auto: through wsl.exe the first command probes; it runs with the guard alone, and says so once
    auto = serve(world, WSL_SANDBOX="auto", WSLMCP_SHELL_TRANSPORT="wsl.exe")
    first, second = render(await auto.exec("echo ran")).text, render(await auto.exec("echo again")).text
    assert "ran" in first and "[sandbox] off: bubblewrap (bwrap) is not installed in 'Ubuntu'" in first
    assert "again" in second and "[sandbox]" not in second
    for call in [
        lambda: service.exec(f"touch {canary}"),
        service.connect,
        lambda: service.write_file(str(world.home / "w.txt"), "x"),
        lambda: service.read_file(str(world.home / ".bashrc")),
        lambda: service.list_dir(str(world.home)),
    ]:
        reply = render(await call())
        assert reply.is_error, reply.text
        assert "WSL_SANDBOX=on and the sandbox cannot run, so nothing ran" in reply.text
        assert "bubblewrap (bwrap) is not installed in 'Ubuntu'" in reply.text
        assert "sudo apt-get install -y bubblewrap" in reply.text
    assert not canary.exists() and not (world.home / "w.txt").exists()
    hosts = render(await service.list_hosts())
    assert "sandbox: REQUIRED BUT NOT RUNNING, nothing runs" in hosts.text and not hosts.is_error
    text, ok = render_check(await serve(world, WSL_SANDBOX="on", WSLMCP_SHELL_TRANSPORT="wsl.exe").check())
    assert not ok and "FAILED  sandbox: REQUIRED BUT NOT RUNNING" in text
    # the launcher refuses on its own too, whatever a probe said before
    config = load_config(world.env(WSL_SANDBOX="on"))
    gate = SandboxGate(profile_for(config.policy, config.sandbox), "Ubuntu")
    gate.ready = True
    cli = WslExeCli("wsl.exe", kill_on_overflow=True)
    run = await Runner(WslExeTransport(cli, "Ubuntu", None, confinement(world)), gate=gate).run(
        ScriptCall(f"touch {canary}", timeout_s=30)
    )
    assert run.exchange.exit_code == 125 and b"bubblewrap (bwrap) is not installed" in run.exchange.stderr
    assert not canary.exists()


async def test_check_and_list_hosts_show_the_sandbox(world: World) -> None:
    text, ok = render_check(await serve(world, WSL_SANDBOX="on").check())
    assert ok, text
    assert "sandbox: on (bubblewrap 0." in text and f"writable: {world.home}  ·  " in text
    listed = render(await serve(world, WSL_SANDBOX="on", WSL_SANDBOX_NETWORK="off").list_hosts())
    hosts = listed.text
    assert listed.structured["sandbox"].startswith("sandbox: on (bubblewrap")
    assert (
        "sandbox: on (bubblewrap 0." in hosts and "network off" in hosts and "Windows interop closed" in hosts
    )
    assert "sandbox:" not in render(await serve(world).list_hosts()).text


def test_explain_prints_the_profile(world: World) -> None:
    env = {**os.environ, "WSL_SANDBOX": "on", "WSL_ALLOWED_PATHS": "/srv/app", "WSL_HIDE_PATHS": "/srv/keys"}
    done = subprocess.run(
        [sys.executable, "-m", "wslmcp", "shell", "explain", "--sandbox"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    assert shown["writable"] == ["/srv/app"] and "/srv/keys" in shown["hidden"]
    assert "/run/docker.sock" in shown["hidden_sockets"] and shown["network"] is True
