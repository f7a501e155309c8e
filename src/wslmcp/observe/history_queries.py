"""Answers over the history rings (pure): ``get_history`` and ``get_metric_series``.

A window is the last ``window_s`` seconds before now. A frame belongs to it when its sample falls
inside; its rates are over the interval that ends at the sample. Consumers are ranked over the
window's frames by CPU seconds (with the average cores and host-wide percent over the window) or
by peak resident memory; a consumer appears in a frame only when it was among that frame's biggest
(``history.TOP_CPU``/``TOP_MEMORY``), which bounds memory whatever runs.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from wslmcp.observe.history import LEVELS, METRIC_INDEX, Event, Frame, History, Key
from wslmcp.observe.model import ENVIRONMENTS
from wslmcp.observe.rates import at_most

By = Literal["cpu", "memory"]
Agg = Literal["avg", "max"]
UNITS = (
    ("_bytes_per_s", "bytes/s"),
    ("_per_s", "1/s"),
    ("_bytes", "bytes"),
    ("_percent", "percent"),
    ("_avg10", "percent"),
    ("_ns", "ns"),
    ("procs_blocked", "processes"),
)


def unit_of(metric: str) -> str:
    return next(unit for suffix, unit in UNITS if metric.endswith(suffix))


@dataclass(frozen=True)
class HistoryQuery:
    window_s: int = 300
    top: int = 10
    by: By = "cpu"
    environment: str | None = None
    resource_kind: str = "application"


@dataclass(frozen=True)
class SeriesQuery:
    metric: str
    window_s: int = 300
    points: int = 30
    agg: Agg = "avg"


@dataclass(frozen=True)
class Now:
    """Where the history stands when a question is asked."""

    at: float  # monotonic
    wall_ms: int
    alive: Mapping[Key, int]  # consumers alive at the latest sample (with when first seen)
    why_empty: str | None = None  # why there is no history at all (off, a replay without one)


@dataclass
class Ranked:
    key: Key
    cpu_s: float = 0.0
    peak_memory: int = 0
    members: int = 0


def rank(
    history: History,
    frames: Sequence[Frame],
    level: str,
    by: By,
    *,
    environment: str | None = None,
    limit: int | None = None,
) -> list[Ranked]:
    """The ``limit`` biggest consumers of ``level`` in ``frames``, by CPU seconds (those that used
    any) or by peak memory. The packed records are read in place: a full hour holds tens of
    thousands, and only the ones returned become objects."""
    index = LEVELS.index(level)
    cpu: dict[int, float] = {}
    peak: dict[int, float] = {}
    members: dict[int, float] = {}
    cpu_get, peak_get, members_get = cpu.get, peak.get, members.get
    for frame in frames:
        data = frame.packed[index]
        for i in range(0, len(data), 4):
            key = int(data[i])
            cpu[key] = cpu_get(key, 0.0) + data[i + 1]
            if data[i + 2] > peak_get(key, -1.0):
                peak[key] = data[i + 2]
            if data[i + 3] > members_get(key, 0.0):
                members[key] = data[i + 3]
    keys: Iterable[int] = cpu
    if environment is not None:
        keys = [k for k in keys if history.key(k).environment == environment]
    if by == "cpu":
        keys = [k for k in keys if cpu[k] > 0]

    def order(k: int) -> tuple[float, float]:
        return (cpu[k], peak[k]) if by == "cpu" else (peak[k], cpu[k])

    chosen = (
        sorted(keys, key=order, reverse=True) if limit is None else heapq.nlargest(limit, keys, key=order)
    )
    return [Ranked(history.key(k), cpu[k], int(peak[k]), int(members.get(k, 1))) for k in chosen]


def history_answer(
    history: History,
    query: HistoryQuery,
    now: Now,
    resource_ids: Callable[[Sequence[Key]], Mapping[Key, str]],
) -> dict[str, Any]:
    """The ``get_history`` answer: the window, usage per environment, the top consumers, the
    unattributed CPU and the events that touch the window."""
    window_ms = query.window_s * 1000
    from_ms = now.wall_ms - window_ms
    frames = history.window(now.at - query.window_s)
    seconds = sum(f.seconds for f in frames)
    host_cpus = frames[-1].host_cpus if frames else 0
    top = rank(history, frames, query.resource_kind, query.by, environment=query.environment, limit=query.top)
    ids = resource_ids([r.key for r in top if r.key in now.alive])
    return {
        "history": _meta(history, frames, now, from_ms, window_ms),
        "usage": _usage(frames),
        "top": [
            _entry(
                history, r, now, by=query.by, seconds=seconds, host_cpus=host_cpus, resource_id=ids.get(r.key)
            )
            for r in top
        ],
        "unattributed": _unattributed(frames),
        "events": [_event(e) for e in history.events if (e.end_ms or now.wall_ms) >= from_ms],
    }


def _meta(
    history: History, frames: Sequence[Frame], now: Now, from_ms: int, window_ms: int
) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "from_unix_ms": from_ms,
        "to_unix_ms": now.wall_ms,
        "interval_ms": round(history.interval_s * 1000),
        "samples": len(frames),
        "uptime_s": round(now.at - history.started_at, 1),
        "before_server_start": from_ms < history.started_ms,
        "gaps": [
            {"from_unix_ms": g.from_ms, "to_unix_ms": g.to_ms, "why": g.why}
            for g in history.gaps
            if g.to_ms > from_ms
        ],
    }
    if not frames:
        meta["why_empty"] = _why_empty(history, now, window_ms)
    return meta


def _why_empty(history: History, now: Now, window_ms: int) -> str:
    """Why no sample fell in the window: history off, a replay without one, none yet, or none there."""
    return now.why_empty or (
        f"no sample yet: the server started {round(now.at - history.started_at, 1)} s ago and the first "
        f"sample covers its first {history.interval_s:g} s"
        if now.wall_ms - window_ms < history.started_ms
        else "no sample fell in the window"
    )


def _stats(values: Sequence[float], *, p95: bool) -> dict[str, float] | None:
    if not values:
        return None
    ordered = sorted(values)
    out = {"avg": _r(sum(values) / len(values), 1)}
    if p95:
        out["p95"] = _r(ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)], 1)
    out["max"] = _r(ordered[-1], 1)
    return out


def _usage(frames: Sequence[Frame]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for env in ("host", *ENVIRONMENTS):
        cpu = _values(frames, f"{env}.cpu_percent")
        memory = _values(frames, f"{env}.memory_bytes")
        if not cpu and not memory:
            out[env] = None
            continue
        mem = _stats(memory, p95=False)
        out[env] = {
            "cpu_percent": _stats(cpu, p95=True),
            "memory_bytes": {k: int(v) for k, v in mem.items()} if mem is not None else None,
        }
    return out


def _values(frames: Sequence[Frame], metric: str) -> list[float]:
    i = METRIC_INDEX[metric]
    return [v for v in (f.value(i) for f in frames) if v is not None]


def _entry(
    history: History,
    r: Ranked,
    now: Now,
    *,
    by: By,
    seconds: float,
    host_cpus: int,
    resource_id: str | None,
) -> dict[str, Any]:
    """One ranked consumer: who, the figure it was ranked by, when seen, alive, its resource ID."""
    key = r.key
    number = history.index.get(key)
    first = history.first_ms[number] if number is not None else now.wall_ms
    last = history.last_ms[number] if number is not None else now.wall_ms
    alive = key in now.alive
    entry: dict[str, Any] = {"name": key.name, "environment": key.environment, "kind": key.kind}
    if key.source is not None:
        entry["source"] = key.source
    if r.members > 1:
        entry["processes"] = r.members
    if key.level == "process" and key.native.isdigit():
        entry["pid"] = int(key.native)
    if by == "cpu":
        cores = at_most(r.cpu_s / seconds if seconds > 0 else 0.0, host_cpus) or 0.0
        entry["cpu_seconds"] = _r(r.cpu_s, 1)
        entry["avg_cores"] = _r(cores)
        entry["avg_host_percent"] = _r(cores * 100 / host_cpus if host_cpus > 0 else 0.0, 1)
    else:
        entry["peak_memory_bytes"] = r.peak_memory
    entry["first_seen_s_ago"] = round(max(0, now.wall_ms - now.alive.get(key, first)) / 1000)
    entry["last_seen_s_ago"] = 0 if alive else round(max(0, now.wall_ms - last) / 1000)
    entry["alive"] = alive
    if resource_id is not None:
        entry["resource_id"] = resource_id
    return entry


def _unattributed(frames: Sequence[Frame]) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    for i, env in enumerate(("wsl", "windows")):
        known = [f.residual_s[i] for f in frames if not math.isnan(f.residual_s[i])]
        out[f"{env}_cpu_seconds"] = _r(sum(known)) if known else None
    return out


def _event(e: Event) -> dict[str, Any]:
    return {
        "kind": e.kind,
        "from_unix_ms": e.start_ms,
        "to_unix_ms": e.end_ms,
        "peak": _r(e.peak, 1),
        "top": list(e.top),
    }


def series_answer(history: History, query: SeriesQuery, now: Now) -> dict[str, Any]:
    """``{metric, unit, t0_unix_ms, step_ms, values}``: at most ``points`` buckets over the window,
    each the average (or max) of the samples that fell in it, null where none did; with no sample in
    the window, ``why_empty`` says why, as ``get_history`` does."""
    window_ms = query.window_s * 1000
    step = math.ceil(window_ms / query.points)
    t0 = now.wall_ms - step * query.points
    buckets: list[list[float]] = [[] for _ in range(query.points)]
    i = METRIC_INDEX[query.metric]
    for frame in history.frames:
        slot = (frame.wall_ms - t0) // step
        value = frame.value(i)
        if 0 <= slot < query.points and value is not None:
            buckets[slot].append(value)
        elif slot == query.points and value is not None:  # a sample at exactly now
            buckets[-1].append(value)
    fold: Callable[[list[float]], float] = max if query.agg == "max" else (lambda b: sum(b) / len(b))
    answer: dict[str, Any] = {
        "metric": query.metric,
        "unit": unit_of(query.metric),
        "t0_unix_ms": t0,
        "step_ms": step,
        "values": [_r(fold(b)) if b else None for b in buckets],
    }
    if not history.window(now.at - query.window_s):
        answer["why_empty"] = _why_empty(history, now, window_ms)
    return answer


def _r(value: float, digits: int = 2) -> float:
    rounded = round(value, digits)
    return 0.0 if rounded == 0 else rounded
