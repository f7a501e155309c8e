"""Re-record a profile scenario's server answers from its own real stdio servers.

    .venv/bin/python -m tests.profile.record_fixture profile-usage

Copies the scenario home to a temporary directory (paths rewritten), launches every configured
server through the real launcher (project scope included) and writes ``answers.json`` in the
recorded-answers format the fake launcher replays.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

from fakes.mcp_launcher import RecordingMcpLauncher
from tests.profile.homes import SCENARIOS, copy_home
from wslmcp.boundaries.client_files import LocalClientFiles
from wslmcp.boundaries.mcp_stdio import SdkMcpLauncher
from wslmcp.profile.configs import discover
from wslmcp.profile.querying import query_all


async def record(name: str) -> Path:
    out = SCENARIOS / name / "answers.json"
    with tempfile.TemporaryDirectory() as tmp:
        home = copy_home(name, Path(tmp) / "home")
        found = discover(LocalClientFiles(), str(home), str(home / "proj"), "all")
        launcher = RecordingMcpLauncher(SdkMcpLauncher(), out)
        await query_all(launcher, found.servers(), 20.0, query_project=True)
    return out


if __name__ == "__main__":
    print(asyncio.run(record(sys.argv[1])))
