"""Start and stop of both servers in fresh processes, beside two baselines measured in the same run:
a minimal server on the MCP SDK's own stdio transport (what any Python MCP server pays) and a
stdlib-only JSON-RPC server (the interpreter's floor).

Printed per server, median of several runs: spawn to the ``initialize`` answer (target <= 0.5 s),
spawn to the ``tools/list`` answer, end of input to exit; and for observe, SIGINT in the middle of
a collection to exit (target <= 0.5 s)."""

from __future__ import annotations

import json
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from tests.bench import installed_env

ROOT = Path(__file__).resolve().parents[2]
RUNS = 7
_INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"},
    },
}
_LIST = [
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]


def _line(frame: object) -> bytes:
    return (json.dumps(frame) + "\n").encode()


def _session(argv: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """Seconds from spawn to the initialize answer, to the tools/list answer, and from closing
    stdin to exit."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
    )
    guard = threading.Timer(60, proc.kill)
    guard.start()
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(_line(_INIT))
        proc.stdin.flush()
        proc.stdout.readline()
        initialized = time.perf_counter() - started
        proc.stdin.write(b"".join(_line(f) for f in _LIST))
        proc.stdin.flush()
        proc.stdout.readline()
        listed = time.perf_counter() - started
        closing = time.perf_counter()
        proc.stdin.close()
        proc.wait()
        return initialized, listed, time.perf_counter() - closing
    finally:
        guard.cancel()


def _interrupted_collection(env: dict[str, str]) -> float:
    """Observe on this machine's /proc with a 60 s sampling interval, SIGINT while a forced
    collection waits for its second sample: seconds from the signal to exit."""
    argv = [
        sys.executable,
        "-m",
        "wslmcp",
        "observe",
        "--wsl-only",
        "--no-docker",
        "--no-wslc",
        "--interval-ms",
        "60000",
    ]
    proc = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
    )
    assert proc.stdin is not None and proc.stdout is not None
    call = {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "tools/call",
        "params": {"name": "get_system_summary", "arguments": {"max_age_ms": 0}},
    }
    proc.stdin.write(_line(_INIT) + b"".join(_line(f) for f in _LIST) + _line(call))
    proc.stdin.flush()
    proc.stdout.readline()
    proc.stdout.readline()  # tools/list: answered; give the server time to load and start collecting
    time.sleep(2.0)
    sent = time.perf_counter()
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return float("inf")
    return time.perf_counter() - sent


def _median(samples: list[tuple[float, float, float]], i: int) -> float:
    return statistics.median(s[i] for s in samples)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        env = installed_env(home / "pycache")
        env.update(
            WSLMCP_SHELL_TRANSPORT="local", WSL_DISTRO="Ubuntu", WSL_MCP_LOG_LEVEL="silent", HOME=str(home)
        )
        env.pop("WSL_USER", None)
        servers = {
            "stdlib JSON-RPC server (floor)": [
                sys.executable,
                str(ROOT / "tests" / "servers" / "stdio_server.py"),
            ],
            "minimal SDK stdio server": [
                sys.executable,
                str(ROOT / "tests" / "servers" / "minimal_sdk_server.py"),
            ],
            "wslmcp observe": [
                sys.executable,
                "-m",
                "wslmcp",
                "observe",
                "--wsl-only",
                "--no-docker",
                "--no-wslc",
            ],
            "wslmcp shell": [sys.executable, "-m", "wslmcp", "shell"],
        }
        for argv in servers.values():
            _session(argv, env)  # bytecode and a warm page cache for every side
        samples: dict[str, list[tuple[float, float, float]]] = {name: [] for name in servers}
        for _ in range(RUNS):  # interleaved, so every side sees the same load on a shared machine
            for name, argv in servers.items():
                samples[name].append(_session(argv, env))
        sdk = _median(samples["minimal SDK stdio server"], 0)
        for name, runs in samples.items():
            init, listed, stop = (_median(runs, i) for i in range(3))
            target = ""
            if name.startswith("wslmcp"):
                target = f"  (target <= 500 ms: {'ok' if init <= 0.5 else 'MISSED'}; {init / sdk:.2f}x the SDK server)"
            print(
                f"   {name:<32} initialize {init * 1000:5.0f} ms  tools/list {listed * 1000:5.0f} ms  "
                f"exit after EOF {stop * 1000:4.0f} ms{target}"
            )
        stops = [_interrupted_collection(env) for _ in range(3)]
        worst = max(stops)
        print(
            f"   wslmcp observe: SIGINT during a collection to exit: median {statistics.median(stops) * 1000:.0f} ms, "
            f"worst {worst * 1000:.0f} ms (target <= 500 ms: {'ok' if worst <= 0.5 else 'MISSED'})"
        )


if __name__ == "__main__":
    main()
