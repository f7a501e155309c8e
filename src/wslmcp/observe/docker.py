"""Docker containers through the Engine API: one sample of every running container, and rows from
two samples.

A sample is ``GET /containers/json`` then, for every container at once, ``/containers/{id}/stats``
with ``stream=false`` (never ``one-shot``: its empty ``precpu_stats`` would give the lifetime
average) and ``/containers/{id}/top`` with ``ps_args`` ending in ``args`` (the daemon joins the
overflow of a line into the last column). The whole sample has one deadline; each request has its
own (a container's end ``MARGIN_S`` before the sample's), so a hung daemon costs at most the
deadline and a container whose requests hang costs only that container. A container gone between the list and its stats
(404, or dockerd's empty 200 for a container that stopped and was not removed) is left out with a
warning.

CPU is docker's formula on two samples, on the host scale:
``cores = Δtotal_usage / Δsystem_cpu_usage × online_cpus``, ``% = cores / host CPUs × 100``.
The two samples are this collection's and the previous one's ``cpu_stats`` when the previous is
usable (a window as long as the collection's), else the answer's own ``precpu_stats`` (the
daemon's previous tick). A delta that is not positive, or missing counters, give null, never
docker's 0. Memory is what ``docker stats`` shows: ``usage − inactive_file`` (cgroup v2) or
``usage − total_inactive_file`` (v1) when smaller than ``usage``, else ``usage``.

Container processes come from ``top``: pid, ppid, RSS and cumulative CPU time. ps's ``%CPU`` is a
lifetime average, not a rate over the window, so their ``cpu_percent`` is null (documented).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from wslmcp.boundaries.docker_api import TOP_PS_ARGS, DockerAbsent, DockerApi, DockerError, DockerTimeout
from wslmcp.observe.model import Identity, Observed
from wslmcp.observe.rates import Reading, opening, rate

TOP_ARGS = TOP_PS_ARGS  # args last: the daemon joins a line's overflow into it
REQUEST_TIMEOUT_S = 3.0
# What a sample keeps back from its deadline for a container's own requests, so that a container
# whose stats hang times out alone (a warning naming it) before the whole sample would.
MARGIN_S = 0.2


@dataclass(frozen=True)
class CpuPoint:
    """One cgroup CPU reading: the container's ``total_usage`` and the daemon kernel's
    ``system_cpu_usage`` (both ns), with ``online_cpus``."""

    usage_ns: int
    system_ns: int
    online_cpus: int


@dataclass(frozen=True)
class TopRow:
    pid: int
    ppid: int | None
    rss_bytes: int | None
    cpu_time_s: float | None
    comm: str
    args: str | None


@dataclass(frozen=True)
class ContainerStat:
    id: str
    name: str
    command: str | None
    cpu: CpuPoint | None
    precpu: CpuPoint | None
    memory_bytes: int | None
    top: tuple[TopRow, ...] | None  # None: top failed (a warning says why)


@dataclass(frozen=True)
class DockerSample:
    taken_at: float
    containers: Mapping[str, ContainerStat] | None  # None: the sample failed (``failure`` says why)
    failure: str | None = None
    absent: bool = False  # nothing listens at the endpoint: Docker is not installed / not running
    warnings: tuple[str, ...] = ()
    incomplete: bool = False  # a container's stats could not be read: totals are unknown


def cpu_point(stats: Any) -> CpuPoint | None:
    if not isinstance(stats, dict):
        return None
    usage = stats.get("cpu_usage") if isinstance(stats.get("cpu_usage"), dict) else None
    total = usage.get("total_usage") if usage is not None else None
    system = stats.get("system_cpu_usage")
    online = stats.get("online_cpus")
    if not online and usage is not None and isinstance(usage.get("percpu_usage"), list):
        online = len(usage["percpu_usage"])
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (total, system, online)):
        return None
    assert isinstance(total, int) and isinstance(system, int) and isinstance(online, int)
    if system <= 0 or online <= 0 or total < 0:
        return None
    return CpuPoint(total, system, online)


def reading(point: CpuPoint) -> Reading:
    """A cgroup CPU reading on the axis of the daemon kernel's CPU time (``system_cpu_usage``)."""
    return Reading(point.usage_ns, point.system_ns)


def cores(a: CpuPoint | None, b: CpuPoint | None) -> float | None:
    """docker's formula: Δusage / Δsystem × online CPUs (cores); None when it cannot be trusted."""
    if a is None or b is None:
        return None
    share = rate(reading(a), reading(b))
    return share * b.online_cpus if share is not None else None


def memory_bytes(mem: Any) -> int | None:
    """``docker stats``' memory: usage minus inactive file pages (v2 ``inactive_file``, v1
    ``total_inactive_file``) when smaller than usage."""
    if not isinstance(mem, dict) or not _size(mem.get("usage")):
        return None
    usage: int = mem["usage"]
    raw = mem.get("stats")
    stats: dict[str, Any] = raw if isinstance(raw, dict) else {}
    v1 = stats.get("total_inactive_file")
    if _size(v1) and v1 < usage:
        return usage - v1
    v2 = stats.get("inactive_file")
    if _size(v2) and v2 < usage:
        return usage - v2
    return usage


