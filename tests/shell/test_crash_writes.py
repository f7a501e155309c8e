"""A crash (SIGKILL) or a shutdown (stdin closed) of the shell server during every writing tool:
the target is intact, no process of the call is left (read through /proc), and no temp file of
ours is left once the next server has started (read through the filesystem).

The server is a real ``wslmcp shell`` over stdio on the local transport, whose ``bash`` on PATH is a
twin of the real one (``blocking_bash``) that stops for good once a temp file of ours exists: the
call that finds one (a download's next chunk, or the ``cat`` that fills an upload's or a write's
temp file) signals it and waits there until the server is gone. So the kill always lands mid-write,
with the temp file present, and never races the transfer.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import pytest

from tests.shell.conftest import processes_with
from wslmcp.boundaries.local_files import is_own_partial

#: ``bash`` as the local transport runs it (``bash -lc SCRIPT``), except that a call stops for good
#: once a temp file of ours exists in WSLMCP_TEST_WATCH: before the script runs (a download's local
#: partial), or when the script's ``cat`` is about to fill one (an upload's or a write's). It touches
#: WSLMCP_TEST_BLOCKED and waits until the server (its parent) is gone; then the script goes on as
#: it would after its server died mid-stream (its stdin at end of file), and a call that had not
#: started exits 1. A shutdown kills it itself. It stops one call only: later calls (the shutdown's
#: own removal of the temp file) run as they would.
BLOCKING_BASH = r"""#!/bin/sh
ours() {
  [ -e "$WSLMCP_TEST_BLOCKED" ] && return 1  # once: the shutdown's own cleanup calls pass
  for f in "$WSLMCP_TEST_WATCH"/.*.wslmcp-*; do [ -e "$f" ] && return 0; done; return 1
}
if ours; then
  : > "$WSLMCP_TEST_BLOCKED"
  while kill -0 "$PPID" 2>/dev/null; do sleep 0.05; done
  exit 1
fi
exec REAL_BASH "$1" 'cat() {
  for f in "$WSLMCP_TEST_WATCH"/.*.wslmcp-*; do
    if [ -e "$f" ] && [ ! -e "$WSLMCP_TEST_BLOCKED" ]; then
      : > "$WSLMCP_TEST_BLOCKED"
      while kill -0 "$PPID" 2>/dev/null; do sleep 0.05; done
      break
    fi
  done
  command cat "$@"
}
'"$2"
"""


def blocking_bash(directory: Path, watched: Path) -> dict[str, str]:
    """The environment that puts the blocking twin of bash first on the server's PATH."""
    real = shutil.which("bash")
    assert real is not None
    directory.mkdir()
    twin = directory / "bash"
    twin.write_text(BLOCKING_BASH.replace("REAL_BASH", real))
    twin.chmod(twin.stat().st_mode | stat.S_IEXEC)
    return {
        "PATH": f"{directory}{os.pathsep}{os.environ['PATH']}",
        "WSLMCP_TEST_WATCH": str(watched),
        "WSLMCP_TEST_BLOCKED": str(directory / "blocked"),
    }


class Server:
    """``wslmcp shell`` over stdio, initialized, with a ledger in ``state``."""

    def __init__(self, state: Path, cwd: Path, extra: dict[str, str] | None = None) -> None:
        clean = {k: v for k, v in os.environ.items() if not k.startswith("WSL_")}
        env = {
            **clean,
            "WSL_DISTRO": "Ubuntu",
            "WSLMCP_SHELL_TRANSPORT": "local",
            "WSL_MCP_LOG_LEVEL": "silent",
            "WSLMCP_STATE_DIR": str(state),
            "HOME": str(cwd),  # login shells source no machine profile (pyenv, ...)
            "WSL_SANDBOX": "off",  # crash safety of the writes, not the sandbox
            # the twin of bash stops a call mid-script: wsl_write_file runs its script here too
            # (in process it is tracked in the ledger before its temp file exists, the same guarantee)
            "WSLMCP_FILES_IN_PROCESS": "off",
            **(extra or {}),
        }
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "wslmcp", "shell"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=cwd,
        )
        self._send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": _INIT})
        assert self._answer(0)["result"]["serverInfo"]["name"] == "wslmcp-shell"
        self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    @property
    def stdin(self) -> IO[bytes]:
        assert self.proc.stdin is not None
        return self.proc.stdin

    def _send(self, message: dict[str, Any]) -> None:
        self.stdin.write(json.dumps(message).encode() + b"\n")
        self.stdin.flush()

    def _answer(self, rid: int) -> dict[str, Any]:
        assert self.proc.stdout is not None
        while line := self.proc.stdout.readline():
            message: dict[str, Any] = json.loads(line)
            if message.get("id") == rid:
                return message
        raise AssertionError("the server closed stdout before answering")

    def call(self, tool: str, arguments: dict[str, Any], rid: int = 1) -> None:
        self._send(
            {
                "jsonrpc": "2.0",
                "id": rid,
                "method": "tools/call",
                "params": {"name": tool, "arguments": arguments},
            }
        )

    def result(self, rid: int = 1) -> dict[str, Any]:
        answer: dict[str, Any] = self._answer(rid)["result"]
        return answer

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)

    def close(self) -> int:
        self.stdin.close()
        return self.proc.wait(timeout=60)


_INIT = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}


