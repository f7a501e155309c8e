"""The Windows side of one collection, from two raw host samples (process table + PDH counters):
Windows rows, the ``windows`` environment, the CPU breakdown, host memory and the VM hosts.

Everything here is in process and pure: the costly part on a real host is reading the tables
(psutil, PDH), not this (see tests/bench/bench_observe.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from wslmcp.boundaries.host_facts import HostMemory
from wslmcp.boundaries.pdh import CounterSample
from wslmcp.boundaries.windows_processes import WindowsTable
from wslmcp.observe.hyperv import breakdown
from wslmcp.observe.model import EnvObservation, Identity, Observed
from wslmcp.observe.windows import windows_rows

BREAKDOWN_WARNING = "Host CPU partition counters unavailable or inconsistent ({why}); host CPU is null"


@dataclass(frozen=True)
class HostRaw:
    """One Windows-side capture: taken when, the process table, the PDH counters, and why any is
    missing."""

    taken_at: float
    table: WindowsTable | None
    counters: CounterSample | None
    table_error: str | None = None
    counters_error: str | None = None
    taken_wall: float | None = None  # the wall clock then: places process creation times in the window


@dataclass(frozen=True)
class HostSide:
    rows: tuple[Observed, ...]  # Windows processes and VM hosts (PID level) plus applications
    environment: EnvObservation | None
    cpu_breakdown: dict[str, float] | None
    memory: HostMemory | None
    logical_cpus: int
    wsl_host: Identity | None
    wslc_host: Identity | None
    wslc_hosts: int
    warnings: tuple[str, ...]
    cpu_count_changed: bool = False


def host_side(before: HostRaw, after: HostRaw) -> HostSide:
    warnings: list[str] = []
    table = after.table
    cpus = table.logical_cpus if table is not None else 0
    rows: tuple[Observed, ...] = ()
    env: EnvObservation | None = None
    wsl_host = wslc_host = None
    wslc_hosts = 0
    changed = False
    if table is None or before.table is None:
        why = after.table_error or before.table_error or "no process table"
        warnings.append(f"Windows processes could not be read ({why}); environments.windows is null")
    elif before.table.logical_cpus != table.logical_cpus:
        changed = True
        warnings.append(
            "The host's logical CPU count changed during the collection "
            f"({before.table.logical_cpus} -> {table.logical_cpus}); Windows rates are null"
        )
    else:
        win = windows_rows(
            before.table, table, after.taken_at - before.taken_at, cpus, closing_wall=after.taken_wall
        )
        rows = win.processes + win.applications
        env = win.environment
        wsl_host, wslc_host, wslc_hosts = win.wsl_host, win.wslc_host, win.wslc_hosts
        warnings += win.warnings
    value = None
    if before.counters is None or after.counters is None:
        why = after.counters_error or before.counters_error or "PDH was not sampled"
        warnings.append(BREAKDOWN_WARNING.format(why=why))
    elif cpus > 0:
        got = breakdown(before.counters, after.counters, cpus)
        value = got.value
        if value is None:
            warnings.append(BREAKDOWN_WARNING.format(why=got.reason))
    memory = HostMemory(table.memory_total_bytes, table.memory_available_bytes) if table is not None else None
    if memory is not None and memory.to_json() is None:
        warnings.append("Host memory figures are inconsistent (available > total); host_memory is null")
        memory = None
    return HostSide(
        rows=rows,
        environment=env,
        cpu_breakdown=value,
        memory=memory,
        logical_cpus=cpus,
        wsl_host=wsl_host,
        wslc_host=wslc_host,
        wslc_hosts=wslc_hosts,
        warnings=tuple(warnings),
        cpu_count_changed=changed,
    )
