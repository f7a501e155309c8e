"""The history sampler: from the moment the server starts, one sample every ``interval_s``, off
the request path, into the bounded rings of ``history``.

Each sample reuses the collector: one raw sample, light for the processes of the previous one (a
known process costs one ``stat`` read, parsed only when it changed: its command line and working
directory are carried over), paired with the previous raw sample by the same ``observe`` a snapshot uses, then
folded into a frame (``history.frame_parts``, computed in a worker thread) and the events. A sample
that fails leaves a gap that says why; the next one starts afresh.

Time is the Clock wiring hands down. In real time (``Host.real_time``) the sampler is a background
task and a tool call never waits for it. On a replay's virtual clock nothing runs in the
background (it would move time itself, as ``warm.py`` explains): the scenario states when its first
request arrives (``first_request_s``), and the first request first walks the clock through the
samples due before it; later requests take the sample that is due, if any. A replay whose scenario
states no first request keeps no history (its recordings would be read in an order they were not
recorded in): a history call on it is a replay miss (``recorded``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Mapping

from wslmcp.boundaries.clock import Clock
from wslmcp.boundaries.replay_miss import NotRecorded
from wslmcp.observe.accounting import RawSample
from wslmcp.observe.collector import Collector
from wslmcp.observe.docker import DockerSample
from wslmcp.observe.events import EventTracker
from wslmcp.observe.history import FrameParts, History, Key, frame_parts
from wslmcp.observe.model import Observation
from wslmcp.observe.observation import Engines

log = logging.getLogger(__name__)


class HistorySampler:
    def __init__(
        self,
        clock: Clock,
        collector: Collector,
        history: History,
        *,
        real_time: bool,
        first_request_s: float | None = None,
        engines: bool = True,
    ) -> None:
        self._clock, self._collector, self.history = clock, collector, history
        self._real_time = real_time
        self._first_request_s = first_request_s
        self._walked = False  # virtual time: the samples before the first request were taken
        self._engines = engines and real_time  # a replay's engine answers are recorded in order
        self.events = EventTracker(history)
        self._prev: RawSample | None = None
        self._docker: DockerSample | None = None
        self._next_at = history.started_at
        self.alive: Mapping[Key, int] = {}
        self.latest: Observation | None = None  # the last sample's observation (resource IDs)
        self.samples = 0

    @property
    def enabled(self) -> bool:
        return self.history.capacity > 0 and (self._real_time or self._first_request_s is not None)

    def recorded(self) -> None:
        """Raise ``NotRecorded`` when this is a replay whose scenario holds no history (its history
        calls cannot be answered as the recorded host would have)."""
        if self.history.capacity > 0 and not self.enabled and self.samples == 0:
            raise NotRecorded(
                "history: the scenario states no observe.first_request_ms, so no history before the "
                "first request was recorded"
            )

    @property
    def why_disabled(self) -> str | None:
        return "history is off (--history-minutes 0)" if self.history.capacity <= 0 else None

    async def run(self) -> None:
        """Real time: sample on the interval until cancelled (the first sample at once)."""
        while True:
            await self.tick()
            self._next_at += self.history.interval_s
            late = self._clock.monotonic() - self._next_at
            if late > 0:  # a sample took longer than the interval: skip the ones missed
                self._next_at += (late // self.history.interval_s + 1) * self.history.interval_s
            await self._clock.sleep(self._next_at - self._clock.monotonic())

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """The background sampler for the server's life (real time only; nothing on a virtual clock)."""
        if not (self._real_time and self.enabled):
            yield
            return
        task = asyncio.get_running_loop().create_task(self.run())
        try:
            yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def catch_up(self) -> None:
        """Virtual time, before a request: the samples due by now (the first request first walks
        the clock through those due before it)."""
        if self._real_time or not self.enabled or self._first_request_s is None:
            return
        if not self._walked:
            self._walked = True
            until = self.history.started_at + self._first_request_s
            while self._next_at <= until:
                await self._clock.sleep(self._next_at - self._clock.monotonic())
                await self.tick()
                self._next_at += self.history.interval_s
            await self._clock.sleep(until - self._clock.monotonic())
        elif self._clock.monotonic() >= self._next_at:
            await self.tick()
            self._next_at = self._clock.monotonic() + self.history.interval_s

    async def tick(self) -> None:
        """One sample; a failure becomes a gap with its reason."""
        if self.history.capacity <= 0:
            return
        prev = self._prev
        try:
            raw, docker = await self._read(prev)
            if prev is not None:
                observation = await self._collector.observe(prev, raw, Engines(self._docker, docker))
                parts = await self._fold(observation, raw.taken_at, raw.taken_at - prev.taken_at)
                frame = self.history.add(parts)
                self.alive, self.latest = parts.first_seen, observation
                self.events.update(frame)
            self._prev, self._docker = raw, docker
            self.samples += 1
        except Exception as exc:  # a failed sample never stops the sampler
            log.warning("history sample failed: %s", exc)
            now_ms = int(self._clock.wall() * 1000)
            self.history.gap(now_ms - round(self.history.interval_s * 1000), now_ms, f"sample failed: {exc}")
            self._prev = self._docker = None

    async def _read(self, prev: RawSample | None) -> tuple[RawSample, DockerSample | None]:
        previous = prev.primary if prev is not None else None
        if self._engines:
            raw, docker = await asyncio.gather(
                self._collector.sample(previous), self._collector.docker_sample()
            )
            return raw, docker
        return await self._collector.sample(previous), None

    async def _fold(self, observation: Observation, at: float, seconds: float) -> FrameParts:
        if self._real_time:  # the arithmetic of a frame off the event loop
            return await asyncio.to_thread(frame_parts, observation, at, seconds, self.alive)
        return frame_parts(observation, at, seconds, self.alive)
