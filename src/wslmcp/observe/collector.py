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
from dataclasses import dataclass
from typing import Any

from wslmcp.boundaries.clock import Clock
from wslmcp.boundaries.host_facts import HostProbe
from wslmcp.observe import docker as docker_source
from wslmcp.observe import wslc as wslc_source
from wslmcp.observe.accounting import ParsedProc, RawSample, parse_sample
from wslmcp.observe.docker import DockerSample
from wslmcp.observe.errors import CollectionFailed
from wslmcp.observe.host import HostRaw
from wslmcp.observe.model import CpuScope, Observation
from wslmcp.observe.observation import Completed, Engines, Setting, observe
from wslmcp.observe.sources import DistroLister, HostSources, SampleReader
from wslmcp.observe.warm import EngineWarmer
from wslmcp.observe.wslc import WslcSample

WARM_AGE_S = 1.5  # a warmed engine round older than this is asked for again
ENGINE_LEAD_S = 2.0  # a closing engine sample is asked for this long before the interval ends
ENGINE_TICK_S = 1.0  # dockerd samples container stats once a second; stream=false waits up to two ticks


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
        self.setting = Setting(
            wsl_only=config.wsl_only,
            docker=config.docker,
            wslc=config.wslc,
            docker_source=self._docker is not None,
            wslc_source=self._wslc is not None,
            windows_missing=sources.windows_missing,
        )

    @property
    def cpu_scope(self) -> CpuScope:
        windows = self._host is not None or self._sources.windows is not None
        return "windows_host" if windows else "wsl_visible"

    async def collect(self) -> Observation:
        try:
            warm = self._usable_warm()
            # the opening raw sample first: nothing may move the clock while it is read
            before = warm if warm is not None else await self.sample()
            end = before.taken_at + self.config.interval_s
            try:  # a failure cancels the rest: nothing is left running (or sleeping) behind it
                async with asyncio.TaskGroup() as tg:
                    baseline = tg.create_task(self.docker_sample()) if warm is None else None
                    tg.create_task(self._clock.sleep(end - self._clock.monotonic()))
                    closing_docker = tg.create_task(self._docker_latest(end))
                    closing_wslc = tg.create_task(self._wslc_latest(end))
            except BaseExceptionGroup as group:
                raise group.exceptions[0] from None
            docker_before = baseline.result() if baseline is not None else self._docker_prev
            docker_after, wslc = closing_docker.result(), closing_wslc.result()
            after = await self.sample()
            observation = await self.observe(before, after, Engines(docker_before, docker_after, wslc))
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
        return observation

    async def observe(self, before: RawSample, after: RawSample, engines: Engines) -> Observation:
        """The observation of two raw samples (the stated host facts read now), completed now."""
        host = await self._host.read() if self._host is not None else None
        return observe(
            before,
            after,
            setting=self.setting,
            host=host,
            engines=engines,
            completed=Completed(self._clock.monotonic(), self._clock.wall()),
        )

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
            got = await self.docker_sample()
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

    async def docker_sample(self) -> DockerSample | None:
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

    async def sample(self, previous: ParsedProc | None = None) -> RawSample:
        """One raw sample: the primary, the additional distros and the Windows side read at once
        (``previous``: the primary's last sample; its processes are read light and parsed only
        when their stat changed, see ``accounting.parse_sample``)."""
        taken_at = self._clock.monotonic()
        light = frozenset(previous.processes) if previous is not None else frozenset()

        async def primary() -> ParsedProc:
            try:
                return parse_sample(await self._primary.read(light), previous)
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
        wall = self._clock.wall()

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
        return HostRaw(taken_at, table, counters, table_error, counters_error, taken_wall=wall)

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
