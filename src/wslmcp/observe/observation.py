"""One observation from two raw samples: a pure function of what was read (no clock, no I/O).

``observe(before, after, ...)`` turns the opening and closing raw samples of a collection (the
distros' /proc, the Windows side, the container engines' readings) into an ``Observation``: rows
grouped by projection, the summary, the warnings. The collector calls it once per collection and
the history sampler once per sample, so a snapshot and a history point are the same arithmetic.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from wslmcp.boundaries.host_facts import HostFacts
from wslmcp.observe.accounting import RawSample, drive_warning, process_rows, wsl_environment
from wslmcp.observe.containers import ContainerView, container_view
from wslmcp.observe.docker import DockerSample
from wslmcp.observe.host import HostSide, host_side
from wslmcp.observe.model import Environment, EnvObservation, Observation, Observed, Summary
from wslmcp.observe.overlap import kernel_point
from wslmcp.observe.pressure import (
    WINDOWS_FIGURES_ABSENT,
    Pressure,
    linux_pressure,
    parse_linux,
    windows_pressure,
)
from wslmcp.observe.wslc import WslcSample

WSL_ONLY_WARNING = (
    "--wsl-only uses the WSL-visible logical CPU count; exact host normalization and Windows host "
    "attribution require Windows interop"
)
WINDOWS_WSL_ONLY_WARNING = (
    "--wsl-only uses the Windows logical CPU count but disables Windows host attribution"
)
NO_HOST_WARNING = (
    "Windows host collection is not available in this build: host CPU, host memory and Windows "
    "processes are null, and CPU percentages use the WSL-visible logical CPU count"
)
CONTAINERS_WARNING = (
    "{what} collection is not available in this build; WSL CPU may include container work "
    "(inclusive observation)"
)
CPU_COUNT_CHANGED_WARNING = (
    "Container results were discarded because the host's logical CPU count changed during "
    "the collection (their percentages would use the wrong scale)"
)


@dataclass(frozen=True)
class Setting:
    """What a collector observes with: its options and which sources it has."""

    wsl_only: bool = False
    docker: bool = True  # Docker asked for (not --no-docker)
    wslc: bool = True  # WSLC asked for (not --no-wslc, not --wsl-only)
    docker_source: bool = False  # a Docker Engine boundary is wired
    wslc_source: bool = False
    windows_missing: str | None = None  # why there is no Windows side (the snapshot's warning)


@dataclass(frozen=True)
class Engines:
    """The container engines' readings of one collection (each None when not sampled)."""

    docker_before: DockerSample | None = None
    docker_after: DockerSample | None = None
    wslc: WslcSample | None = None


@dataclass(frozen=True)
class Completed:
    """When the collection completed, on the monotonic and the wall clock."""

    monotonic: float
    wall: float


def observe(
    before: RawSample,
    after: RawSample,
    *,
    setting: Setting,
    host: HostFacts | None,
    engines: Engines,
    completed: Completed,
) -> Observation:
    side, warnings = _windows_side(before, after, setting, host)
    host_cpus = _host_cpus(side, host, after)
    rows = process_rows(before, after, host_cpus)
    wsl, wsl_warnings = wsl_environment(before, after, rows, host_cpus)
    if side is not None and side.wsl_host is not None:
        wsl_host = side.wsl_host
        rows = [replace(r, parents=(wsl_host, *r.parents)) for r in rows]
    warnings += list(dict.fromkeys([*before.warnings, *after.warnings]))
    warnings += wsl_warnings
    if side is not None:
        warnings += side.warnings
    view = _containers(
        before, after, engines=engines, side=side, host_cpus=host_cpus, wsl_cpu=wsl.cpu_percent
    )
    warnings += view.warnings
    drives = drive_warning(after, rows, host_cpus)
    if drives is not None:
        warnings.append(drives)
    missing = _missing_engines(setting)
    if missing:
        warnings.append(CONTAINERS_WARNING.format(what=" and ".join(missing)))
    if view.wsl_cpu is not None:
        wsl = EnvObservation(view.wsl_cpu, wsl.memory_bytes)
    environments: dict[Environment, EnvObservation | None] = {
        "windows": side.environment if side is not None else None,
        "wsl": wsl,
        "wslc": view.wslc,
        "docker": view.docker,
    }
    summary = Summary(
        host_logical_cpu_count=host_cpus,
        cpu_breakdown=side.cpu_breakdown if side is not None else host.cpu_breakdown if host else None,
        cpu_overlap_unresolved=bool(missing) or view.unresolved,
        host_memory=side.memory if side is not None else host.memory if host else None,
        environments=environments,
        pressure=_pressure(before, after, None if setting.wsl_only else side),
    )
    window = after.taken_at - before.taken_at
    windows_rows: tuple[Observed, ...] = side.rows if side is not None else ()
    return Observation(
        projections=(tuple(rows), windows_rows, tuple(view.rows)),
        summary=summary,
        warnings=tuple(warnings),
        sample_window_ms=int(round(window * 1000, 3)) if window >= 0 else None,
        completed_monotonic=completed.monotonic,
        completed_wall=completed.wall,
    )