def _size(v: object) -> TypeGuard[int]:
    """A byte count as JSON carries it: an integer (never a boolean), not negative."""
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def _time_s(text: str) -> float | None:
    days, _, rest = text.rpartition("-")
    parts = rest.split(":")
    try:
        nums = [int(p) for p in parts]
        d = int(days) if days else 0
    except ValueError:
        return None
    if len(nums) == 2:
        nums = [0, *nums]
    if len(nums) != 3:
        return None
    return float(d * 86400 + nums[0] * 3600 + nums[1] * 60 + nums[2])


def parse_top(body: Any) -> tuple[TopRow, ...] | None:
    """``{"Titles": [...], "Processes": [[...], ...]}`` for ``TOP_ARGS``; None when it is not that."""
    if not isinstance(body, dict):
        return None
    titles, procs = body.get("Titles"), body.get("Processes")
    if not isinstance(titles, list) or not isinstance(procs, list) or "PID" not in titles:
        return None
    col = {t: i for i, t in reversed(list(enumerate(titles)))}  # first occurrence wins
    rows = []
    for line in procs:
        if (
            not isinstance(line, list)
            or len(line) != len(titles)
            or not all(isinstance(v, str) for v in line)
        ):
            return None
        try:
            pid = int(line[col["PID"]])
        except ValueError:
            return None

        def num(title: str, line: list[str] = line) -> int | None:
            i = col.get(title)
            return int(line[i]) if i is not None and line[i].isdigit() else None

        rss = num("RSS")
        comm_i = col.get("COMMAND", col.get("CMD"))
        rows.append(
            TopRow(
                pid=pid,
                ppid=num("PPID"),
                rss_bytes=rss * 1024 if rss is not None else None,
                cpu_time_s=_time_s(line[col["TIME"]]) if "TIME" in col else None,
                comm=line[comm_i] if comm_i is not None else str(pid),
                args=line[-1] if titles[-1] in ("COMMAND", "CMD", "ARGS") and len(titles) > 1 else None,
            )
        )
    return tuple(rows)


NO_SAMPLE = "0001-01-01T00:00:00Z"  # Go's zero time: dockerd's ``read`` when it has no sample


def _not_running(status: int, body: Any) -> bool:
    """dockerd's 200 answer for a container that is not running (it exited, and was not removed,
    after the listing): ``read`` is the zero time and there are no counters."""
    return status == 200 and isinstance(body, dict) and body.get("read") == NO_SAMPLE


def _message(body: Any) -> str:
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        return str(body["message"])
    return str(body)[:200]


def _excerpt(body: Any, limit: int = 120) -> str:
    text = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + "…"


def _where(api: DockerApi) -> str:
    ep = api.endpoint
    return f"{ep.url} (from {ep.source})"


async def sample(api: DockerApi, taken_at: float, deadline_s: float) -> DockerSample:
    """One sample of every running container, bounded by ``deadline_s`` whatever the daemon does."""
    try:
        async with asyncio.timeout(deadline_s):
            return await _sample(api, taken_at, deadline_s)
    except TimeoutError:
        return DockerSample(
            taken_at,
            None,
            f"the Docker daemon at {_where(api)} did not answer within {deadline_s:g} s (hung?)",
        )


async def _sample(api: DockerApi, taken_at: float, deadline_s: float) -> DockerSample:
    loop = asyncio.get_running_loop()
    end = loop.time() + deadline_s
    try:
        listing = await api.get("/containers/json", timeout_s=min(REQUEST_TIMEOUT_S, deadline_s))
    except DockerAbsent:
        return DockerSample(taken_at, None, f"no Docker daemon at {_where(api)}", absent=True)
    except DockerTimeout:
        return DockerSample(taken_at, None, f"the Docker daemon at {_where(api)} timed out (hung?)")
    except DockerError as exc:
        return DockerSample(taken_at, None, f"the Docker daemon at {_where(api)} cannot be used: {exc}")
    if listing.status == 200 and not isinstance(listing.body, list):
        kind = (
            "a JSON object"
            if isinstance(listing.body, dict)
            else "text"
            if isinstance(listing.body, str)
            else "JSON"
        )
        return DockerSample(
            taken_at,
            None,
            f"the Docker daemon at {_where(api)} answered the container list with {kind}, not a list of "
            f"containers (HTTP 200: {_excerpt(listing.body)})",
        )
    if listing.status != 200:
        return DockerSample(
            taken_at,
            None,
            f"the Docker daemon at {_where(api)} answered HTTP {listing.status} to the container "
            f"list: {_message(listing.body)}",
        )
    found = [c for c in listing.body if isinstance(c, dict) and isinstance(c.get("Id"), str)]
    left = round(min(REQUEST_TIMEOUT_S, max(end - loop.time() - MARGIN_S, MARGIN_S)), 1)  # read in warnings
    results = await asyncio.gather(*(_container(api, c, left) for c in found))
    containers: dict[str, ContainerStat] = {}
    warnings: list[str] = []
    incomplete = False
    for stat, notes, broken in results:
        warnings += notes
        incomplete = incomplete or broken
        if stat is not None:
            containers[stat.id] = stat
    return DockerSample(taken_at, containers, warnings=tuple(warnings), incomplete=incomplete)


