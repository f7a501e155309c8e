"""Windows processes and host memory as a boundary.

Contract
--------
``read() -> WindowsTable``
    One table of every Windows process visible to the caller: pid, parent pid, image name,
    executable path, command line (argv as Windows parses it), creation time (100 ns FILETIME, the
    identity that survives PID reuse), cumulative user+kernel CPU seconds and working set bytes;
    plus the host's logical CPU count and total/available physical memory in bytes.
    A process whose details cannot be read (access denied, protected) stays a row with its pid
    and name and ``None`` for each value that could not be read: never dropped, never 0.
    ``cpu_unreadable`` lists the pids whose CPU is ``None`` so a collector can count them in a
    warning. A process that exits between listing and reading is left out (it no longer exists).
    PID 0 (System Idle Process) is left out: its "CPU" is idle time.
Errors
    ``WindowsUnavailable`` when the table cannot be made (no logical CPU count).

Real adapter: ``PsutilWindowsProcesses`` (psutil; also runs on Linux, where the table is this
machine's processes, for the contract's shape). Twin: ``fakes.windows_processes`` (tables per
sample from a scenario's timeline).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import psutil

# Seconds between the FILETIME epoch (1601-01-01) and the Unix epoch.
FILETIME_UNIX_OFFSET_S = 11644473600


class WindowsUnavailable(OSError):
    """Windows processes cannot be listed here."""


@dataclass(frozen=True)
class WindowsProcess:
    pid: int
    ppid: int | None
    name: str
    create_time_100ns: int | None
    cpu_seconds: float | None
    working_set_bytes: int | None
    exe: str | None = None
    cmdline: tuple[str, ...] | None = None


@dataclass(frozen=True)
class WindowsTable:
    processes: Sequence[WindowsProcess]
    logical_cpus: int
    memory_total_bytes: int
    memory_available_bytes: int
    cpu_unreadable: tuple[int, ...] = field(default=())  # pids whose cpu_seconds is None


class WindowsProcesses(Protocol):
    def read(self) -> WindowsTable: ...


def filetime_from_epoch(seconds: float) -> int:
    """psutil's ``create_time()`` (Unix seconds, float) as a FILETIME in 100 ns units."""
    return round((seconds + FILETIME_UNIX_OFFSET_S) * 10**7)


ATTRS = ("pid", "ppid", "name", "exe", "cmdline", "create_time", "cpu_times", "memory_info")


def process_row(info: dict[str, Any]) -> WindowsProcess:
    """One psutil ``as_dict`` (unreadable values ``None``) as a ``WindowsProcess``."""
    cpu, mem, created, cmdline = (
        info.get("cpu_times"),
        info.get("memory_info"),
        info.get("create_time"),
        info.get("cmdline"),
    )
    exe = info.get("exe") or None
    return WindowsProcess(
        pid=int(info["pid"]),
        ppid=info.get("ppid"),
        name=info.get("name") or (exe.replace("\\", "/").rsplit("/", 1)[-1] if exe else ""),
        create_time_100ns=None if created is None else filetime_from_epoch(float(created)),
        cpu_seconds=None if cpu is None else float(cpu.user) + float(cpu.system),
        working_set_bytes=None if mem is None else int(mem.rss),
        exe=exe,
        cmdline=None if cmdline is None else tuple(cmdline),
    )


class PsutilWindowsProcesses:
    """``WindowsProcesses`` through psutil: one ``process_iter`` pass (access denied ⇒ ``None``,
    processes gone while listed are skipped by psutil), then host memory and CPU count."""

    def read(self) -> WindowsTable:
        rows = [
            process_row(p.info) for p in psutil.process_iter(list(ATTRS), ad_value=None) if p.info["pid"] != 0
        ]
        cpus = psutil.cpu_count(logical=True)
        if not cpus:
            raise WindowsUnavailable("the logical CPU count cannot be read")
        memory = psutil.virtual_memory()
        return WindowsTable(
            processes=rows,
            logical_cpus=cpus,
            memory_total_bytes=int(memory.total),
            memory_available_bytes=int(memory.available),
            cpu_unreadable=tuple(r.pid for r in rows if r.cpu_seconds is None),
        )
