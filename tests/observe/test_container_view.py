"""Environments and cpu_overlap_unresolved from the container samples: sums only when complete and
non-empty, null otherwise, and every reason the separation could not be verified."""

from __future__ import annotations

from wslmcp.observe.containers import ContainerView, container_view
from wslmcp.observe.docker import ContainerStat, CpuPoint, DockerSample
from wslmcp.observe.model import Identity
from wslmcp.observe.overlap import NS, KernelPoint
from wslmcp.observe.wslc import WslcContainer, WslcSample

KERNEL = [KernelPoint(1000 * 8 * NS, 0.0), KernelPoint(1003 * 8 * NS, 3 * 8 * NS * 0.5)]
HOST = Identity("windows", "host", None, "9100", 1)


def stat(usage_s: float, t: float) -> ContainerStat:
    point = CpuPoint(int(usage_s * NS), int(t * 8 * NS), 8)
    return ContainerStat("c" * 64, "web", None, point, None, 100, ())


def view(
    docker: DockerSample | None = None, wslc: WslcSample | None = None, host: Identity | None = HOST
) -> ContainerView:
    before = DockerSample(0.0, {"c" * 64: stat(0.0, 1000.5)})
    return container_view(
        before,
        docker,
        wslc,
        host_cpus=16,
        kernel=KERNEL,
        kernel_cpus=8,
        wsl_cpu=25.0,
        wslc_host=host,
        wslc_hosts=1 if host else 0,
    )


def test_a_verified_separation_replaces_wsl_and_docker_cpu() -> None:
    got = view(DockerSample(3.0, {"c" * 64: stat(2.0, 1002.5)}))  # 1 core = 6.25 % of 16
    assert not got.unresolved and got.docker is not None
    assert got.wsl_cpu is not None and abs(got.wsl_cpu - (25.0 - 6.25)) < 1e-9


def test_no_containers_is_null_and_resolved() -> None:
    got = view(DockerSample(3.0, {}))
    assert got.docker is None and not got.unresolved and got.wsl_cpu is None


def test_an_incomplete_sample_is_null_and_unresolved() -> None:
    got = view(DockerSample(3.0, {"c" * 64: stat(2.0, 1002.5)}, incomplete=True))
    assert got.docker is None and got.unresolved
    assert any("container cgroup counters unavailable" in w for w in got.warnings)


def test_wslc_without_its_session_host_cannot_be_verified() -> None:
    wslc = WslcSample({"w": WslcContainer("w", "agent", None, 80.0, 1)})
    got = view(None, wslc, host=None)
    assert got.wslc is not None and got.unresolved
    assert any("vmmemwslc" in w for w in got.warnings)
    resolved = view(None, wslc)
    assert not resolved.unresolved and resolved.wslc is not None and resolved.wslc.cpu_percent == 5.0


def test_an_absent_engine_is_null_but_not_unresolved() -> None:
    got = view(DockerSample(3.0, None, "no Docker daemon at unix:///x (from default)", absent=True))
    assert got.docker is None and not got.unresolved
    failed = view(DockerSample(3.0, None, "answered HTTP 500"))
    assert failed.unresolved
