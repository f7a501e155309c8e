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

Real adapter: ``windows_psutil.PsutilWindowsProcesses`` (psutil; also runs on Linux, where the table is this
machine's processes, for the contract's shape). Twin: ``wslmcp.fakes.windows_processes`` (tables per
sample from a scenario's timeline).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

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
