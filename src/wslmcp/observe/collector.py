"""One collection: two raw samples an interval (or more) apart, turned into an ``Observation``.

Warm sampling: the collector keeps the last raw sample it took. A collection whose previous raw
sample is at least one interval old (and at most ``warm_limit_s``) pairs it with one new sample,
so a forced refresh in an active session costs one sample instead of a whole interval. A younger
previous sample is waited on until it is one interval old; an older one (or none) means the plain
two-sample collection. ``sample_window_ms`` is always the real time between the two samples the
rates were computed from. See docs/observe.md.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from wslmcp.boundaries.clock import Clock
from wslmcp.boundaries.host_facts import HostFacts, HostProbe
from wslmcp.observe.accounting import ParsedProc, RawSample, parse_sample, process_rows, wsl_environment
from wslmcp.observe.errors import CollectionFailed
from wslmcp.observe.model import CpuScope, Environment, EnvObservation, Observation, Summary
from wslmcp.observe.sources import DistroLister, SampleReader

WSL_ONLY_WARNING = (
    "--wsl-only uses the WSL-visible logical CPU count; exact host normalization and Windows host "
    "attribution require Windows interop"
)
NO_HOST_WARNING = (
    "Windows host collection is not available in this build: host CPU, host memory and Windows "
    "processes are null, and CPU percentages use the WSL-visible logical CPU count"
)
CONTAINERS_WARNING = (
    "{what} collection is not available in this build; WSL CPU may include container work "
    "(inclusive observation)"
)


@dataclass(frozen=True)
class CollectorConfig:
    interval_s: float = 3.0
    wsl_only: bool = False
    docker: bool = True
    wslc: bool = True
    local_distro: str | None = None  # the primary's own name, left out of the additional distros

    @property
    def warm_limit_s(self) -> float:
        return max(2 * self.interval_s, 30.0)


class Collector:
    def __init__(
        self,
        clock: Clock,
        config: CollectorConfig,
        primary: SampleReader,
        *,
        host: HostProbe | None = None,
        lister: DistroLister | None = None,
        remote: Callable[[str], SampleReader] | None = None,
        primary_name: Callable[[], Awaitable[str]] | None = None,
    ) -> None:
        self._clock, self.config, self._primary = clock, config, primary
        self._host = None if config.wsl_only else host
        self._lister = None if config.wsl_only else lister
        self._remote = remote
        self._primary_name = primary_name
        self._warm: RawSample | None = None

    @property
    def cpu_scope(self) -> CpuScope:
        return "windows_host" if self._host is not None else "wsl_visible"

    async def collect(self) -> Observation:
        try:
            before = self._usable_warm()
            if before is None:
                before = await self._sample()
                await self._clock.sleep(self.config.interval_s)
            else:
                await self._clock.sleep(self.config.interval_s - (self._clock.monotonic() - before.taken_at))
            after = await self._sample()
            host = await self._host.read() if self._host is not None else None
        except CollectionFailed:
            self._warm = None
            raise
        except Exception as exc:
            self._warm = None
            raise CollectionFailed(f"collection failed: {type(exc).__name__}: {exc}") from exc
        self._warm = after
        return self._observe(before, after, host)

    def _usable_warm(self) -> RawSample | None:
        warm = self._warm
        if warm is None:
            return None
        if self._clock.monotonic() - warm.taken_at > self.config.warm_limit_s:
            self._warm = None
            return None
        return warm

    async def _sample(self) -> RawSample:
        taken_at = self._clock.monotonic()
        try:
            primary = parse_sample(await self._primary.read())
        except Exception as exc:
            raise CollectionFailed(f"primary WSL /proc unavailable: {type(exc).__name__}: {exc}") from exc
        extras, warnings = await self._sample_additional()
        return RawSample(taken_at=taken_at, primary=primary, extras=extras, warnings=tuple(warnings))

    async def _sample_additional(self) -> tuple[dict[str, ParsedProc], list[str]]:
        if self._lister is None or self._remote is None:
            return {}, []
        try:
            names = await self._lister.running()
        except Exception as exc:
            return {}, [f"additional WSL distributions were not sampled: {exc}"]
        local_name = self.config.local_distro
        if local_name is None and self._primary_name is not None:
            local_name = await self._primary_name()
        local = (local_name or "").casefold()
        names = [n for n in dict.fromkeys(names) if n.casefold() != local]
        results = await asyncio.gather(*(self._remote(n).read() for n in names), return_exceptions=True)
        extras: dict[str, ParsedProc] = {}
        warnings: list[str] = []
        for name, result in zip(names, results, strict=True):
            if isinstance(result, BaseException):
                warnings.append(f"WSL distribution {name!r} could not be sampled: {result}")
            else:
                extras[name] = parse_sample(result)
        return extras, warnings

    def _observe(self, before: RawSample, after: RawSample, host: HostFacts | None) -> Observation:
        cfg = self.config
        warnings: list[str] = []
        if cfg.wsl_only:
            warnings.append(WSL_ONLY_WARNING)
        elif host is None:
            warnings.append(NO_HOST_WARNING)
        host_cpus = host.logical_cpus if host is not None else after.primary.cpu_count
        rows = process_rows(before, after, host_cpus)
        wsl, wsl_warnings = wsl_environment(before, after, rows, host_cpus)
        warnings += list(dict.fromkeys([*before.warnings, *after.warnings]))
        warnings += wsl_warnings
        missing = [n for n, on in (("Docker", cfg.docker), ("WSLC", cfg.wslc and not cfg.wsl_only)) if on]
        if missing:
            warnings.append(CONTAINERS_WARNING.format(what=" and ".join(missing)))
        environments: dict[Environment, EnvObservation | None] = {
            "windows": None,
            "wsl": wsl,
            "wslc": None,
            "docker": None,
        }
        summary = Summary(
            host_logical_cpu_count=host_cpus,
            cpu_breakdown=host.cpu_breakdown if host is not None else None,
            cpu_overlap_unresolved=bool(missing),
            host_memory=host.memory if host is not None else None,
            environments=environments,
        )
        window = after.taken_at - before.taken_at
        return Observation(
            projections=(tuple(rows),),
            summary=summary,
            warnings=tuple(warnings),
            sample_window_ms=int(round(window * 1000, 3)) if window >= 0 else None,
            completed_monotonic=self._clock.monotonic(),
            completed_wall=self._clock.wall(),
        )
