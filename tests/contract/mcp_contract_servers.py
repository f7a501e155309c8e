"""The real stdio test servers the McpLauncher contract runs against, and their recorder.

``python -m tests.contract.mcp_contract_servers`` re-records ``fixtures/mcp_answers.json`` through
``RecordingMcpLauncher`` wrapped around the real adapter: the fake's answers are recorded, never
written by hand.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tests.servers import STDIO_SERVER
from wslmcp.boundaries.mcp_launcher import McpLauncher, ServerSpec
from wslmcp.boundaries.mcp_stdio import StdioMcpLauncher
from wslmcp.fakes.mcp_launcher import RecordingMcpLauncher

SERVER = str(STDIO_SERVER)
FIXTURE = Path(__file__).resolve().parent / "fixtures" / "mcp_answers.json"
RECORD_TIMEOUT_S = 10.0

#: name -> the test server's options
SERVERS: dict[str, tuple[str, ...]] = {
    "nice": ("--name", "nice-server", "--instructions", "Call tool_00000 first.", "--tools", "3"),
    "paged": ("--tools", "7", "--page-size", "3"),
    "empty": ("--tools", "0"),
    "chatty": ("--junk", "3", "--tools", "1"),
    "exits": ("--mode", "exit"),
    "crashes": ("--mode", "crash"),
    "refuses": ("--mode", "error"),
    "slow": ("--sleep", "1"),
    "textcode": ("--mode", "error", "--error-code", '"x"'),
    "boolcode": ("--mode", "listerror", "--error-code", "true"),
    "noresult": ("--mode", "noresult"),
    "nullinit": ("--mode", "nullinit"),
    "odd": ("--odd-entries", "--tools", "3", "--page-size", "2"),
    "surrogate": ("--surrogate", "--tools", "1"),
    "floatid": ("--mode", "floatid"),
    "resulterror": ("--mode", "resulterror"),
}


def spec(name: str) -> ServerSpec:
    return ServerSpec(name=name, command=sys.executable, args=(SERVER, *SERVERS[name]))


def record(launcher: McpLauncher | None = None, path: Path = FIXTURE) -> RecordingMcpLauncher:
    recorder = RecordingMcpLauncher(launcher or StdioMcpLauncher(), path)
    for name in SERVERS:  # one after another: the recording keeps this order
        recorder.query(spec(name), RECORD_TIMEOUT_S)
    return recorder


if __name__ == "__main__":
    record()
    print(f"recorded {len(SERVERS)} answers into {FIXTURE}")
