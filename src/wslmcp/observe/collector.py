"""One collection: two raw samples an interval (or more) apart, turned into an ``Observation``.

Warm sampling: the collector keeps the last raw sample it took. A collection whose previous raw
sample is at least one interval old (and at most ``warm_limit_s``) pairs it with one new sample,
so a forced refresh in an active session costs one sample instead of a whole interval. A younger
previous sample is waited on until it is one interval old; an older one (or none) means the plain
two-sample collection. ``sample_window_ms`` is always the real time between the two samples the
rates were computed from. See docs/observe.md.

A raw sample reads the primary's /proc, the additional distros, the Windows process table and the
PDH counters at once. Docker and WSLC are sampled once per collection, asked ``ENGINE_LEAD_S``
before the interval ends so their answers (which take the daemon a tick or two) arrive about when
it ends, and always before the closing raw sample (their readings must lie inside the kernel's
window, which the overlap separation needs); the first collection also takes a Docker baseline with
its opening sample. Each has its own deadline, so a hung engine bounds, never blocks, a collection.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any

from wslmcp.boundaries.clock import Clock
from wslmcp.boundaries.host_facts import HostFacts, HostProbe
from wslmcp.observe import docker as docker_source
from wslmcp.observe import wslc as wslc_source
from wslmcp.observe.accounting import ParsedProc, RawSample, parse_sample, process_rows, wsl_environment
from wslmcp.observe.containers import container_view
from wslmcp.observe.docker import DockerSample
from wslmcp.observe.errors import CollectionFailed
from wslmcp.observe.host import HostRaw, host_side
from wslmcp.observe.model import CpuScope, Environment, EnvObservation, Observation, Observed, Summary
from wslmcp.observe.overlap import kernel_point
from wslmcp.observe.sources import DistroLister, HostSources, SampleReader
from wslmcp.observe.warm import EngineWarmer
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
WARM_AGE_S = 1.5  # a warmed engine round older than this is asked for again
ENGINE_LEAD_S = 2.0  # a closing engine sample is asked for this long before the interval ends
ENGINE_TICK_S = 1.0  # dockerd samples container stats once a second; stream=false waits up to two ticks

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
    keep_engines_warm: bool = False  # poll Docker in the background while clients are active (real time only)

    @property
    def warm_limit_s(self) -> float:
        return max(2 * self.interval_s, 30.0)

    @property
    def engine_deadline_s(self) -> float:
        """The most one Docker or WSLC sample may take, whatever the engine does: at least the two
        daemon ticks a ``stream=false`` stats answer may wait, with the listing before it, whatever
        the sampling interval."""
        return max(3 * ENGINE_TICK_S, min(self.interval_s, 5.0))


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
        sources: HostSources | None = None,
    ) -> None:
        self._clock, self.config, self._primary = clock, config, primary
        sources = sources or HostSources()
        if config.wsl_only:  # a Windows-native server keeps its process table for the CPU count only
            sources = HostSources(windows=sources.windows, docker=sources.docker)
        self._sources = sources
        self._docker = sources.docker if config.docker else None
        self._wslc = sources.wslc if config.wslc and not config.wsl_only else None
        self._docker_prev: DockerSample | None = None
        self.warmer = (
            EngineWarmer(clock, self._docker, config.engine_deadline_s, config.warm_limit_s, wslc=self._wslc)
            if (self._docker is not None or self._wslc is not None) and config.keep_engines_warm
            else None
        )
        self._host = None if config.wsl_only else host
        self._lister = None if config.wsl_only else lister
        self._remote = remote
        self._primary_name = primary_name
        self._warm: RawSample | None = None

    @property
    def cpu_scope(self) -> CpuScope:
        windows = self._host is not None or self._sources.windows is not None
        return "windows_host" if windows else "wsl_visible"

    async def collect(self) -> Observation:
        try:
            warm = self._usable_warm()
            # the opening raw sample first: nothing may move the clock while it is read
            before = warm if warm is not None else await self._sample()
            end = before.taken_at + self.config.interval_s
            try:  # a failure cancels the rest: nothing is left running (or sleeping) behind it
                async with asyncio.TaskGroup() as tg:
                    baseline = tg.create_task(self._docker_sample()) if warm is None else None
                    tg.create_task(self._clock.sleep(end - self._clock.monotonic()))
                    closing_docker = tg.create_task(self._docker_latest(end))
                    closing_wslc = tg.create_task(self._wslc_latest(end))
            except BaseExceptionGroup as group:
                raise group.exceptions[0] from None
            docker_before = baseline.result() if baseline is not None else self._docker_prev
            docker_after, wslc = closing_docker.result(), closing_wslc.result()
            after = await self._sample()
            host = await self._host.read() if self._host is not None else None
        except CollectionFailed:
            self._warm = self._docker_prev = None
            raise
        except Exception as exc:
            self._warm = self._docker_prev = None
            raise CollectionFailed(f"collection failed: {type(exc).__name__}: {exc}") from exc
        self._warm = after
        self._docker_prev = (
            docker_after if docker_after is not None and docker_after.containers is not None else None
        )
        return self._observe(before, after, host, (docker_before, docker_after, wslc))

    async def _docker_latest(self, end: float) -> DockerSample | None:
        """This collection's closing Docker sample, due at ``end``: the warmer's newest round when
        it is fresh then (a forced refresh does not wait for the daemon's tick), else one asked for
        ``ENGINE_LEAD_S`` before ``end`` (an answer takes the daemon one or two ticks), so the
        collection ends close to its interval and the reading lies inside the kernel's window."""
        if self._docker is None:
            return None
        warmer = self.warmer
        got = None
        if warmer is not None and warmer.fresh(WARM_AGE_S + ENGINE_LEAD_S) is not None:
            await self._clock.sleep(end - self._clock.monotonic())
            got = warmer.fresh(WARM_AGE_S)
        if got is None:
            await self._clock.sleep(end - ENGINE_LEAD_S - self._clock.monotonic())
            got = await self._docker_sample()
        if warmer is not None:
            warmer.touch()
        return got

    async def _wslc_latest(self, end: float) -> WslcSample | None:
        """The closing WSLC sample, on the same schedule as Docker's."""
        if self._wslc is None:
            return None
        warmer = self.warmer
        got = None
        if warmer is not None and warmer.fresh_wslc(WARM_AGE_S + ENGINE_LEAD_S) is not None:
            await self._clock.sleep(end - self._clock.monotonic())
            got = warmer.fresh_wslc(WARM_AGE_S)
        if got is None:
            await self._clock.sleep(end - ENGINE_LEAD_S - self._clock.monotonic())
            got = await self._wslc_sample()
        return got

    async def _docker_sample(self) -> DockerSample | None:
        if self._docker is None:
            return None
        return await docker_source.sample(
            self._docker, self._clock.monotonic(), self.config.engine_deadline_s
        )

    async def _wslc_sample(self) -> WslcSample | None:
        if self._wslc is None:
            return None
        try:
            async with asyncio.timeout(wslc_source.TIMEOUT_S + 1.0):
                return await wslc_source.sample(self._wslc)
        except TimeoutError:
            return WslcSample(None, f"wslc.exe did not answer within {wslc_source.TIMEOUT_S:g} s")

    def _usable_warm(self) -> RawSample | None:
        warm = self._warm
        if warm is None:
            return None
        if self._clock.monotonic() - warm.taken_at > self.config.warm_limit_s:
            self._warm = None
            return None
        return warm

    async def _sample(self) -> RawSample:
        """One raw sample: the primary, the additional distros and the Windows side read at once."""
        taken_at = self._clock.monotonic()

        async def primary() -> ParsedProc:
            try:
                return parse_sample(await self._primary.read())
            except Exception as exc:
                raise CollectionFailed(f"primary WSL /proc unavailable: {type(exc).__name__}: {exc}") from exc

        parsed, (extras, warnings), host = await asyncio.gather(
            primary(), self._sample_additional(), self._sample_host(taken_at)
        )
        return RawSample(
            taken_at=taken_at, primary=parsed, extras=extras, warnings=tuple(warnings), host=host
        )

    async def _sample_host(self, taken_at: float) -> HostRaw | None:
        src = self._sources
        if src.windows is None and src.pdh is None:
            return None

        async def read(call: Callable[[], Any] | None) -> tuple[Any, str | None]:
            if call is None:
                return None, "not available on this host"
            try:
                return await asyncio.to_thread(call), None
            except Exception as exc:  # a boundary failure degrades the Windows side, never the collection
                return None, f"{type(exc).__name__}: {exc}"

        (table, table_error), (counters, counters_error) = await asyncio.gather(
            read(src.windows.read if src.windows is not None else None),
            read(src.pdh.collect if src.pdh is not None else None),
        )
        return HostRaw(taken_at, table, counters, table_error, counters_error)

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

    def _observe(
        self,
        before: RawSample,
        after: RawSample,
        host: HostFacts | None,
        engines: tuple[DockerSample | None, DockerSample | None, WslcSample | None],
    ) -> Observation:
        cfg = self.config
        docker_before, docker_after, wslc = engines
        warnings: list[str] = []
        side = (
            host_side(before.host, after.host) if before.host is not None and after.host is not None else None
        )
        if cfg.wsl_only and side is not None:
            warnings.append(WINDOWS_WSL_ONLY_WARNING)
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
        elif cfg.wsl_only:
            warnings.append(WSL_ONLY_WARNING)
        elif side is None and host is None:
            warnings.append(self._sources.windows_missing or NO_HOST_WARNING)
        if side is not None and side.logical_cpus > 0:
            host_cpus = side.logical_cpus
        elif host is not None:
            host_cpus = host.logical_cpus
        else:
            host_cpus = after.primary.cpu_count
        rows = process_rows(before, after, host_cpus)
        wsl, wsl_warnings = wsl_environment(before, after, rows, host_cpus)
        if side is not None and side.wsl_host is not None:
            rows = [replace(r, parents=(side.wsl_host,)) for r in rows]
        warnings += list(dict.fromkeys([*before.warnings, *after.warnings]))
        warnings += wsl_warnings
        if side is not None:
            warnings += side.warnings
        kernel = [
            p
            for p in (kernel_point(s.primary.kernel, s.primary.clk_tck) for s in (before, after))
            if p is not None
        ]
        view = container_view(
            docker_before,
            docker_after,
            wslc,
            host_cpus=host_cpus,
            kernel=kernel,
            kernel_cpus=after.primary.cpu_count,
            wsl_cpu=wsl.cpu_percent,
            wslc_host=side.wslc_host if side is not None else None,
            wslc_hosts=side.wslc_hosts if side is not None else 0,
        )
        warnings += view.warnings
        if side is not None and side.cpu_count_changed and (view.docker or view.wslc):
            view.docker = view.wslc = None
            warnings.append(
                "Container results were discarded because the host's logical CPU count changed during "
                "the collection (their percentages would use the wrong scale)"
            )
        missing = [
            n
            for n, on, src in (
                ("Docker", cfg.docker, self._docker),
                ("WSLC", cfg.wslc and not cfg.wsl_only, self._wslc),
            )
            if on and src is None
        ]
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
        )
        window = after.taken_at - before.taken_at
        windows_rows: tuple[Observed, ...] = side.rows if side is not None else ()
        return Observation(
            projections=(tuple(rows), windows_rows, tuple(view.rows)),
            summary=summary,
            warnings=tuple(warnings),
            sample_window_ms=int(round(window * 1000, 3)) if window >= 0 else None,
            completed_monotonic=self._clock.monotonic(),
            completed_wall=self._clock.wall(),
        )
