"""Windows processes and memory as a boundary.

Contract
--------
``read() -> WindowsTable``
    One table of every Windows process visible to the caller: pid, parent pid, image name,
    creation time (100 ns FILETIME, the identity that survives PID reuse), cumulative kernel+user
    CPU seconds and working set bytes; plus the host's logical CPU count and total/available
    physical memory in bytes. Processes that cannot be opened keep their pid and name with
    ``None`` for what could not be read; they are never dropped silently.
Errors
    ``WindowsUnavailable`` when not running on Windows.

Real adapter: psutil on Windows (observe part 2). Fake: process tables per sample.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol


class WindowsUnavailable(OSError):
    """Not a Windows host."""


@dataclass(frozen=True)
class WindowsProcess:
    pid: int
    ppid: int | None
    name: str
    create_time_100ns: int | None
    cpu_seconds: float | None
    working_set_bytes: int | None


@dataclass(frozen=True)
class WindowsTable:
    processes: Sequence[WindowsProcess]
    logical_cpus: int
    memory_total_bytes: int
    memory_available_bytes: int


class WindowsProcesses(Protocol):
    def read(self) -> WindowsTable: ...
