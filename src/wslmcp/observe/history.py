"""The history rings: what the sampler observed since the server started, in bounded memory.

Every sample becomes one ``Frame``: the host and environment scalars and every pressure figure
(``METRICS``, one float each, NaN for null), the residual CPU no process accounts for, and the
biggest consumers of the interval at three levels (processes, applications, containers). A
consumer is a ``Key``, a stable identity: a process is (environment, source, PID, start time), so a
reused PID is another process; an application is (environment, source, name), so short-lived
compiler processes add up under their name; a container is its ID. Children that began and ended
between two samples are a consumer of their own beside their parent (kind ``exited_children``, the
parent's name and PID; ``accounting``), so a build's compiler churn is never left unaccounted. Per
level a frame keeps the ``TOP_CPU`` consumers by CPU seconds in the interval and the ``TOP_MEMORY``
by resident memory (Netdata's cardinality limit): whatever runs, a frame has a bounded size, and a
consumer that never made a frame's top contributes to no top list (it still counts in the
environment totals and, for CPU, leaves nothing unaccounted: the residual is taken against every
process).

The ring holds ``capacity`` frames (``--history-minutes`` × 60 / interval); keys are kept while a
frame in the ring refers to them. ``events`` keeps the last ``MAX_EVENTS`` pressure episodes.
"""

from __future__ import annotations

import heapq
import math
from array import array
from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from wslmcp.observe.model import ENVIRONMENTS, Observation, Observed
from wslmcp.observe.pressure import PRESSURE_METRICS

TOP_CPU = 24  # per level and frame: the consumers with the most CPU seconds in the interval
TOP_MEMORY = 12  # per level and frame: the consumers with the most resident memory
MAX_EVENTS = 50

#: every metric the history keeps, in frame order (get_metric_series lists them)
METRICS: tuple[str, ...] = (
    "host.cpu_percent",
    "host.memory_bytes",
    *(f"{env}.{what}" for env in ENVIRONMENTS for what in ("cpu_percent", "memory_bytes")),
    *PRESSURE_METRICS,
)
METRIC_INDEX = {name: i for i, name in enumerate(METRICS)}
LEVELS = ("process", "application", "container")


@dataclass(frozen=True, slots=True)
class Key:
    """A consumer's stable identity at one level."""

    level: str  # process | application | container
    environment: str
    source: str | None
    name: str
    native: str  # PID, container ID, or the name again for an application
    start: int | None = None  # a process's start time (ticks or FILETIME)
    # the catalog's kind (process, infra, host, application, container), or exited_children
    kind: str = "process"


@dataclass(frozen=True, slots=True)
class Usage:
    """One consumer in one frame: CPU seconds in the interval, resident bytes at its end, members
    (an application's process count)."""

    key: int
    cpu_s: float
    memory: int
    members: int = 1


@dataclass(frozen=True, slots=True)
class Frame:
    at: float  # monotonic seconds at the sample
    wall_ms: int
    seconds: float  # the interval it covers
    host_cpus: int
    scalars: array[float]  # METRICS order; NaN = null
    packed: tuple[array[float], ...]  # per LEVELS: (key, cpu seconds, memory bytes, members) records
    # the WSL kernel's and Windows' CPU seconds no process accounts for (NaN: unknown)
    residual_s: tuple[float, float]

    def value(self, metric: int) -> float | None:
        v = self.scalars[metric]
        return None if math.isnan(v) else v

    def usage(self, level: int) -> Iterator[Usage]:
        data = self.packed[level]
        for i in range(0, len(data), 4):
            yield Usage(int(data[i]), data[i + 1], int(data[i + 2]), int(data[i + 3]))


def pack(usages: Iterable[Usage]) -> array[float]:
    """Records as one array of doubles (exact for the integers a history holds): 32 bytes each."""
    return array("d", (x for u in usages for x in (u.key, u.cpu_s, u.memory, u.members)))


