"""Time as a boundary.

Contract
--------
``monotonic()``  seconds on a clock that never goes backwards; the origin is arbitrary, so only
                 differences mean anything. Snapshot ages and retention are measured on it.
``wall()``       seconds since the Unix epoch (UTC), for timestamps shown to people.
``sleep(s)``     waits at least ``s`` seconds of this clock's time (``s <= 0`` yields once).

Nothing in the domain calls ``time`` or ``asyncio.sleep`` directly: it takes a Clock from wiring, so
the fake clock (``wslmcp.fakes.clock.FakeClock``) makes intervals and retention instant and deterministic.

``AdvancingClock.advance(s)``  a clock that can also be moved on by ``s >= 0`` seconds at once (a
                 negative ``s`` raises ``ValueError``). Only the replay layer holds one: it replays a
                 scenario's "time passes here" (session idle times, transcript windows).
"""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    def monotonic(self) -> float: ...

    def wall(self) -> float: ...

    async def sleep(self, seconds: float) -> None: ...


class AdvancingClock(Clock, Protocol):
    def advance(self, seconds: float) -> None: ...


class SystemClock:
    """The machine's clocks."""

    def monotonic(self) -> float:
        return time.monotonic()

    def wall(self) -> float:
        return time.time()

    async def sleep(self, seconds: float) -> None:
        import asyncio  # on demand: a blocking run (the profiler) never loads asyncio

        await asyncio.sleep(max(0.0, seconds))
