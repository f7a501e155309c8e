"""Assembling the observe service from what wiring built (boundaries and host, real or a scenario's).

Linux (inside a distro or plain Linux): the primary is the local /proc; other running distros are
read through wsl.exe when it is reachable. Windows: the primary is ``--distro`` (or WSL's default)
read through wsl.exe. The Windows side (process tables, PDH counters) comes from its boundaries,
which wiring provides only on Windows; the Docker Engine and wslc.exe are always wired and say
themselves when they are absent. A scenario may state host facts instead
(``host_facts``). Docker samples are kept warm, and the history sampled, in the background only in real time
(``host.real_time``, stated by wiring): on a replay's virtual clock a background poller would
move time itself (the history sampler then follows the scenario's ``host.first_request_s``).
"""

from __future__ import annotations

import secrets

from wslmcp.boundaries.bundle import Boundaries, Host
from wslmcp.boundaries.clock import Clock
from wslmcp.boundaries.procfs_wsl import WslDistroLister, WslProcSource, default_distro
from wslmcp.observe.collector import Collector, CollectorConfig
from wslmcp.observe.history import History
from wslmcp.observe.options import Options
from wslmcp.observe.sampler import HistorySampler
from wslmcp.observe.service import ObserveService
from wslmcp.observe.sources import HostSources, SampleReader, ThreadedReader, WindowsPrimary
from wslmcp.observe.store import SnapshotStore


def windows_missing(host: Host) -> str:
    """Why a server has no Windows side, as the snapshot's warning says it."""
    where = (
        "inside WSL with Windows interop"
        if host.wsl_reachable
        else "without Windows interop (inside WSL with interop off, or plain Linux)"
    )
    return (
        f"Windows host collection is not available {where}: the Windows process table and the "
        "hypervisor's CPU counters are read only by a server running on Windows (see "
        "docs/observe.md); host CPU, host memory and Windows processes are null, and CPU "
        "percentages use the WSL-visible logical CPU count"
    )


def host_sources(boundaries: Boundaries, host: Host) -> HostSources:
    return HostSources(
        windows=boundaries.windows_processes,
        pdh=boundaries.pdh,
        docker=boundaries.docker_api,
        wslc=boundaries.wslc,
        windows_missing=None if boundaries.windows_processes is not None else windows_missing(host),
    )


def build(boundaries: Boundaries, host: Host, options: Options, scope: str | None = None) -> ObserveService:
    wsl_exe = boundaries.wsl_exe
    lister = WslDistroLister(wsl_exe)

    def remote(name: str) -> SampleReader:
        return WslProcSource(wsl_exe, name)

    config = CollectorConfig(
        interval_s=options.interval_ms / 1000.0,
        wsl_only=options.wsl_only,
        docker=options.docker,
        wslc=options.wslc,
        local_distro=None if host.windows_native else host.distro,
        keep_engines_warm=host.real_time,
    )
    sources = host_sources(boundaries, host)
    if host.windows_native:
        chosen = WindowsPrimary(options.distro, lambda: default_distro(wsl_exe), lister, remote)
        collector = Collector(
            boundaries.clock,
            config,
            chosen,
            host=boundaries.host_facts,
            lister=lister,
            remote=remote,
            primary_name=chosen.name,
            sources=sources,
        )
    else:
        interop = host.wsl_reachable
        collector = Collector(
            boundaries.clock,
            config,
            ThreadedReader(boundaries.procfs),
            host=boundaries.host_facts,
            lister=lister if interop else None,
            remote=remote if interop else None,
            primary_name=None,
            sources=sources,
        )
    store = SnapshotStore(boundaries.clock, scope or secrets.token_hex(16))
    return ObserveService(store, collector, history_sampler(boundaries.clock, collector, host, options))


def history_sampler(clock: Clock, collector: Collector, host: Host, options: Options) -> HistorySampler:
    """The sampler and its rings: ``--history-minutes`` of ``--history-interval-ms`` samples from
    now (the server's start), in real time or on the replay's clock (``host.first_request_s``)."""
    interval_s = options.history_interval_ms / 1000.0
    history = History(
        capacity=options.history_minutes * 60_000 // options.history_interval_ms,
        interval_s=interval_s,
        started_at=clock.monotonic(),
        started_ms=int(clock.wall() * 1000),
    )
    return HistorySampler(
        clock, collector, history, real_time=host.real_time, first_request_s=host.first_request_s
    )