@dataclass(frozen=True)
class Gap:
    from_ms: int
    to_ms: int
    why: str


@dataclass
class Event:
    """A pressure episode: a condition that held for at least two samples in a row."""

    kind: str  # cpu_busy | low_memory | memory_stall | disk_busy
    start_ms: int
    end_ms: int | None  # None while it lasts
    peak: float
    top: tuple[str, ...] = ()  # the three biggest consumers during it (set when it ends)


@dataclass
class History:
    """The bounded rings and the key table; ``add`` is the only writer."""

    capacity: int
    interval_s: float
    started_at: float  # monotonic, when the server started
    started_ms: int  # the same on the wall clock
    frames: deque[Frame] = field(init=False)
    keys: list[Key | None] = field(default_factory=list)  # by key number; None: free
    first_ms: array[int] = field(default_factory=lambda: array("q"))  # by key number: first seen
    last_ms: array[int] = field(default_factory=lambda: array("q"))  # last seen
    refs: array[int] = field(default_factory=lambda: array("q"))  # frames in the ring that name it
    index: dict[Key, int] = field(default_factory=dict)
    free: list[int] = field(default_factory=list)
    gaps: deque[Gap] = field(default_factory=lambda: deque(maxlen=MAX_EVENTS))
    events: deque[Event] = field(default_factory=lambda: deque(maxlen=MAX_EVENTS))

    def __post_init__(self) -> None:
        self.frames = deque(maxlen=max(1, self.capacity))

    def add(self, parts: FrameParts) -> Frame:
        """Store one sample (evicting the oldest frame when full)."""
        packed = tuple(
            pack(
                Usage(self._intern(k, parts.first_seen.get(k, parts.wall_ms)), u.cpu_s, u.memory, u.members)
                for k, u in level
            )
            for level in parts.levels
        )
        frame = Frame(
            parts.at, parts.wall_ms, parts.seconds, parts.host_cpus, parts.scalars, packed, parts.residual_s
        )
        for level in range(len(LEVELS)):
            for u in frame.usage(level):
                self.refs[u.key] += 1
                self.last_ms[u.key] = parts.wall_ms
        for key in parts.first_seen:
            found = self.index.get(key)
            if found is not None:
                self.last_ms[found] = parts.wall_ms
        if len(self.frames) == self.frames.maxlen:
            self._release(self.frames[0])
        said = (
            self.gaps and self.frames and self.gaps[-1].to_ms >= self.frames[-1].wall_ms
        )  # a failure said why
        if self.frames and not said and parts.at - self.frames[-1].at > 1.5 * self.interval_s:
            self.gap(
                self.frames[-1].wall_ms, parts.wall_ms - int(parts.seconds * 1000), "no sample was taken"
            )
        self.frames.append(frame)
        return frame

    def gap(self, from_ms: int, to_ms: int, why: str) -> None:
        if to_ms > from_ms:
            self.gaps.append(Gap(from_ms, to_ms, why))

    def key(self, number: int) -> Key:
        key = self.keys[number]
        assert key is not None, "a frame in the ring names only live keys"
        return key

    def _intern(self, key: Key, first_ms: int) -> int:
        found = self.index.get(key)
        if found is not None:
            return found
        if self.free:
            found = self.free.pop()
            self.keys[found] = key
            self.first_ms[found], self.last_ms[found], self.refs[found] = first_ms, first_ms, 0
        else:
            found = len(self.keys)
            self.keys.append(key)
            self.first_ms.append(first_ms)
            self.last_ms.append(first_ms)
            self.refs.append(0)
        self.index[key] = found
        return found

    def _release(self, frame: Frame) -> None:
        for level in range(len(LEVELS)):
            for u in frame.usage(level):
                self.refs[u.key] -= 1
                if self.refs[u.key] == 0:
                    del self.index[self.key(u.key)]
                    self.keys[u.key] = None
                    self.free.append(u.key)

    def window(self, from_at: float) -> list[Frame]:
        """The frames sampled after monotonic ``from_at``."""
        return [f for f in self.frames if f.at > from_at]


