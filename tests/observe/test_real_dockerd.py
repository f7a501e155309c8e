"""The observe collector against a real dockerd on this machine's kernel (started by .ci/run and
named by WSLMCP_TEST_DOCKER_HOST): a busy container's CPU, its children from top, and an overlap
separation the Engine's own counters verify (same kernel as the local /proc). Exact values stay on
the stand-in; here only what a real daemon must show."""

from __future__ import annotations

from tests.contract.test_docker_real_daemon import HOST, containers, daemon  # noqa: F401  (daemon skips without one)
from wslmcp.boundaries.clock import SystemClock
from wslmcp.boundaries.docker_api import DockerEndpoint
from wslmcp.boundaries.docker_engine import EngineApi
from wslmcp.boundaries.procfs import LocalProcSource
from wslmcp.observe.collector import Collector, CollectorConfig
from wslmcp.observe.sources import HostSources, ThreadedReader


async def test_a_busy_container_on_this_kernel_is_separated_from_wsl(containers: dict[str, str]) -> None:  # noqa: F811
    api = EngineApi(DockerEndpoint(HOST, "WSLMCP_TEST_DOCKER_HOST"))
    config = CollectorConfig(interval_s=3.0, wsl_only=True, docker=True, wslc=False)
    collector = Collector(
        SystemClock(), config, ThreadedReader(LocalProcSource()), sources=HostSources(docker=api)
    )
    obs = await collector.collect()
    rows = {r.identity.native_id: r for r in obs.projections[2] if r.identity.kind == "container"}
    busy = rows[containers["busy"]]
    assert busy.cpu_percent is not None and busy.cpu_percent > 0
    assert rows[containers["idle"]].cpu_percent is not None
    kids = [r for r in obs.projections[2] if r.parents == (busy.identity,)]
    assert kids and any(k.args and "while" in k.args for k in kids)
    env = obs.summary.environments
    assert env["docker"] is not None and env["wsl"] is not None
    assert obs.summary.cpu_overlap_unresolved is False, obs.warnings
    assert env["wsl"].cpu_percent is not None and env["wsl"].cpu_percent >= 0