def _ours(directory: Path) -> list[Path]:
    """Temp files of our naming in ``directory``: remote-side ``.NAME.wslmcp-TOKEN`` and local
    ``.NAME.RANDOM.wslmcp-partial``."""
    return [
        p
        for p in directory.iterdir()
        if ".wslmcp-" in p.name and (is_own_partial(str(p)) or p.name.startswith("."))
    ]


def _blocked(marker: Path, proc: subprocess.Popen[bytes]) -> None:
    """Until the twin says a call is stopped with a temp file present (a state that then holds)."""
    deadline = time.monotonic() + 60  # bounds only a broken run; no result depends on it
    while not marker.exists():
        assert proc.poll() is None, "the server ended before the call reached its temp file"
        assert time.monotonic() < deadline, "no call reached a temp file of ours"
        time.sleep(0.01)


def _no_survivors(marker: str) -> None:
    deadline = time.monotonic() + 10
    while processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert processes_with(marker) == []


@pytest.fixture
def dirs(tmp_path: Path) -> dict[str, Path]:
    out = {name: tmp_path / name for name in ("state", "local", "remote")}
    for d in out.values():
        d.mkdir()
    return {**out, "twin": tmp_path / "twin"}


def _crash_during(
    dirs: dict[str, Path], watched: Path, start: Callable[[Server], None], how: str
) -> tuple[list[Path], Server]:
    """Start a call with ``start(server)`` on a server whose bash stops once a temp file of ours
    exists in ``watched``, then kill (or shut down) the server there; returns the temp files seen."""
    env = blocking_bash(dirs["twin"], watched)
    server = Server(dirs["state"], dirs["local"], env)
    start(server)
    _blocked(Path(env["WSLMCP_TEST_BLOCKED"]), server.proc)
    seen = _ours(watched)
    assert seen  # the twin stopped because one exists
    if how == "kill":
        server.kill()
    else:
        assert server.close() == 0
        assert _ours(watched) == []  # the shutdown itself removed it
    return seen, server


def _upload(dirs: dict[str, Path]) -> Callable[[Server], None]:
    def start(server: Server) -> None:
        src = dirs["local"] / "big.bin"
        with open(src, "wb") as f:
            f.truncate(4 << 20)  # sparse: cheap to make, real bytes to move
        server.call("wsl_upload", {"localPath": str(src), "remotePath": str(dirs["remote"] / "target.bin")})

    return start


def _download(dirs: dict[str, Path]) -> Callable[[Server], None]:
    def start(server: Server) -> None:
        src = dirs["remote"] / "big.bin"
        with open(src, "wb") as f:
            f.truncate(4 << 20)
        server.call("wsl_download", {"remotePath": str(src), "localPath": str(dirs["local"] / "target.bin")})

    return start


def _write(dirs: dict[str, Path]) -> Callable[[Server], None]:
    def start(server: Server) -> None:
        server.call(
            "wsl_write_file", {"path": str(dirs["remote"] / "target.bin"), "content": "w" * (1 << 20)}
        )

    return start


TOOLS = {
    "wsl_upload": (_upload, "remote"),
    "wsl_download": (_download, "local"),
    "wsl_write_file": (_write, "remote"),
}


@pytest.mark.parametrize("how", ["kill", "eof"])
@pytest.mark.parametrize("tool", list(TOOLS))
def test_an_interrupted_write_leaves_the_target_intact_and_no_temp_file(
    dirs: dict[str, Path], tool: str, how: str
) -> None:
    starter, side = TOOLS[tool]
    watched = dirs[side]
    target = watched / "target.bin"
    target.write_bytes(b"the original target")
    seen, _ = _crash_during(dirs, watched, starter(dirs), how)
    for temp in seen:
        _no_survivors(temp.name)  # the call's scripts are gone (they name their temp file)
    assert target.read_bytes() == b"the original target"
    if tool == "wsl_upload" and how == "kill":
        assert _ours(dirs["remote"]) == []  # the distro-side script removed its partial file itself
    after = Server(dirs["state"], dirs["local"])  # startup reclaims what a killed server left
    try:
        after.call("wsl_list_sessions", {})
        assert after.result()["isError"] is False  # it serves, so its startup has run
        assert _ours(dirs["local"]) == [] and _ours(dirs["remote"]) == []
        assert target.read_bytes() == b"the original target"
    finally:
        assert after.close() == 0
    assert list(dirs["state"].rglob("*.jsonl")) == []  # reclaimed ledgers removed; the last one closed empty


@pytest.mark.parametrize("transport", ["local", "wsl.exe"])
def test_shutdown_kills_the_tree_of_a_running_command(tmp_path: Path, transport: str) -> None:
    """stdin closed while ``wsl_exec`` runs: the server exits 0 and nothing of the command is left.
    Through the wsl.exe stand-in, killing wsl.exe leaves the "Linux side" running (as on Windows):
    the shutdown's token sweep is what kills it."""
    from tests.shell.standin import make_wsl_standin

    standin = make_wsl_standin(tmp_path / "standin", {"Ubuntu": "Running"})
    extra = {**standin.env(), "WSLMCP_SHELL_TRANSPORT": transport}
    server = Server(tmp_path, tmp_path, extra)
    server.call("wsl_exec", {"command": "sleep 27.18281 & sleep 27.18282; echo never"})

    def sleeps() -> list[str]:
        return [p for p in processes_with("sleep 27.1828") if p.split(" ", 1)[1].startswith("sleep ")]

    deadline = time.monotonic() + 30
    while len(sleeps()) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(sleeps()) == 2
    assert server.close() == 0
    _no_survivors("sleep 27.1828")
