"""Assembling the observe service from the parts wiring chose (real adapters or a scenario's)."""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from wslmcp.boundaries.clock import Clock
from wslmcp.observe.collector import Collector, CollectorConfig
from wslmcp.observe.options import Options
from wslmcp.observe.service import ObserveService
from wslmcp.observe.sources import DistroLister, HostProbe, SampleReader
from wslmcp.observe.store import SnapshotStore


@dataclass(frozen=True)
class ObserveParts:
    """What wiring hands the observe server."""

    clock: Clock
    primary: SampleReader
    host: HostProbe | None
    lister: DistroLister | None
    remote: Callable[[str], SampleReader] | None
    local_distro: str | None
    windows_native: bool
    primary_name: Callable[[], Awaitable[str]] | None = None


def build_service(parts: ObserveParts, options: Options, scope: str | None = None) -> ObserveService:
    config = CollectorConfig(
        interval_s=options.interval_ms / 1000.0,
        wsl_only=options.wsl_only,
        docker=options.docker,
        wslc=options.wslc,
        local_distro=parts.local_distro,
    )
    collector = Collector(
        parts.clock,
        config,
        parts.primary,
        host=parts.host,
        lister=parts.lister,
        remote=parts.remote,
        primary_name=parts.primary_name,
    )
    store = SnapshotStore(parts.clock, scope or secrets.token_hex(16))
    return ObserveService(store, collector)
