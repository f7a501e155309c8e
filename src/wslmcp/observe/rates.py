"""A rate from two samples by identity: the one rule behind every CPU figure (WSL and Windows
processes, Docker containers, the history's checkpoints).

A cumulative counter (CPU seconds, cgroup nanoseconds) is read in two samples, each reading
stamped on the axis the rate is per (seconds of a clock, or nanoseconds of one CPU). The rate is
Δcounter / Δaxis, and only for the *same* identity in both samples (a PID with its start time, a
container ID): a reused PID is another identity. It is None when the axis did not advance or the
counter went backwards (a restart): never a bogus or negative number.

An identity that appears only in the second sample has no first reading. When the moment it started
is known (a process's start time), its counter was zero then, so its rate is the part of the
window it lived: ``born(start, window_start, last_at)``.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


@dataclass(frozen=True, slots=True)
class Reading:
    counter: float  # cumulative, never decreasing for one identity (raw: ticks, seconds, ns)
    at: float  # where on the rate's axis the counter was read


def rate(first: Reading | None, last: Reading, unit: float = 1.0) -> float | None:
    """Δcounter / unit / Δat (``unit``: counter steps per unit of the rate, e.g. ticks per CPU
    second), or None when there is no first reading, the axis did not advance or the counter went
    backwards. The raw difference is taken first, so integer counters lose nothing."""
    if first is None:
        return None
    span = last.at - first.at
    delta = last.counter - first.counter
    if not span > 0 or delta < 0:
        return None
    return delta / unit / span


def at_most(cores: float | None, cpus: int) -> float | None:
    """A consumer's rate held to the CPUs there are. Each process is read at a moment of its sample
    that the sample does not stamp (a capture takes a while), so a process using every CPU can show
    a little more than the window held: a residual inherent to one stamp per sample, not a rate
    that could be right (``cpus`` <= 0: no bound known)."""
    return min(cores, float(cpus)) if cores is not None and cpus > 0 else cores


def born(started_at: float | None, window_start: float, last_at: float, resolution: float) -> Reading:
    """The first reading of an identity that started inside the window: counter 0 when it started
    (at the window's start when that is unknown, or earlier than the window), and at least
    ``resolution`` (the counter's tick) before the last reading, so a process born just before the
    closing read has a finite rate."""
    start = window_start if started_at is None else max(window_start, started_at)
    return Reading(0.0, min(start, last_at - resolution))


def spent(first: Reading | None, last: Reading, unit: float = 1.0) -> float | None:
    """How much the counter grew between the readings, in ``unit``s (the CPU seconds an identity
    used in the window: its rate times the part of the window it lived), or None when ``rate`` is."""
    if first is None or not last.at > first.at or last.counter < first.counter:
        return None
    return (last.counter - first.counter) / unit


def opening(key: K, earlier: Mapping[K, V], fallback: Callable[[], V | None]) -> V | None:
    """The reading a rate starts from, by identity: ``key``'s own in the earlier sample, else
    ``fallback()`` (its birth inside the window, or another first reading it carries)."""
    found = earlier.get(key)
    return found if found is not None else fallback()
