"""SIGTERM and SIGINT end a server the way closing stdin does: the shutdown path runs, an in-flight
command's whole process tree is killed (checked through /proc), and the exit status is 0."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from tests.faults.rig import Server, alive, descendants, observe_command, shell_command, shell_env

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").is_file(), reason="reads /proc for leftovers")

ENDINGS = ["SIGTERM", "SIGINT", "EOF"]


def end(server: Server, how: str) -> int:
    if how == "EOF":
        return server.close()
    server.signal(signal.Signals[how])
    return server.wait()


def _argv(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")[:-1]
    except OSError:
        return []


def sleepers(server: Server, timeout: float = 30.0) -> set[int]:
    """The server's descendants once both the background and the foreground sleep run."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        tree = descendants(server.proc.pid)
        argvs = [_argv(p) for p in tree]
        if ["sleep", "300"] in argvs and ["sleep", "301"] in argvs:
            return tree
        if server.answers("long"):
            break
        time.sleep(0.05)
    tree = descendants(server.proc.pid)
    raise AssertionError(
        f"the command is not running: {[_argv(p) for p in tree]}; answer: {server.answers('long')}"
    )


@pytest.mark.parametrize("how", ENDINGS)
def test_shell_ending_kills_the_running_commands_tree(tmp_path: Path, how: str) -> None:
    server = Server(shell_command(), shell_env(tmp_path))
    server.handshake()
    server.send(
        {
            "jsonrpc": "2.0",
            "id": "long",
            "method": "tools/call",
            "params": {"name": "wsl_exec", "arguments": {"command": "sleep 300 & sleep 301"}},
        }
    )
    tree = sleepers(server)
    try:
        assert end(server, how) == 0
        deadline = time.monotonic() + 10
        while any(alive(p) for p in tree) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [p for p in tree if alive(p)] == []
        assert server.only_jsonrpc_on_stdout() == []
    finally:  # a failing run must not leave its sleepers behind
        for pid in tree:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        if server.proc.poll() is None:
            server.proc.kill()


@pytest.mark.parametrize("how", ["SIGTERM", "SIGINT"])
def test_observe_ends_cleanly_on_a_signal(how: str) -> None:
    server = Server(observe_command())
    server.handshake()
    server.send(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "get_system_summary", "arguments": {}},
        }
    )
    assert "result" in server.wait_for(1)
    assert end(server, how) == 0
    assert b"Traceback" not in server.stderr


@pytest.mark.parametrize("how", ["SIGINT", "SIGTERM", "EOF"])
def test_observe_ends_in_the_middle_of_a_collection(how: str) -> None:
    """A forced collection on this machine's /proc with a 60 s sampling interval is in flight when
    the session ends: the process exits 0 long before the interval is over, the call is answered and
    nothing is on stderr."""
    server = Server(
        [*observe_command()[:-2], "--wsl-only", "--no-docker", "--no-wslc", "--interval-ms", "60000"]
    )
    server.handshake()
    server.send_line(b"{")  # answered only once the server has loaded (the front door parks it)
    assert server.wait_for(None)["error"]["code"] == -32700
    server.send(
        {
            "jsonrpc": "2.0",
            "id": "c",
            "method": "tools/call",
            "params": {"name": "get_system_summary", "arguments": {"max_age_ms": 0}},
        }
    )
    assert "result" in server.ping("p")  # the call was read and dispatched before this ping
    assert end(server, how) == 0
    assert "error" in server.wait_for("c")  # cut short: a collection that waited out 60 s would answer
    assert server.stderr == b""


def _wait_for_sleeps(server: Server, args: set[str], timeout: float = 30.0) -> set[int]:
    """Pids of the server's descendants running ``sleep ARG`` for every ARG in ``args``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = {
            p
            for p in descendants(server.proc.pid)
            if (a := _argv(p))[:1] == ["sleep"] and a[1:2] and a[1] in args
        }
        if {_argv(p)[1] for p in found} == args:
            return found
        time.sleep(0.05)
    raise AssertionError(
        f"the started processes are not running: {[_argv(p) for p in descendants(server.proc.pid)]}"
    )


def _start(server: Server, request_id: str, command: str) -> None:
    answer = server.call(request_id, "wsl_start", {"command": command, "waitMs": 0})
    assert answer["result"]["structuredContent"]["state"] == "running", answer


@pytest.mark.parametrize("how", ENDINGS)
def test_shell_ending_kills_every_started_process_tree(tmp_path: Path, how: str) -> None:
    server = Server(shell_command(), shell_env(tmp_path, WSLMCP_STATE_DIR=str(tmp_path / "state")))
    server.handshake()
    _start(server, "a", "sleep 310 & sleep 311")
    _start(server, "b", "(setsid sleep 312 &); sleep 313")  # one escapes the process group
    tree = _wait_for_sleeps(server, {"310", "311", "313"})
    escaped = set()
    deadline = time.monotonic() + 30
    while not escaped and time.monotonic() < deadline:  # the setsid'd sleep is no descendant of a live parent
        escaped = {
            int(p.name)
            for p in Path("/proc").iterdir()
            if p.name.isdigit() and _argv(int(p.name)) == ["sleep", "312"]
        }
        time.sleep(0.05)
    try:
        assert end(server, how) == 0
        deadline = time.monotonic() + 10
        while any(alive(p) for p in tree | escaped) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [p for p in tree | escaped if alive(p)] == []
        assert server.only_jsonrpc_on_stdout() == []
        assert b"Traceback" not in server.stderr
    finally:
        for pid in tree | escaped:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        if server.proc.poll() is None:
            server.proc.kill()


def test_the_started_processes_of_a_killed_server_are_ended_by_the_next_one(tmp_path: Path) -> None:
    env = shell_env(tmp_path, WSLMCP_STATE_DIR=str(tmp_path / "state"))
    first = Server(shell_command(), env)
    first.handshake()
    _start(first, "a", "sleep 320 & sleep 321")
    tree = _wait_for_sleeps(first, {"320", "321"})
    second = None
    try:
        first.proc.kill()  # SIGKILL: no shutdown runs
        first.proc.wait()
        time.sleep(0.5)
        assert all(alive(p) for p in tree)  # without the ledger they would run on
        second = Server(shell_command(), env)
        second.handshake()
        assert "result" in second.call("b", "wsl_list_processes", {})  # served: startup has run
        deadline = time.monotonic() + 10
        while any(alive(p) for p in tree) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [p for p in tree if alive(p)] == []
        assert second.close() == 0
        assert list((tmp_path / "state").rglob("*.jsonl")) == []  # the ledger is settled and gone
    finally:
        for pid in tree:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        for server in (first, second):
            if server is not None and server.proc.poll() is None:
                server.proc.kill()
