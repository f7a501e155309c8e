"""A clock that only moves when told to, or when something sleeps on it."""

from __future__ import annotations

import asyncio


class FakeClock:
    """Virtual time. ``sleep(s)`` returns at once with the clock at least ``s`` later than when the
    sleep began, so concurrent sleepers that start together wake at the same virtual time."""

    def __init__(self, start_monotonic: float = 0.0, start_wall: float = 1_767_225_600.0) -> None:
        self._now = float(start_monotonic)
        self._wall_offset = start_wall - start_monotonic

    def monotonic(self) -> float:
        return self._now

    def wall(self) -> float:
        return self._now + self._wall_offset

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError(f"a clock never goes backwards (asked to advance {seconds} s)")
        self._now += seconds

    async def sleep(self, seconds: float) -> None:
        target = self._now + max(0.0, seconds)
        await asyncio.sleep(0)
        self._now = max(self._now, target)


class PacedClock(FakeClock):
    """Virtual time whose sleeps also take real time: what a recording of live calls runs on (a
    background process is read while it really runs). A sleep moves the clock on by what it asked
    for even when it is cut short, so the recording sees the times its replay on a ``FakeClock``
    will see (there every sleep runs to its end at once)."""

    async def sleep(self, seconds: float) -> None:
        target = self._now + max(0.0, seconds)
        try:
            await asyncio.sleep(max(0.0, seconds))
        finally:
            self._now = max(self._now, target)
