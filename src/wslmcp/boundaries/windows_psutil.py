"""The real Windows-processes adapter: psutil (contract in ``wslmcp.boundaries.windows_processes``)."""

from __future__ import annotations

from typing import Any

import psutil

from wslmcp.boundaries.windows_processes import (
    WindowsProcess,
    WindowsTable,
    WindowsUnavailable,
    filetime_from_epoch,
)

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
