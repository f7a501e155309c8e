"""Re-record a profile scenario's server answers from the home's own real stdio servers.

    .venv/bin/python -m tests.profile_sources.record_scenario profile-configs [--expected]

Copies the scenario home to a temporary directory (fixture paths rewritten to it, the test server
installed where the configs name it, see ``tests/profile/homes.py``), discovers every
configured server, queries all of them through the real launcher (project scope included) and
writes ``answers.json`` with the temporary home rewritten back to the fixture's ``/home/user``.
With ``--expected`` it then re-renders every ``profile-report`` expected file from the replay
(check the result against mcp-top with ``tests/profile_sources/test_configs_parity.py``).
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

from fakes.mcp_launcher import RecordingMcpLauncher
from tests.profile.homes import FIXTURE_HOME, SCENARIOS, copy_home
from wslmcp.boundaries.client_files import LocalClientFiles
from wslmcp.boundaries.mcp_stdio import SdkMcpLauncher
from wslmcp.profile.configs import discover
from wslmcp.profile.querying import query_all


async def record(name: str, out: Path | None = None) -> Path:
    target = out or SCENARIOS / name / "answers.json"
    with tempfile.TemporaryDirectory() as tmp:
        home = copy_home(name, Path(tmp) / "home")
        found = discover(LocalClientFiles(), str(home), str(home / "proj"), "all")
        launcher = RecordingMcpLauncher(SdkMcpLauncher(), target, rewrite={str(home): FIXTURE_HOME})
        await query_all(launcher, found.servers(), 20.0, query_project=True)
    return target


def refresh_expected(name: str) -> list[Path]:
    from wslmcp.replay.profile import KIND, render
    from wslmcp.scenario.loader import Scenario

    scenario = Scenario.load(SCENARIOS / name)
    written = []
    for spec in scenario.manifest.get("expect", []):
        if spec.get("kind") == KIND:
            target = scenario.file(str(spec["expected"]))
            target.write_text(
                render(Scenario.load(SCENARIOS / name), [str(a) for a in spec["args"]]), "utf-8"
            )
            written.append(target)
    return written


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    print(asyncio.run(record(args[0])))
    if "--expected" in args[1:]:
        for path in refresh_expected(args[0]):
            print(path)


if __name__ == "__main__":
    main()
