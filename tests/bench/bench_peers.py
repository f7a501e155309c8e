"""Side by side with a peer in one run (issue 30), over stdio with one client (``tests.stdio_client``):

1. spawn to the first ``tools/call`` answer (a cheap tool of each server; initialize,
   notifications/initialized and the call sent at once, as a script or an eval does), fresh
   processes with bytecode as installed: both wslmcp servers beside the MCP filesystem server
   (Node, npm ``@modelcontextprotocol/server-filesystem``) and, as floors, a stdlib JSON-RPC server
   and a minimal server on the SDK's own stdio transport (target: <= 400 ms p50);
2. the shell's file tools (local transport, sandbox off) beside the filesystem server's on the same
   10,000-line file, one session each, rounds interleaved: the whole file, the first 100 lines
   (ranged), the last 100 lines (tail), and a first edit of a file neither server read before
   (target: each <= 1.5x the filesystem server's).

The filesystem server is looked for under ``.bench/node_modules`` at the repository's top (install it
with ``make bench-peers``) or where ``WSLMCP_BENCH_NODE_MODULES`` points; without it (or Node) the
first part compares with the floors only and the second is skipped, saying why.
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.bench import installed_env
from tests.stdio_client import INITIALIZED, Server, init_frame

ROOT = Path(__file__).resolve().parents[2]
RUNS = 11
ROUNDS = 17
FS_SERVER = "@modelcontextprotocol/server-filesystem/dist/index.js"


def filesystem_server() -> tuple[list[str] | None, str]:
    """The filesystem server's command line (the allowed directory is appended), or None and why."""
    if shutil.which("node") is None:
        return None, "Node (node) is not on PATH"
    modules = Path(os.environ.get("WSLMCP_BENCH_NODE_MODULES", ROOT / ".bench" / "node_modules"))
    entry = modules / FS_SERVER
    if not entry.is_file():
        return None, f"{entry} is missing (make bench-peers installs it)"
    version = (modules / "@modelcontextprotocol" / "server-filesystem" / "package.json").read_text()
    said = next((part.split('"')[3] for part in version.split(",") if '"version"' in part), "?")
    return ["node", str(entry)], f"MCP filesystem server {said}"


def _first_answer(
    argv: list[str], tool: str, arguments: dict[str, Any], env: dict[str, str], caps: dict[str, Any]
) -> float:
    started = time.perf_counter()
    server = Server(argv, env)
    opening = init_frame(1, "2025-11-25")
    opening["params"]["capabilities"] = caps
    try:
        server.send(opening)
        server.send(INITIALIZED)
        server.send(
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": tool, "arguments": arguments},
            }
        )
        server.wait_for(2, timeout=60)
        return server.arrival(2) - started
    finally:
        server.close()


ASKED = "wslmcp shell (wsl_exec true, asks allowed)"  # (a question would load the SDK)


def _first_answers(base: Path, fs: list[str] | None) -> None:
    env = installed_env(base / "pycache")
    env.update(
        WSLMCP_SHELL_TRANSPORT="local", WSL_DISTRO="Ubuntu", WSL_MCP_LOG_LEVEL="silent", HOME=str(base)
    )
    env.pop("WSL_USER", None)
    py = sys.executable
    sides: dict[str, tuple[list[str], str, dict[str, Any]]] = {
        "stdlib JSON-RPC server (floor)": (
            [py, str(ROOT / "tests/servers/stdio_server.py")],
            "tool_00000",
            {},
        ),
        "minimal SDK stdio server": ([py, str(ROOT / "tests/servers/minimal_sdk_server.py")], "echo", {}),
        "wslmcp shell (wsl_list_sessions)": ([py, "-m", "wslmcp", "shell"], "wsl_list_sessions", {}),
        "wslmcp shell (wsl_exec true)": ([py, "-m", "wslmcp", "shell"], "wsl_exec", {"command": "true"}),
        ASKED: ([py, "-m", "wslmcp", "shell"], "wsl_exec", {"command": "true"}),
        "wslmcp observe (get_history)": (
            [py, "-m", "wslmcp", "observe", "--wsl-only", "--no-docker", "--no-wslc"],
            "get_history",
            {},
        ),
    }
    if fs is not None:
        sides["filesystem server (list_allowed_directories)"] = (
            [*fs, str(base)],
            "list_allowed_directories",
            {},
        )
    caps = {name: {"elicitation": {}} if name == ASKED else {} for name in sides}
    for name, (argv, tool, arguments) in sides.items():
        _first_answer(argv, tool, arguments, env, caps[name])  # bytecode, a warm page cache for every side
    times: dict[str, list[float]] = {name: [] for name in sides}
    for _ in range(RUNS):  # interleaved, so every side sees the same load
        for name, (argv, tool, arguments) in sides.items():
            times[name].append(_first_answer(argv, tool, arguments, env, caps[name]))
    peer = "filesystem server (list_allowed_directories)"
    base_name = peer if fs is not None else "minimal SDK stdio server"
    base_ms = statistics.median(times[base_name]) * 1000
    for name, seconds in times.items():
        p50 = statistics.median(seconds) * 1000
        line = f"   {name:<46} spawn to the first tools/call answer: p50 {p50:5.0f} ms"
        if name.startswith("wslmcp"):
            line += f"  ({p50 / base_ms:.2f}x the {base_name.split(' (')[0]}; target <= 400 ms: {'MET' if p50 <= 400 else 'MISSED'})"
        print(line)
    print(f"   ({RUNS} runs each, interleaved)")