def _windows_side(
    before: RawSample, after: RawSample, setting: Setting, host: HostFacts | None
) -> tuple[HostSide | None, list[str]]:
    """The Windows side of the two samples (None when it was not read), and what to warn about it."""
    side = host_side(before.host, after.host) if before.host is not None and after.host is not None else None
    if setting.wsl_only and side is not None:  # the process table is kept for the CPU count only
        side = replace(
            side,
            rows=(),
            environment=None,
            cpu_breakdown=None,
            memory=None,
            wsl_host=None,
            wslc_host=None,
            wslc_hosts=0,
            warnings=(),
        )
        return side, [WINDOWS_WSL_ONLY_WARNING]
    if setting.wsl_only:
        return side, [WSL_ONLY_WARNING]
    if side is None and host is None:
        return side, [setting.windows_missing or NO_HOST_WARNING]
    return side, []


def _host_cpus(side: HostSide | None, host: HostFacts | None, after: RawSample) -> int:
    """The scale of every percentage: Windows' logical CPUs, else the stated host's, else WSL's."""
    if side is not None and side.logical_cpus > 0:
        return side.logical_cpus
    if host is not None:
        return host.logical_cpus
    return after.primary.cpu_count


def _containers(
    before: RawSample,
    after: RawSample,
    *,
    engines: Engines,
    side: HostSide | None,
    host_cpus: int,
    wsl_cpu: float | None,
) -> ContainerView:
    kernel = [
        p
        for p in (kernel_point(s.primary.kernel, s.primary.clk_tck) for s in (before, after))
        if p is not None
    ]
    view = container_view(
        engines.docker_before,
        engines.docker_after,
        engines.wslc,
        host_cpus=host_cpus,
        kernel=kernel,
        kernel_cpus=after.primary.cpu_count,
        wsl_cpu=wsl_cpu,
        wslc_host=side.wslc_host if side is not None else None,
        wslc_hosts=side.wslc_hosts if side is not None else 0,
    )
    if side is not None and side.cpu_count_changed and (view.docker or view.wslc):
        view.docker = view.wslc = None
        view.warnings.append(CPU_COUNT_CHANGED_WARNING)
    return view


def _pressure(before: RawSample, after: RawSample, side: HostSide | None) -> Pressure:
    """The pressure evidence of the window: Linux figures from the primary distro's /proc, Windows
    figures from PDH and the WSL VM host's row (only with a Windows side)."""
    pressure = Pressure()
    then, now = before.primary, after.primary
    seconds = (
        now.uptime_s - then.uptime_s
        if now.uptime_s is not None and then.uptime_s is not None
        else after.taken_at - before.taken_at
    )
    linux_pressure(then.linux, now.linux or parse_linux({}), seconds, now.page_size, pressure)
    if side is None or before.host is None or after.host is None:
        pressure.warnings.append(WINDOWS_FIGURES_ABSENT)
    else:
        vm = next((r.memory_bytes for r in side.rows if r.identity == side.wsl_host), None)
        windows_pressure(
            before.host.counters, after.host.counters, after.taken_at - before.taken_at, vm, pressure
        )
    return pressure


def _missing_engines(setting: Setting) -> list[str]:
    """The container engines asked for that this build cannot collect."""
    wanted = (
        ("Docker", setting.docker, setting.docker_source),
        ("WSLC", setting.wslc and not setting.wsl_only, setting.wslc_source),
    )
    return [name for name, on, present in wanted if on and not present]
