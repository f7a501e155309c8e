"""Pressure episodes the sampler records: a condition that holds for at least two samples in a
row becomes an event with its start, end (null while it lasts), peak and the three biggest
consumers during it (applications; by CPU seconds for CPU and disk episodes, by peak memory for
memory ones). The last ``history.MAX_EVENTS`` are kept.

Conditions: host CPU at least 90 % (WSL's own figure when there is no Windows side: the same scale),
Linux available memory under 10 % of its total, PSI memory full avg10 over 10, a disk over 90 % busy.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from wslmcp.observe.history import EXITED_CHILDREN, METRIC_INDEX, Event, Frame, History
from wslmcp.observe.history_queries import By, rank

MIN_SAMPLES = 2


def _metric(frame: Frame, name: str) -> float | None:
    return frame.value(METRIC_INDEX[name])


def _cpu(frame: Frame) -> float | None:
    host = _metric(frame, "host.cpu_percent")
    return host if host is not None else _metric(frame, "wsl.cpu_percent")


def _available_percent(frame: Frame) -> float | None:
    total, available = (
        _metric(frame, "memory.linux_total_bytes"),
        _metric(frame, "memory.linux_available_bytes"),
    )
    return 100.0 * available / total if total and available is not None else None


def _disk(frame: Frame) -> float | None:
    busy = [_metric(frame, f"io.{side}_disk_busy_percent") for side in ("linux", "windows")]
    known = [b for b in busy if b is not None]
    return max(known) if known else None


@dataclass(frozen=True)
class Condition:
    kind: str
    measure: Callable[[Frame], float | None]
    holds: Callable[[float], bool]
    worse: Callable[[float, float], float]  # the peak of two measures
    by: By  # how its top consumers are ranked


CONDITIONS = (
    Condition("cpu_busy", _cpu, lambda v: v >= 90.0, max, "cpu"),
    Condition("low_memory", _available_percent, lambda v: v < 10.0, min, "memory"),
    Condition(
        "memory_stall", lambda f: _metric(f, "memory.psi_full_avg10"), lambda v: v > 10.0, max, "memory"
    ),
    Condition("disk_busy", _disk, lambda v: v > 90.0, max, "cpu"),
)


@dataclass
class _Streak:
    start_ms: int
    count: int
    peak: float
    event: Event | None = None


class EventTracker:
    """Follows each condition frame by frame and writes episodes into ``history.events``."""

    def __init__(self, history: History) -> None:
        self._history = history
        self._streaks: dict[str, _Streak] = {}

    def update(self, frame: Frame) -> None:
        for c in CONDITIONS:
            value = c.measure(frame)
            streak = self._streaks.get(c.kind)
            if value is None or not c.holds(value):
                if streak is not None:
                    self._close(c, streak, frame)
                continue
            if streak is None:
                streak = self._streaks[c.kind] = _Streak(
                    frame.wall_ms - round(frame.seconds * 1000), 0, value
                )
            streak.count += 1
            streak.peak = c.worse(streak.peak, value)
            streak.event = streak.event or self._open(c, streak)
            if streak.event is not None:
                streak.event.peak = streak.peak

    def _open(self, c: Condition, streak: _Streak) -> Event | None:
        if streak.count < MIN_SAMPLES:
            return None
        event = Event(c.kind, streak.start_ms, None, streak.peak)
        self._history.events.append(event)
        return event

    def _close(self, c: Condition, streak: _Streak, now: Frame) -> None:
        """The condition no longer holds at ``now``: the episode ended at the sample before it."""
        del self._streaks[c.kind]
        event = streak.event
        if event is None:
            return
        held = [f for f in self._history.frames if event.start_ms < f.wall_ms < now.wall_ms]
        event.end_ms = held[-1].wall_ms if held else event.start_ms
        event.top = top_three(self._history, event, c.by)

    def current_top(self) -> None:
        """Give the events still open their top consumers so far (asked before an answer)."""
        for kind, streak in self._streaks.items():
            c = next(c for c in CONDITIONS if c.kind == kind)
            if streak.event is not None:
                streak.event.top = top_three(self._history, streak.event, c.by)


def top_three(history: History, event: Event, by: By) -> tuple[str, ...]:
    end = event.end_ms
    frames = [f for f in history.frames if event.start_ms < f.wall_ms and (end is None or f.wall_ms <= end)]
    return tuple(
        f"{r.key.name} (exited children)" if r.key.kind == EXITED_CHILDREN else r.key.name
        for r in rank(history, frames, "application", by, limit=3)
    )
