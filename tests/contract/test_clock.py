"""Clock contract: the system clock and the fake clock pass the same suite."""

from __future__ import annotations

import asyncio

import pytest

from wslmcp.boundaries.clock import Clock, SystemClock
from wslmcp.fakes.clock import FakeClock


@pytest.fixture(params=["real", "fake"])
def clock(request: pytest.FixtureRequest) -> Clock:
    return SystemClock() if request.param == "real" else FakeClock(5.0, 1_800_000_000.0)


def test_monotonic_never_goes_back(clock: Clock) -> None:
    readings = [clock.monotonic() for _ in range(100)]
    assert readings == sorted(readings)


def test_wall_is_epoch_seconds(clock: Clock) -> None:
    assert 1_600_000_000 < clock.wall() < 4_000_000_000


async def test_sleep_lasts_at_least_its_duration(clock: Clock) -> None:
    before = clock.monotonic()
    await clock.sleep(0.02)
    assert clock.monotonic() - before >= 0.02 - 1e-9  # float subtraction, not time


async def test_sleep_of_zero_or_less_returns(clock: Clock) -> None:
    before = clock.monotonic()
    await clock.sleep(0)
    await clock.sleep(-1)
    assert clock.monotonic() >= before


async def test_fake_concurrent_sleepers_wake_together_not_in_sequence() -> None:
    fake = FakeClock()
    await asyncio.gather(*(fake.sleep(0.05) for _ in range(4)))
    assert fake.monotonic() == pytest.approx(0.05)


async def test_fake_wall_advances_with_monotonic() -> None:
    fake = FakeClock(10.0, 1_800_000_000.0)
    await fake.sleep(2.5)
    fake.advance(0.5)
    assert fake.monotonic() == pytest.approx(13.0)
    assert fake.wall() == pytest.approx(1_800_000_003.0)


def test_fake_clock_refuses_to_go_backwards() -> None:
    fake = FakeClock()
    with pytest.raises(ValueError, match="never goes backwards"):
        fake.advance(-1)
