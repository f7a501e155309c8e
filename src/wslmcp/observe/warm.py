"""Keeping the container engines' samples warm while clients are active.

A ``stream=false`` stats answer waits for the daemon's next collector tick (about 1 s), and
``wslc container stats`` measures over its own window, so a forced refresh that asked them would
cost at least that. While clients are active (a collection within ``idle_after_s``),
``EngineWarmer`` keeps asking in the background, one round at a time, at most once per
``period_s``; a collection takes the newest finished round when it is at most ``max_age_s`` old
instead of waiting. It stops by itself once clients go quiet, and costs the daemon one stats and
one top request per container (and wslc one list and one stats) per second while it runs.

It needs real time: on a virtual clock (a replay) a background loop would move time itself, so
assembly only builds one on the system clock.
"""

from __future__ import annotations

import asyncio
import contextlib

from wslmcp.boundaries.clock import Clock
from wslmcp.boundaries.docker_api import DockerApi
from wslmcp.boundaries.wslc import Wslc
from wslmcp.observe import wslc as wslc_source
from wslmcp.observe.docker import DockerSample, sample
from wslmcp.observe.wslc import WslcSample


class EngineWarmer:
    def __init__(
        self,
        clock: Clock,
        api: DockerApi | None,
        deadline_s: float,
        idle_after_s: float,
        *,
        period_s: float = 1.0,
        wslc: Wslc | None = None,
    ) -> None:
        self._clock, self._api, self._wslc = clock, api, wslc
        self._deadline_s, self._idle_after_s, self._period_s = deadline_s, idle_after_s, period_s
        self._latest: DockerSample | None = None
        self._latest_done = 0.0
        self._wslc_latest: WslcSample | None = None
        self._wslc_done = 0.0
        self._last_use = 0.0
        self._task: asyncio.Task[None] | None = None
        self.rounds = 0

    def fresh(self, max_age_s: float) -> DockerSample | None:
        """The newest finished Docker round if it is at most ``max_age_s`` old (and succeeded)."""
        latest = self._latest
        if latest is None or latest.containers is None:
            return None
        if self._clock.monotonic() - self._latest_done > max_age_s:
            return None
        return latest

    def fresh_wslc(self, max_age_s: float) -> WslcSample | None:
        """The newest finished WSLC round if it is at most ``max_age_s`` old (and succeeded)."""
        latest = self._wslc_latest
        if latest is None or latest.containers is None:
            return None
        if self._clock.monotonic() - self._wslc_done > max_age_s:
            return None
        return latest

    def touch(self) -> None:
        """A client collected: keep (or start) warming for another ``idle_after_s``."""
        self._last_use = self._clock.monotonic()
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        while self._clock.monotonic() - self._last_use < self._idle_after_s:
            started = self._clock.monotonic()
            await asyncio.gather(self._docker_round(started), self._wslc_round())
            self.rounds += 1
            await self._clock.sleep(self._period_s - (self._clock.monotonic() - started))

    async def _docker_round(self, started: float) -> None:
        if self._api is not None:
            got = await sample(self._api, started, self._deadline_s)
            self._latest, self._latest_done = got, self._clock.monotonic()

    async def _wslc_round(self) -> None:
        if self._wslc is not None:
            try:
                async with asyncio.timeout(wslc_source.TIMEOUT_S + 1.0):
                    got = await wslc_source.sample(self._wslc)
            except TimeoutError:
                return
            self._wslc_latest, self._wslc_done = got, self._clock.monotonic()

    async def aclose(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