async def _container(
    api: DockerApi, listed: Mapping[str, Any], timeout_s: float
) -> tuple[ContainerStat | None, list[str], bool]:
    cid: str = listed["Id"]
    names = listed.get("Names")
    name = (
        names[0].lstrip("/") if isinstance(names, list) and names and isinstance(names[0], str) else cid[:12]
    )
    stats_call = api.get(f"/containers/{cid}/stats", {"stream": "false"}, timeout_s=timeout_s)
    top_call = api.get(f"/containers/{cid}/top", {"ps_args": TOP_ARGS}, timeout_s=timeout_s)
    stats, top = await asyncio.gather(stats_call, top_call, return_exceptions=True)
    notes: list[str] = []
    if isinstance(stats, BaseException) or stats.status == 404 or _not_running(stats.status, stats.body):
        if not isinstance(stats, BaseException):
            notes.append(f"Docker container {name} exited during the collection; it is not listed")
            return None, notes, False
        notes.append(f"Docker container {name}: stats unavailable ({stats}); Docker totals are null")
        return None, notes, True
    if stats.status != 200 or not isinstance(stats.body, dict):
        notes.append(
            f"Docker container {name}: stats answered HTTP {stats.status} ({_message(stats.body)}); "
            "Docker totals are null"
        )
        return None, notes, True
    body = stats.body
    cpu, memory = cpu_point(body.get("cpu_stats")), memory_bytes(body.get("memory_stats"))
    unread = [what for what, got in (("CPU counters", cpu), ("memory usage", memory)) if got is None]
    if unread:
        notes.append(
            f"Docker container {name}: stats carry no readable {' or '.join(unread)}; its "
            f"{' and '.join(w.split()[0] for w in unread)} and the Docker totals are null"
        )
    rows: tuple[TopRow, ...] | None = None
    if isinstance(top, BaseException):
        notes.append(f"Docker container {name}: process list unavailable ({top})")
    elif top.status != 200 or (rows := parse_top(top.body)) is None:
        notes.append(
            f"Docker container {name}: process list unavailable (HTTP {top.status}: {_message(top.body)})"
        )
    command = listed.get("Command")
    return (
        ContainerStat(
            id=cid,
            name=name,
            command=command if isinstance(command, str) else None,
            cpu=cpu,
            precpu=cpu_point(body.get("precpu_stats")),
            memory_bytes=memory,
            top=rows,
        ),
        notes,
        False,
    )


@dataclass
class DockerRows:
    containers: list[Observed] = field(default_factory=list)
    processes: list[Observed] = field(default_factory=list)
    points: dict[str, tuple[CpuPoint, CpuPoint]] = field(default_factory=dict)  # the pair each rate used


def _first_reading(
    stat: ContainerStat, earlier: Mapping[str, CpuPoint]
) -> tuple[CpuPoint | None, float | None]:
    """The reading a container's rate starts from, and the rate (cores): the same container's in
    the previous collection when it is older (a window as long as the collection's), else the
    daemon's own previous tick (``precpu``, also when the container restarted since)."""
    first = opening(stat.id, earlier, lambda: stat.precpu)
    if first is not None and stat.cpu is not None and first.system_ns >= stat.cpu.system_ns:
        first = stat.precpu  # the previous collection's reading is not older: use the daemon's pair
    used = cores(first, stat.cpu)
    if used is None and first is not stat.precpu:  # restarted since (its counter went back)
        first = stat.precpu
        used = cores(first, stat.cpu)
    return first, used


def docker_rows(before: DockerSample | None, after: DockerSample, host_cpus: int) -> DockerRows:
    out = DockerRows()
    prev = before.containers if before is not None and before.containers is not None else {}
    earlier = {cid: c.cpu for cid, c in prev.items() if c.cpu is not None}  # by identity: container ID
    for stat in (after.containers or {}).values():
        ident = Identity("docker", "container", None, stat.id, None)
        first, used = _first_reading(stat, earlier)
        if used is not None and first is not None and stat.cpu is not None:
            out.points[stat.id] = (first, stat.cpu)
        out.containers.append(
            Observed(
                identity=ident,
                name=stat.name,
                pid=None,
                ppid=None,
                args=stat.command,
                cpu_percent=used / host_cpus * 100.0 if used is not None and host_cpus > 0 else None,
                cpu_time_seconds=stat.cpu.usage_ns / 1e9 if stat.cpu is not None else None,
                memory_bytes=stat.memory_bytes,
            )
        )
        for row in stat.top or ():
            out.processes.append(
                Observed(
                    identity=Identity("docker", "process", stat.id, f"{stat.id}:{row.pid}", None),
                    name=row.comm,
                    pid=row.pid,
                    ppid=row.ppid,
                    args=row.args,
                    cpu_percent=None,
                    cpu_time_seconds=row.cpu_time_s,
                    memory_bytes=row.rss_bytes,
                    parents=(ident,),
                )
            )
    return out
