"""Assembling the observe service from what wiring built (boundaries and host, real or a scenario's).

Linux (inside a distro or plain Linux): the primary is the local /proc; other running distros are
read through wsl.exe when it is reachable. Windows: the primary is ``--distro`` (or WSL's default)
read through wsl.exe. Host facts come from the host-facts boundary (a scenario's stated host until
part 2's Windows collectors).
"""

from __future__ import annotations

import secrets

from wslmcp.boundaries.bundle import Boundaries, Host
from wslmcp.boundaries.procfs_wsl import WslDistroLister, WslProcSource, default_distro
from wslmcp.observe.collector import Collector, CollectorConfig
from wslmcp.observe.options import Options
from wslmcp.observe.service import ObserveService
from wslmcp.observe.sources import SampleReader, ThreadedReader, WindowsPrimary
from wslmcp.observe.store import SnapshotStore


def windows_native(host: Host) -> bool:
    """Whether the server runs on Windows itself (its primary distribution is read via wsl.exe)."""
    return host.platform == "windows"


def build_service(
    boundaries: Boundaries, host: Host, options: Options, scope: str | None = None
) -> ObserveService:
    wsl_exe = boundaries.wsl_exe
    lister = WslDistroLister(wsl_exe)

    def remote(name: str) -> SampleReader:
        return WslProcSource(wsl_exe, name)

    config = CollectorConfig(
        interval_s=options.interval_ms / 1000.0,
        wsl_only=options.wsl_only,
        docker=options.docker,
        wslc=options.wslc,
        local_distro=None if windows_native(host) else host.distro,
    )
    if windows_native(host):
        chosen = WindowsPrimary(options.distro, lambda: default_distro(wsl_exe), lister, remote)
        collector = Collector(
            boundaries.clock,
            config,
            chosen,
            host=boundaries.host_facts,
            lister=lister,
            remote=remote,
            primary_name=chosen.name,
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
        )
    store = SnapshotStore(boundaries.clock, scope or secrets.token_hex(16))
    return ObserveService(store, collector)
