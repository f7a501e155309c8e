"""Docker and WSLC of one collection: container and process rows, their environments, and whether
the WSL figure could be separated from the containers' (``cpu_overlap_unresolved``).

``docker``/``wslc`` are the sums of their container rows only when the sample is complete and holds
at least one container; an absent engine, a failed or incomplete sample, or no containers at all
leave them null (never 0). See ``overlap`` for the separation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from wslmcp.observe.docker import DockerSample, docker_rows
from wslmcp.observe.model import EnvObservation, Identity, Observed
from wslmcp.observe.overlap import KernelPoint, separate
from wslmcp.observe.wslc import WslcSample, wslc_rows

UNRESOLVED = "WSL CPU overlap unresolved: {why}; showing inclusive observations"


@dataclass
class ContainerView:
    rows: list[Observed] = field(default_factory=list)
    docker: EnvObservation | None = None
    wslc: EnvObservation | None = None
    wsl_cpu: float | None = None  # exclusive WSL CPU when a separation replaced the inclusive one
    unresolved: bool = False
    warnings: list[str] = field(default_factory=list)


def _env(rows: Sequence[Observed]) -> EnvObservation | None:
    if not rows:
        return None
    cpu = [r.cpu_percent for r in rows]
    mem = [r.memory_bytes for r in rows]
    return EnvObservation(
        cpu_percent=None if any(v is None for v in cpu) else sum(v for v in cpu if v is not None),
        memory_bytes=None if any(v is None for v in mem) else sum(v for v in mem if v is not None),
    )


NO_RUNNING_CONTAINERS = (
    "Docker: the daemon answered with no running containers; environments.docker is null "
    "(Docker is running, not absent)"
)


def container_view(
    docker_before: DockerSample | None,
    docker_after: DockerSample | None,
    wslc: WslcSample | None,
    *,
    host_cpus: int,
    kernel: Sequence[KernelPoint],
    kernel_cpus: int,
    wsl_cpu: float | None,
    wslc_host: Identity | None,
    wslc_hosts: int,
) -> ContainerView:
    view = ContainerView()
    reasons: list[str] = []
    docker_complete = False
    points = {}
    if docker_after is not None:
        view.warnings += docker_after.warnings
        if docker_after.containers is None:
            view.warnings.append(f"Docker: {docker_after.failure}; environments.docker is null")
            if not docker_after.absent:
                reasons.append("Docker container collection unavailable")
        else:
            d = docker_rows(docker_before, docker_after, host_cpus)
            view.rows += d.containers + d.processes
            points = d.points
            docker_complete = not docker_after.incomplete
            if not docker_complete:
                reasons.append("container cgroup counters unavailable")
            elif d.containers:
                view.docker = _env(d.containers)
                if len(points) != len(d.containers):
                    reasons.append("container collection unavailable or warming up")
            else:
                view.warnings.append(NO_RUNNING_CONTAINERS)
    if wslc is not None:
        view.warnings += wslc.warnings
        if wslc.containers is None:
            view.warnings.append(f"WSLC: {wslc.failure}; environments.wslc is null")
            if not wslc.absent:
                reasons.append("WSLC container collection unavailable")
        else:
            rows = wslc_rows(wslc, host_cpus, wslc_host)
            view.rows += rows
            if not wslc.incomplete:
                view.wslc = _env(rows)
            else:
                reasons.append("WSLC container stats incomplete")
            if rows and wslc_host is None:
                reasons.append(
                    "WSLC containers were observed without a unique WSLC session host (vmmemwslc-*, "
                    f"{wslc_hosts} observed), so whether their CPU is inside WSL's cannot be verified"
                )
    if points and not reasons:
        if wsl_cpu is None:
            reasons.append("WSL kernel CPU unavailable")
        else:
            sep = separate(kernel, kernel_cpus, host_cpus, points)
            if sep.unresolved:
                reasons.append(sep.reason or "unknown")
            elif sep.wsl is not None:
                view.wsl_cpu = sep.wsl
                if view.docker is not None and sep.docker is not None:
                    view.docker = EnvObservation(sep.docker, view.docker.memory_bytes)
    if reasons:
        view.unresolved = True
        view.warnings.append(UNRESOLVED.format(why="; ".join(dict.fromkeys(reasons))))
    return view
