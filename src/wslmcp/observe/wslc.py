"""WSL containers (WSLC) through ``wslc.exe``: ``container list`` and ``container stats`` as JSON.

CPU is wslc's ``CPUPerc`` (docker's formula, one busy core = 100) divided by the host CPU count;
memory is ``MemUsage``'s used part, which for wslc is the raw cgroup usage (page cache included,
unlike ``docker stats``). A listed container missing from ``stats`` exited in between: left out,
with a warning. A row wslc printed that cannot be read makes the sample incomplete (totals null).
wslc has no ``top``: container processes would need ``wslc container exec`` inside the user's
container, which a read-only server does not do, so WSLC containers have no children.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from wslmcp.boundaries.wslc import (
    LIST_ARGS,
    STATS_ARGS,
    Wslc,
    WslcGarbage,
    decode_wslc_json,
    parse_mem_usage,
    parse_percent,
)
from wslmcp.observe.model import Identity, Observed

TIMEOUT_S = 5.0


@dataclass(frozen=True)
class WslcContainer:
    id: str
    name: str
    image: str | None
    cpu_perc: float  # one busy core = 100
    memory_bytes: int


@dataclass(frozen=True)
class WslcSample:
    containers: Mapping[str, WslcContainer] | None  # None: the sample failed or wslc is absent
    failure: str | None = None
    absent: bool = False
    warnings: tuple[str, ...] = ()
    incomplete: bool = False


async def sample(wslc: Wslc, timeout_s: float = TIMEOUT_S) -> WslcSample:
    try:
        listed = await _json(wslc, LIST_ARGS, timeout_s)
        stats = await _json(wslc, STATS_ARGS, timeout_s)
    except FileNotFoundError:
        return WslcSample(
            None, "wslc.exe is not installed (WSL containers need WSL 2.9.3 or later)", absent=True
        )
    except (WslcGarbage, TimeoutError, OSError) as exc:
        return WslcSample(None, f"wslc.exe could not be used: {exc}")
    if not isinstance(listed, list) or not isinstance(stats, list):
        return WslcSample(None, "wslc.exe printed JSON that is not a list of containers")
    running = {}
    for c in listed:
        if isinstance(c, dict) and isinstance(c.get("Id"), str):
            state = c.get("State")
            if not isinstance(state, str) or state.casefold() == "running":
                running[c["Id"]] = c
    warnings: list[str] = []
    incomplete = False
    containers: dict[str, WslcContainer] = {}
    for row in stats:
        if not isinstance(row, dict) or not isinstance(row.get("ID"), str):
            warnings.append(f"wslc.exe printed a stats row that cannot be read: {str(row)[:120]!r}")
            incomplete = True
            continue
        cid: str = row["ID"]
        name = row.get("Name") if isinstance(row.get("Name"), str) else cid[:12]
        try:
            cpu = parse_percent(str(row.get("CPUPerc")))
            used, _limit = parse_mem_usage(str(row.get("MemUsage")))
        except WslcGarbage as exc:
            warnings.append(f"WSLC container {name}: {exc}; WSLC totals are null")
            incomplete = True
            continue
        image = running.get(cid, {}).get("Image")
        containers[cid] = WslcContainer(cid, str(name), image if isinstance(image, str) else None, cpu, used)
    for cid, c in running.items():
        if cid not in containers and not incomplete:
            warnings.append(
                f"WSLC container {c.get('Name', cid[:12])} exited during the collection; it is not listed"
            )
    return WslcSample(containers, warnings=tuple(warnings), incomplete=incomplete)


async def _json(wslc: Wslc, args: tuple[str, ...], timeout_s: float) -> object:
    exchange = await wslc.run(args, timeout_s=timeout_s)
    if exchange.timed_out:
        raise TimeoutError(f"wslc.exe {' '.join(args)} did not finish within {timeout_s:g} s")
    return decode_wslc_json(exchange)


def wslc_rows(s: WslcSample, host_cpus: int, host: Identity | None) -> list[Observed]:
    return [
        Observed(
            identity=Identity("wslc", "container", None, c.id, None),
            name=c.name,
            pid=None,
            ppid=None,
            args=c.image,
            cpu_percent=c.cpu_perc / host_cpus if host_cpus > 0 else None,
            cpu_time_seconds=None,
            memory_bytes=c.memory_bytes,
            parents=(host,) if host is not None else (),
        )
        for c in (s.containers or {}).values()
    ]