@dataclass(frozen=True)
class FrameParts:
    """One sample, before the ring interns its keys (made off the event loop by ``frame_parts``)."""

    at: float
    wall_ms: int
    seconds: float
    host_cpus: int
    scalars: array[float]
    levels: tuple[tuple[tuple[Key, Usage], ...], ...]
    residual_s: tuple[float, float]
    first_seen: Mapping[Key, int]  # every consumer alive at this sample, with when it was first seen


def frame_parts(obs: Observation, at: float, seconds: float, first_seen: Mapping[Key, int]) -> FrameParts:
    """The frame of one sampler observation: scalars, the top consumers per level, the residuals,
    and every consumer alive now with when it was first seen (``first_seen``: the previous sample's)."""
    summary = obs.summary.to_json()
    host_cpus = obs.summary.host_logical_cpu_count
    wall_ms = int(obs.completed_wall * 1000)
    rows = [r for projection in obs.projections for r in projection]
    processes = [
        (process_key(r), _usage(r, host_cpus, seconds)) for r in rows if r.identity.kind in _PROCESS_KINDS
    ]
    containers = [
        (container_key(r), _usage(r, host_cpus, seconds)) for r in rows if r.identity.kind == "container"
    ]
    processes += [
        (process_key(r, EXITED_CHILDREN), Usage(0, r.exited_children_cpu_s, 0))
        for r in rows
        if r.exited_children_cpu_s
    ]
    applications = _applications(processes)
    # every consumer alive now (exited children, by their nature, are not)
    alive = [k for k, _ in (*processes, *applications, *containers) if k.kind != EXITED_CHILDREN]
    return FrameParts(
        at=at,
        wall_ms=wall_ms,
        seconds=seconds,
        host_cpus=host_cpus,
        scalars=scalars(summary),
        levels=(_top(processes), _top(applications), _top(containers)),
        residual_s=_residuals(summary, processes, host_cpus, seconds),
        first_seen={k: first_seen.get(k, wall_ms) for k in alive},
    )


_PROCESS_KINDS = ("process", "infra", "host")
#: the kind of a process's children that began and ended between two samples (named after the parent)
EXITED_CHILDREN = "exited_children"


def process_key(row: Observed, kind: str | None = None) -> Key:
    ident = row.identity
    return Key(
        "process",
        ident.environment,
        ident.source,
        row.name,
        ident.native_id,
        ident.start_id,
        kind or ident.kind,
    )


def container_key(row: Observed) -> Key:
    ident = row.identity
    return Key("container", ident.environment, None, row.name, ident.native_id, None, "container")


def _usage(row: Observed, host_cpus: int, seconds: float) -> Usage:
    """CPU seconds used in the interval (a process born inside it: only its part) and memory."""
    cpu = row.cpu_seconds_used
    if cpu is None:  # a container (matched on the engine's own window): its rate over the interval
        cpu = row.cpu_percent * host_cpus / 100.0 * seconds if row.cpu_percent is not None else 0.0
    return Usage(0, cpu, row.memory_bytes or 0)


def _applications(processes: Sequence[tuple[Key, Usage]]) -> list[tuple[Key, Usage]]:
    """Processes grouped by (environment, source, name): CPU and memory summed, members counted;
    exited children apart, grouped by their parents' name."""
    groups: dict[tuple[str, str | None, str, str], list[Usage]] = {}
    for key, usage in processes:
        if key.kind != "host":  # a VM host is not an application of its own
            kind = EXITED_CHILDREN if key.kind == EXITED_CHILDREN else "application"
            groups.setdefault((key.environment, key.source, key.name, kind), []).append(usage)
    return [
        (
            Key("application", env, source, name, name, None, kind),
            Usage(
                0,
                sum(u.cpu_s for u in us),
                sum(u.memory for u in us),
                len(us) if kind == "application" else 1,
            ),
        )
        for (env, source, name, kind), us in groups.items()
    ]