def _text(answer: dict[str, Any]) -> str:
    assert "result" in answer and not answer["result"].get("isError"), answer
    return str(answer["result"]["content"][0]["text"])


class _Session:
    """One server's session and the call ids it has used."""

    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        self.server = Server(argv, env)
        self.server.handshake("2025-11-25")
        self.next_id = 10

    def timed(self, tool: str, arguments: dict[str, Any]) -> tuple[float, str]:
        self.next_id += 1
        started = time.perf_counter()
        answer = self.server.call(self.next_id, tool, arguments)
        return time.perf_counter() - started, _text(answer)


def _file_tools(base: Path, fs: list[str]) -> None:
    work = base / "work"
    work.mkdir()
    text = "".join(f"value_{i} = {i}  # line {i} of the file\n" for i in range(10_000))
    big = work / "big.py"
    big.write_text(text)
    fresh = [work / f"fresh-{side}-{i}.py" for side in ("ours", "theirs") for i in range(ROUNDS + 2)]
    for path in fresh:
        path.write_text(text)
    env = {k: v for k, v in os.environ.items() if not k.startswith("WSL_")}
    env.update(
        WSLMCP_SHELL_TRANSPORT="local",
        WSL_DISTRO="Ubuntu",
        WSL_MCP_LOG_LEVEL="silent",
        WSL_MAX_READ_BYTES=str(1 << 20),
        WSL_SANDBOX="off",
    )
    ours = _Session([sys.executable, "-m", "wslmcp", "shell"], env)
    theirs = _Session([*fs, str(work)], dict(os.environ))
    edit = ("value_5000 = 5000 ", "value_5000 = -5000 ")
    n = [0, 0]

    def our_edit() -> tuple[float, str]:
        path = str(work / f"fresh-ours-{n[0]}.py")
        n[0] += 1
        return ours.timed(
            "wsl_edit_file", {"path": path, "edits": [{"oldText": edit[0], "newText": edit[1]}]}
        )

    def their_edit() -> tuple[float, str]:
        path = str(work / f"fresh-theirs-{n[1]}.py")
        n[1] += 1
        return theirs.timed("edit_file", {"path": path, "edits": [{"oldText": edit[0], "newText": edit[1]}]})

    cases: dict[str, tuple[Callable[[], tuple[float, str]], Callable[[], tuple[float, str]]]] = {
        "read the whole file (290 KB)": (
            lambda: ours.timed("wsl_read_file", {"path": str(big)}),
            lambda: theirs.timed("read_text_file", {"path": str(big)}),
        ),
        "read the first 100 lines": (
            lambda: ours.timed("wsl_read_file", {"path": str(big), "limit": 100}),
            lambda: theirs.timed("read_text_file", {"path": str(big), "head": 100}),
        ),
        "read the last 100 lines": (
            lambda: ours.timed("wsl_read_file", {"path": str(big), "offset": -100}),
            lambda: theirs.timed("read_text_file", {"path": str(big), "tail": 100}),
        ),
        "edit a file not read before": (our_edit, their_edit),
    }
    times: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in cases}
    try:
        for i in range(ROUNDS + 2):
            for name, (mine, peer) in cases.items():
                a, got = mine()
                b, their_got = peer()
                assert ("value_9999" in got) == ("value_9999" in their_got), name
                if i >= 2:  # warm-up rounds are not counted
                    times[name][0].append(a)
                    times[name][1].append(b)
    finally:
        ours.server.close()
        theirs.server.close()
    for name, (mine, peer) in times.items():
        a, b = statistics.median(mine) * 1000, statistics.median(peer) * 1000
        print(
            f"   {name:<30} wslmcp shell p50 {a:6.1f} ms   filesystem server p50 {b:6.1f} ms   "
            f"ratio {a / b:.2f}x; target <= 1.5x -> {'MET' if a / b <= 1.5 else 'MISSED'}"
        )
    print(f"   ({ROUNDS} rounds each, interleaved; local transport, sandbox off)")


def main() -> None:
    fs, said = filesystem_server()
    print(f"   peer: {said}" if fs is not None else f"   peer skipped: {said}")
    with tempfile.TemporaryDirectory(prefix="wslmcp-bench-peers-", dir="/var/tmp") as tmp:
        base = Path(tmp).resolve()
        if "files" not in sys.argv:  # (python -m tests.bench peers files: the file tools alone)
            _first_answers(base, fs)
        if fs is None:
            print("   file tools: skipped (no filesystem server to compare with)")
            return
        _file_tools(base, fs)


if __name__ == "__main__":
    main()
