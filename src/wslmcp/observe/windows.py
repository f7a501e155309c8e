"""Windows rows from two process tables: processes, VM hosts, applications, and the ``windows``
environment.

* A process's CPU rate needs the same ``(pid, creation time)`` in both tables and readable CPU
  times in both; otherwise it is null. A process whose CPU could not be read (access denied) stays
  a row with null CPU and is counted in a warning: never 0 (wsltop 0.5.2 lost 10 points of host
  CPU by counting such rows as 0).
* ``host`` rows are the VM host processes: ``vmmem``/``vmmemWSL`` (the WSL VM) and
  ``vmmemwslc-*`` (a WSLC session's utility VM), case-insensitive.
* An ``application`` is two or more non-host processes with the same executable (path, else
  image name, case-insensitive): CPU and memory are the members' sums (null when a member's value
  could not be read), and the members are its children.
* ``windows`` = Σ of the Windows ``process`` rows (hosts and applications excluded); CPU is null
  when any measured process's CPU was unreadable (the sum would be an undercount), memory null
  when any working set was unreadable. No rows at all is a real ``{0, 0}``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import partial

from wslmcp.boundaries.windows_processes import FILETIME_UNIX_OFFSET_S, WindowsProcess, WindowsTable
from wslmcp.observe.model import EnvObservation, Identity, Observed
from wslmcp.observe.rates import Reading, at_most, born, opening, rate, spent

WSL_HOSTS = ("vmmem", "vmmemwsl")
WSLC_HOST_PREFIX = "vmmemwslc-"


def _bare(name: str) -> str:
    low = name.casefold()
    return low[:-4] if low.endswith(".exe") else low


def is_wsl_host(name: str) -> bool:
    return _bare(name) in WSL_HOSTS


def is_wslc_host(name: str) -> bool:
    return _bare(name).startswith(WSLC_HOST_PREFIX)


@dataclass(frozen=True)
class WindowsRows:
    processes: tuple[Observed, ...]  # process and host rows (PID level)
    applications: tuple[Observed, ...]
    environment: EnvObservation
    wsl_host: Identity | None  # the unique vmmem / vmmemWSL host, if exactly one
    wslc_host: Identity | None  # the unique vmmemwslc-* host, if exactly one
    wslc_hosts: int
    warnings: tuple[str, ...]


def _identity(p: WindowsProcess, kind: str) -> Identity:
    return Identity("windows", kind, None, str(p.pid), p.create_time_100ns)  # type: ignore[arg-type]


def _app_key(p: WindowsProcess) -> str:
    return (p.exe or p.name).casefold()


CPU_RESOLUTION_S = 1 / 64  # Windows counts CPU time in clock ticks of 15.625 ms


@dataclass(frozen=True)
class _Window:
    """The two tables' window on a local axis (0 = the opening table, ``elapsed_s`` = the closing
    one) and the wall-clock time of the closing read, which places creation times on it."""

    elapsed_s: float
    closing_wall: float | None

    def birth(self, p: WindowsProcess) -> Reading | None:
        """A process new in the closing table: zero CPU when it was created, if that was inside the
        window (a creation time before it: it should have been in the opening table)."""
        if self.closing_wall is None or p.create_time_100ns is None:
            return born(None, 0.0, self.elapsed_s, CPU_RESOLUTION_S)
        age = self.closing_wall - (p.create_time_100ns / 10**7 - FILETIME_UNIX_OFFSET_S)
        if age > self.elapsed_s + CPU_RESOLUTION_S:
            return None
        return born(self.elapsed_s - age, 0.0, self.elapsed_s, CPU_RESOLUTION_S)


def windows_rows(
    before: WindowsTable,
    after: WindowsTable,
    elapsed_s: float,
    host_cpus: int,
    *,
    closing_wall: float | None = None,
) -> WindowsRows:
    rows, unreadable = _process_rows(before, after, _Window(elapsed_s, closing_wall), host_cpus)
    unread = set(unreadable)
    applications, members = _applications(after, rows, unread)
    rows = [replace(r, parents=(members[r.identity],)) if r.identity in members else r for r in rows]
    processes = [r for r in rows if r.identity.kind == "process"]
    complete_cpu = not any(r.identity in unread for r in processes)
    # each process read at its own moment of the table (see rates.at_most): the sum is held to the host
    env_cpu = min(100.0, sum(r.cpu_percent or 0.0 for r in processes)) if complete_cpu else None
    env_mem = _sum_int_or_none([r.memory_bytes for r in processes])
    warnings = _warnings(sorted(unreadable.values()), env_mem is None and bool(processes))
    wsl_hosts = [r.identity for r in rows if r.identity.kind == "host" and is_wsl_host(r.name)]
    wslc_hosts = [r.identity for r in rows if r.identity.kind == "host" and is_wslc_host(r.name)]
    if len(wsl_hosts) > 1:
        warnings.append(
            f"{len(wsl_hosts)} WSL VM host processes (vmmem/vmmemWSL) were observed, so WSL processes are "
            "not attributed to either (no guessing); inspect the host rows directly"
        )
    if len(wslc_hosts) > 1:
        warnings.append(
            f"{len(wslc_hosts)} WSLC session hosts (vmmemwslc-*) were observed, so WSLC containers are not "
            "attributed to any of them (no guessing)"
        )
    return WindowsRows(
        processes=tuple(rows),
        applications=tuple(applications),
        environment=EnvObservation(cpu_percent=env_cpu, memory_bytes=env_mem),
        wsl_host=wsl_hosts[0] if len(wsl_hosts) == 1 else None,
        wslc_host=wslc_hosts[0] if len(wslc_hosts) == 1 else None,
        wslc_hosts=len(wslc_hosts),
        warnings=tuple(warnings),
    )


def _process_rows(
    before: WindowsTable, after: WindowsTable, window: _Window, host_cpus: int
) -> tuple[list[Observed], dict[Identity, str]]:
    """Process and host rows of the closing table, with the rows whose CPU could not be read (by
    identity, with their names)."""
    earlier: dict[tuple[int, int | None], Reading] = {}
    unreadable_before: set[tuple[int, int | None]] = set()
    for p in before.processes:
        if p.create_time_100ns is None:
            continue
        if p.cpu_seconds is None:
            unreadable_before.add((p.pid, p.create_time_100ns))
        else:
            earlier[(p.pid, p.create_time_100ns)] = Reading(p.cpu_seconds, 0.0)
    rows: list[Observed] = []
    unreadable: dict[Identity, str] = {}
    for p in after.processes:
        kind = "host" if is_wsl_host(p.name) or is_wslc_host(p.name) else "process"
        key = (p.pid, p.create_time_100ns)
        ident = _identity(p, kind)
        cpu: float | None = None
        used: float | None = None
        if p.cpu_seconds is None or key in unreadable_before:
            unreadable[ident] = p.name
        elif p.create_time_100ns is not None and host_cpus > 0:
            first = opening(key, earlier, partial(window.birth, p))
            last = Reading(p.cpu_seconds, window.elapsed_s)
            cores, used = at_most(rate(first, last), host_cpus), spent(first, last)
            cpu = cores / host_cpus * 100.0 if cores is not None else None
        rows.append(
            Observed(
                identity=ident,
                name=p.name,
                pid=p.pid,
                ppid=p.ppid,
                args=" ".join(p.cmdline) if p.cmdline else None,
                cpu_percent=cpu,
                cpu_time_seconds=p.cpu_seconds,
                memory_bytes=p.working_set_bytes,
                cpu_seconds_used=used,
            )
        )
    return rows, unreadable


def _applications(
    after: WindowsTable, rows: Sequence[Observed], unread: set[Identity]
) -> tuple[list[Observed], dict[Identity, Identity]]:
    """Applications (two or more non-host processes of one executable) and each member's application."""
    groups: dict[str, list[tuple[WindowsProcess, Observed]]] = {}
    for p, row in zip(after.processes, rows, strict=True):
        if row.identity.kind == "process":
            groups.setdefault(_app_key(p), []).append((p, row))
    applications: list[Observed] = []
    members: dict[Identity, Identity] = {}
    for key, group in groups.items():
        if len(group) < 2:
            continue
        app = Identity("windows", "application", None, f"windows-app:{key}", None)
        first = group[0][0]
        rates = [r.cpu_percent for _, r in group if r.cpu_percent is not None]
        app_cpu = None if any(r.identity in unread for _, r in group) or not rates else sum(rates)
        applications.append(
            Observed(
                identity=app,
                name=first.name,
                pid=None,
                ppid=None,
                args=first.exe,
                cpu_percent=app_cpu,
                cpu_time_seconds=None,
                memory_bytes=_sum_int_or_none([r.memory_bytes for _, r in group]),
            )
        )
        for _, r in group:
            members[r.identity] = app
    return applications, members


def _warnings(unreadable: Sequence[str], memory_unreadable: bool) -> list[str]:
    warnings: list[str] = []
    if unreadable:
        shown = ", ".join(sorted(set(unreadable))[:5])
        warnings.append(
            f"CPU times of {len(unreadable)} Windows processes could not be read (access denied: {shown}"
            f"{', ...' if len(set(unreadable)) > 5 else ''}); they are listed with cpu_percent null, "
            "never 0, and environments.windows.cpu_percent is null because the sum would be an "
            "undercount; cpu_breakdown.windows (from the hypervisor) is unaffected. Running the "
            "server elevated lets it read them"
        )
    if memory_unreadable:
        warnings.append(
            "The working set of some Windows processes could not be read; environments.windows."
            "memory_bytes is null (run the server elevated to read them)"
        )
    return warnings


def _sum_int_or_none(values: Sequence[int | None]) -> int | None:
    if any(v is None for v in values):
        return None
    return sum(v for v in values if v is not None)