def _top(consumers: Sequence[tuple[Key, Usage]]) -> tuple[tuple[Key, Usage], ...]:
    """The ``TOP_CPU`` biggest by CPU seconds (that used any) and the ``TOP_MEMORY`` biggest by memory."""
    by_cpu = heapq.nlargest(TOP_CPU, (c for c in consumers if c[1].cpu_s > 0), key=lambda c: c[1].cpu_s)
    chosen = {c[0]: c for c in by_cpu}
    for c in heapq.nlargest(TOP_MEMORY, consumers, key=lambda c: c[1].memory):
        chosen.setdefault(c[0], c)
    return tuple(chosen.values())


def scalars(summary: Mapping[str, object]) -> array[float]:
    """The frame's scalars from a summary's JSON, in ``METRICS`` order (NaN for null)."""
    values: dict[str, float | None] = {}
    values["host.cpu_percent"] = _num(summary.get("host_cpu_percent"))
    host_memory = summary.get("host_memory")
    values["host.memory_bytes"] = (
        _num(host_memory.get("used_bytes")) if isinstance(host_memory, dict) else None
    )
    envs = summary.get("environments")
    for env in ENVIRONMENTS:
        obs = envs.get(env) if isinstance(envs, dict) else None
        for what in ("cpu_percent", "memory_bytes"):
            values[f"{env}.{what}"] = _num(obs.get(what)) if isinstance(obs, dict) else None
    pressure = summary.get("pressure")
    if isinstance(pressure, dict):
        values.update(_pressure_metrics(pressure))
    return array("d", (math.nan if values.get(m) is None else float(values[m] or 0.0) for m in METRICS))


def _pressure_metrics(pressure: Mapping[str, object]) -> Iterator[tuple[str, float | None]]:
    for group in ("memory", "io", "cpu"):
        figures = pressure.get(group)
        if isinstance(figures, dict):
            for name, value in figures.items():
                if not name.endswith("_disks"):
                    yield f"{group}.{name}", _num(value)
            for side in ("linux", "windows"):
                disks = figures.get(f"{side}_disks")
                if group == "io" and isinstance(disks, list):
                    yield from _disk_metrics(side, disks)


def _disk_metrics(side: str, disks: Sequence[object]) -> Iterator[tuple[str, float | None]]:
    rows = [d for d in disks if isinstance(d, dict)]
    for figure, fold in (("busy_percent", max), ("read_bytes_per_s", sum), ("write_bytes_per_s", sum)):
        known = [v for v in (_num(d.get(figure)) for d in rows) if v is not None]
        yield f"io.{side}_disk_{figure}", float(fold(known)) if known else None


def _num(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _residuals(
    summary: Mapping[str, object], processes: Iterable[tuple[Key, Usage]], host_cpus: int, seconds: float
) -> tuple[float, float]:
    """CPU seconds of the interval no process accounts for: the WSL kernel's busy time minus its
    processes', and Windows' (the hypervisor's root partition) minus its processes' (NaN: unknown)."""
    spent = {"wsl": 0.0, "windows": 0.0}
    for key, usage in processes:
        if key.kind != "host" and key.environment in spent:
            spent[key.environment] += usage.cpu_s
    envs = summary.get("environments")
    wsl = envs.get("wsl") if isinstance(envs, dict) else None
    wsl_cpu = _num(wsl.get("cpu_percent")) if isinstance(wsl, dict) else None
    breakdown = summary.get("cpu_breakdown")
    windows_cpu = _num(breakdown.get("windows")) if isinstance(breakdown, dict) else None

    def residual(percent: float | None, used: float) -> float:
        return math.nan if percent is None else percent * host_cpus / 100.0 * seconds - used

    return residual(wsl_cpu, spent["wsl"]), residual(windows_cpu, spent["windows"])
