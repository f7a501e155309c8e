"""Docker collection time: 20 containers against the Engine stand-in answering every ``/stats`` on
the daemon's 1 s collector tick as dockerd does (``stream=false`` needs two ticks' samples, so it
answers 1-2 s after the request), through the real adapter over a unix socket.

A collection runs its interval and the Docker sample (list, then every container's stats and top
concurrently) side by side. Limit from the issue: interval + 0.3 s (wsltop's took 9.0-9.4 s).
Also shown, for scale: the same sample with requests one after another (first 3 containers only).
"""

from __future__ import annotations

import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.standins.engine import engine_in_thread
from wslmcp.boundaries.docker_api import TOP_PS_ARGS, DockerEndpoint
from wslmcp.boundaries.docker_engine import EngineApi
from wslmcp.observe import docker

RECORDED = Path(__file__).parents[1] / "contract" / "fixtures" / "dockerd-20.10"
CONTAINERS = 20
INTERVAL_S = 3.0  # the observe server's default --interval-ms
TICK_S = 1.0
ROUNDS = 3
LIMIT_S = INTERVAL_S + 0.3


def _items() -> list[dict[str, Any]]:
    manifest = json.loads((RECORDED / "scenario.json").read_text())
    recorded = manifest["exchanges"]["docker_api"]
    listing = json.loads(
        (RECORDED / next(i for i in recorded if i["path"] == "/containers/json")["body"]).read_text()
    )
    stats = json.loads(
        (RECORDED / next(i for i in recorded if i["path"].endswith("/stats"))["body"]).read_text()
    )
    top = json.loads((RECORDED / next(i for i in recorded if i["path"].endswith("/top"))["body"]).read_text())
    items: list[dict[str, Any]] = []
    containers = []
    for n in range(CONTAINERS):
        cid = f"{n:064x}"
        containers.append({**listing[0], "Id": cid, "Names": [f"/bench{n}"]})
        items.append({"path": f"/containers/{cid}/stats", "query": {"stream": "false"}, "json": stats})
        items.append({"path": f"/containers/{cid}/top", "query": {"ps_args": TOP_PS_ARGS}, "json": top})
    return [{"path": "/containers/json", "json": containers}, *items]


async def _collection(api: EngineApi) -> tuple[float, int]:
    started = time.perf_counter()
    _, result = await asyncio.gather(
        asyncio.sleep(INTERVAL_S), docker.sample(api, 0.0, deadline_s=INTERVAL_S + 2)
    )
    return time.perf_counter() - started, len(result.containers or {})


async def _sequential(api: EngineApi, n: int) -> float:
    started = time.perf_counter()
    listing = await api.get("/containers/json", timeout_s=5)
    for c in listing.body[:n]:
        await api.get(f"/containers/{c['Id']}/stats", {"stream": "false"}, timeout_s=5)
        await api.get(f"/containers/{c['Id']}/top", {"ps_args": TOP_PS_ARGS}, timeout_s=5)
    return time.perf_counter() - started


def main() -> None:
    with (
        tempfile.TemporaryDirectory(prefix="bench-eng-", dir="/tmp") as d,
        engine_in_thread(Path(d) / "d.sock", _items(), tick_s=TICK_S) as standin,
    ):
        api = EngineApi(DockerEndpoint(standin.url, "bench"))

        async def run() -> tuple[list[float], set[int], float]:
            runs = [await _collection(api) for _ in range(ROUNDS)]
            return [t for t, _ in runs], {n for _, n in runs}, await _sequential(api, 3)

        times, counts, sequential = asyncio.run(run())
    print(
        f"   {CONTAINERS} containers, daemon tick {TICK_S:g} s, interval {INTERVAL_S:g} s, {ROUNDS} collections"
    )
    print(f"   containers seen per collection: {sorted(counts)}")
    print(
        f"   collection: median {statistics.median(times):.3f} s, max {max(times):.3f} s "
        f"(limit {LIMIT_S:.1f} s: {'OK' if max(times) <= LIMIT_S else 'OVER'})"
    )
    print(f"   for scale, 3 containers one request at a time: {sequential:.3f} s")
