"""Real streamable-HTTP servers on loopback for the McpLauncher contract over HTTP, and their recorder.

Servers are ``tests/servers/sdk_server.py --http`` (the SDK's own streamable-HTTP app under
uvicorn), plus a socket that accepts and never answers. ``python -m tests.contract.mcp_http_servers``
re-records ``fixtures/mcp_http_answers.json`` through ``RecordingMcpLauncher`` around the real
adapter: the twin's answers are recorded, never written by hand.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.servers import SDK_SERVER
from wslmcp.boundaries.mcp_http import HttpMcpLauncher
from wslmcp.boundaries.mcp_launcher import McpLauncher, ServerSpec
from wslmcp.fakes.mcp_launcher import RecordingMcpLauncher

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "mcp_http_answers.json"
RECORD_TIMEOUT_S = 10.0
SILENT_TIMEOUT_S = 0.5
HEADER = ("X-Api-Key", "k-123-secret")

#: name -> (which server, headers the config holds)
CASES: dict[str, tuple[str, dict[str, str]]] = {
    "streamed": ("sse", {}),
    "json-bodies": ("json", {}),
    "keyed": ("guarded", {HEADER[0]: HEADER[1]}),
    "unkeyed": ("guarded", {}),
    "refused": ("closed", {}),
    "silent": ("silent", {}),
}


def _start(args: list[str], folder: Path, name: str) -> tuple[subprocess.Popen[bytes], int]:
    portfile = folder / f"{name}.port"
    proc = subprocess.Popen([sys.executable, str(SDK_SERVER), "--http", str(portfile), *args])
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if portfile.exists() and portfile.read_text():
            port = int(portfile.read_text())
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                return proc, port
            except OSError:
                pass
        time.sleep(0.05)
    proc.kill()
    raise RuntimeError(f"{name} server did not start")


@contextmanager
def running() -> Iterator[dict[str, str]]:
    """The servers, up; yields server kind -> base URL."""
    procs: list[subprocess.Popen[bytes]] = []
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))  # bound, never listening: connections are refused
    try:
        with tempfile.TemporaryDirectory() as tmp:
            urls = {}
            for kind, args in (
                ("sse", ["--tools", "5", "--page-size", "2"]),
                ("json", ["--tools", "3", "--json-response"]),
                ("guarded", ["--tools", "1", "--require-header", "=".join(HEADER)]),
            ):
                proc, port = _start(args, Path(tmp), kind)
                procs.append(proc)
                urls[kind] = f"http://127.0.0.1:{port}/mcp"
            urls["silent"] = f"http://127.0.0.1:{silent.getsockname()[1]}/mcp"
            urls["closed"] = f"http://127.0.0.1:{closed.getsockname()[1]}/mcp"
            yield urls
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        silent.close()
        closed.close()


def spec(name: str, urls: dict[str, str]) -> ServerSpec:
    kind, headers = CASES[name]
    return ServerSpec(name=name, command="", url=urls[kind], headers=headers)


def timeout_for(name: str) -> float:
    return SILENT_TIMEOUT_S if name == "silent" else RECORD_TIMEOUT_S


def record(launcher: McpLauncher | None = None, path: Path = FIXTURE) -> RecordingMcpLauncher:
    recorder = RecordingMcpLauncher(launcher or HttpMcpLauncher(), path)
    with running() as urls:
        for name in CASES:
            recorder.query(spec(name, urls), timeout_for(name))
    return recorder


if __name__ == "__main__":
    record()
    print(f"recorded {len(CASES)} answers into {FIXTURE}")
