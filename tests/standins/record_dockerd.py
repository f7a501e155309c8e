"""Record a real dockerd's answers into a scenario (dev tool; the fixture under
tests/contract/fixtures/dockerd-20.10 was made with it):

    DOCKER_HOST=unix:///tmp/…/docker.sock python -m tests.standins.record_dockerd OUT_DIR

The containers it asks about must be running (``docker ps``); it records /_ping, /version, the
container list, two stats (stream=false) and one top per container, and a 404 for a vanished one."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from wslmcp.boundaries.clock import SystemClock
from wslmcp.boundaries.docker_api import DockerEndpoint
from wslmcp.boundaries.docker_engine import EngineApi
from wslmcp.fakes.docker_api import RecordingDockerApi
from wslmcp.scenario.recorder import ScenarioWriter

TOP_ARGS = "-eo pid,ppid,rss,time,comm,args"


async def record(out: Path) -> None:
    writer = ScenarioWriter(
        out, out.name, "answers of a real dockerd (Debian docker.io 20.10, cgroup v1)", SystemClock()
    )
    api = RecordingDockerApi(EngineApi(DockerEndpoint(os.environ["DOCKER_HOST"], "DOCKER_HOST")), writer)
    try:
        await api.get("/_ping", timeout_s=10)
        await api.get("/version", timeout_s=10)
        listing = await api.get("/containers/json", timeout_s=10)
        ids = [c["Id"] for c in listing.body]
        for _ in range(2):
            await asyncio.gather(
                *(api.get(f"/containers/{i}/stats", {"stream": "false"}, timeout_s=10) for i in ids)
            )
        for i in ids:
            await api.get(f"/containers/{i}/top", {"ps_args": TOP_ARGS}, timeout_s=10)
        await api.get("/containers/0123456789ab/stats", {"stream": "false"}, timeout_s=10)
        writer.commit()
    except BaseException:
        writer.abort()
        raise


if __name__ == "__main__":
    asyncio.run(record(Path(sys.argv[1])))
