"""Pressure evidence: the figures that support or refute "memory pressure", "paging", "disk waits"
and "CPU contention" (wsltop observes none of them). Evidence, not proof: each figure is what the
kernel or Windows counted, and each is null, with a warning saying why, when it cannot be read.

Linux (the primary distro's /proc, two samples): available memory, page cache and the swap-in/out
and major-fault rates (``meminfo``, ``vmstat``); PSI (``/proc/pressure/*``, present on current WSL
kernels, detected by reading it: the share of the last 10 s in which some (or all) runnable tasks
stalled on memory, I/O or CPU); per disk busy percent and read/write bytes per second
(``diskstats``); ``procs_blocked`` (``stat``). Windows (PDH, two samples, and the process table):
committed bytes and the commit limit, hard page faults per second (``Page Reads/sec``), the WSL
VM's working set (``vmmem``/``vmmemWSL``), physical disks, and the Hyper-V virtual processors' wait
per dispatch.

``Pressure.metrics()`` is the flat view the history keeps (``PRESSURE_METRICS``, one name per figure;
disks fold into the busiest disk and the sums of bytes).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from wslmcp.boundaries.pdh import (
    COMMIT_LIMIT,
    COMMITTED_BYTES,
    DISK_IDLE,
    DISK_READ_BYTES,
    DISK_WRITE_BYTES,
    PAGE_READS,
    VP_WAIT_PER_DISPATCH,
    CounterSample,
    RawCounter,
)
from wslmcp.boundaries.procfs import Mount, parse_mounts
from wslmcp.observe.procstat import DiskCounters, Psi, parse_diskstats, parse_fields, parse_psi
from wslmcp.observe.rates import Reading, rate

SECTOR_BYTES = 512
KIB = 1024
FILETIME_S = 1e-7  # a FILETIME tick

MEMORY_FIGURES = (
    "linux_total_bytes",
    "linux_available_bytes",
    "linux_used_bytes",
    "linux_cache_bytes",
    "swap_in_bytes_per_s",
    "swap_out_bytes_per_s",
    "major_faults_per_s",
    "psi_some_avg10",
    "psi_full_avg10",
    "windows_committed_bytes",
    "windows_commit_limit_bytes",
    "windows_hard_faults_per_s",
    "wsl_vm_working_set_bytes",
)
IO_FIGURES = ("psi_some_avg10", "psi_full_avg10")
DISK_FIGURES = ("disk_busy_percent", "disk_read_bytes_per_s", "disk_write_bytes_per_s")
CPU_FIGURES = ("psi_some_avg10", "procs_blocked", "hyperv_wait_per_dispatch_ns")
#: every pressure figure as the history and get_metric_series name it
PRESSURE_METRICS: tuple[str, ...] = (
    *(f"memory.{f}" for f in MEMORY_FIGURES),
    *(f"io.{f}" for f in IO_FIGURES),
    *(f"io.{side}_{f}" for side in ("linux", "windows") for f in DISK_FIGURES),
    *(f"cpu.{f}" for f in CPU_FIGURES),
)

Number = float | int | None


@dataclass(frozen=True)
class LinuxRaw:
    """One sample's pressure files, parsed (``None``: the file was not in the sample)."""

    meminfo: Mapping[bytes, int] | None  # kB
    vmstat: Mapping[bytes, int] | None
    psi: Mapping[str, Psi | None]
    procs_blocked: int | None
    disks: Mapping[str, DiskCounters] | None
    mounts: tuple[Mount, ...] | None


def parse_linux(files: Mapping[str, bytes]) -> LinuxRaw:
    meminfo, vmstat, mounts = files.get("meminfo"), files.get("vmstat"), files.get("mounts")
    return LinuxRaw(
        meminfo=parse_fields(meminfo, sep=b":") if meminfo is not None else None,
        vmstat=parse_fields(vmstat) if vmstat is not None else None,
        psi={r: parse_psi(files.get(f"pressure/{r}")) for r in ("cpu", "memory", "io")},
        procs_blocked=parse_fields(files.get("stat")).get(b"procs_blocked"),
        disks=parse_diskstats(files.get("diskstats")),
        mounts=tuple(parse_mounts(mounts)) if mounts is not None else None,
    )


@dataclass(frozen=True)
class Disk:
    name: str
    busy_percent: float | None
    read_bytes_per_s: float | None
    write_bytes_per_s: float | None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "busy_percent": _round(self.busy_percent),
            "read_bytes_per_s": _round(self.read_bytes_per_s),
            "write_bytes_per_s": _round(self.write_bytes_per_s),
        }


@dataclass
class Pressure:
    memory: dict[str, Number] = field(default_factory=lambda: dict.fromkeys(MEMORY_FIGURES))
    io: dict[str, Number] = field(default_factory=lambda: dict.fromkeys(IO_FIGURES))
    linux_disks: list[Disk] | None = None
    windows_disks: list[Disk] | None = None
    cpu: dict[str, Number] = field(default_factory=lambda: dict.fromkeys(CPU_FIGURES))
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "memory": {k: _round(v) for k, v in self.memory.items()},
            "io": {
                **{k: _round(v) for k, v in self.io.items()},
                "linux_disks": _disks_json(self.linux_disks),
                "windows_disks": _disks_json(self.windows_disks),
            },
            "cpu": {k: _round(v) for k, v in self.cpu.items()},
            "warnings": list(self.warnings),
        }

    def metrics(self) -> dict[str, float | None]:
        """Every figure of ``PRESSURE_METRICS`` (disks folded: the busiest, and sums of bytes)."""
        out: dict[str, float | None] = {}
        for group, values in (("memory", self.memory), ("io", self.io), ("cpu", self.cpu)):
            out.update({f"{group}.{k}": None if v is None else float(v) for k, v in values.items()})
        for side, disks in (("linux", self.linux_disks), ("windows", self.windows_disks)):
            out[f"io.{side}_disk_busy_percent"] = _fold(max, [d.busy_percent for d in disks or ()])
            out[f"io.{side}_disk_read_bytes_per_s"] = _fold(sum, [d.read_bytes_per_s for d in disks or ()])
            out[f"io.{side}_disk_write_bytes_per_s"] = _fold(sum, [d.write_bytes_per_s for d in disks or ()])
        return out


def _fold(how: Any, values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return float(how(known)) if known else None


def _round(value: Number) -> Number:
    return round(value, 2) if isinstance(value, float) else value


def _disks_json(disks: list[Disk] | None) -> list[dict[str, Any]] | None:
    return None if disks is None else [d.to_json() for d in disks]


def linux_pressure(
    before: LinuxRaw | None, after: LinuxRaw, seconds: float | None, page_size: int, into: Pressure
) -> None:
    """The Linux figures of ``after`` (rates over ``seconds`` since ``before``) into ``into``."""
    _linux_memory(after, into)
    _linux_rates(before, after, seconds, page_size, into)
    missing = [r for r in ("memory", "io", "cpu") if after.psi.get(r) is None]
    for resource, psi in after.psi.items():
        target = into.memory if resource == "memory" else into.io if resource == "io" else into.cpu
        if psi is not None:
            target["psi_some_avg10"] = psi.some_avg10
            if resource != "cpu":
                target["psi_full_avg10"] = psi.full_avg10
    if missing:
        into.warnings.append(
            f"PSI is not available ({', '.join(f'/proc/pressure/{r}' for r in missing)} not read: a kernel "
            "without PSI, or a recording made before it was read); those psi_* figures are null"
        )
    into.cpu["procs_blocked"] = after.procs_blocked
    if after.disks is None:
        into.warnings.append(_not_read("/proc/diskstats", "io.linux_disks"))
    elif before is None or before.disks is None or seconds is None or not seconds > 0:
        into.warnings.append("Linux disk rates need two samples; io.linux_disks is null")
    else:
        earlier = before.disks
        into.linux_disks = [
            _linux_disk(name, earlier.get(name), now, seconds) for name, now in sorted(after.disks.items())
        ]


def _not_read(what: str, figures: str) -> str:
    return f"{what} was not read (unreadable, or a recording made before it was read); {figures} null"


def _linux_memory(after: LinuxRaw, into: Pressure) -> None:
    info = after.meminfo or {}
    total, available, cached = (
        info[k] * KIB if k in info else None for k in (b"MemTotal", b"MemAvailable", b"Cached")
    )
    into.memory.update(
        linux_total_bytes=total,
        linux_available_bytes=available,
        linux_used_bytes=total - available
        if total is not None and available is not None and 0 <= available <= total
        else None,
        linux_cache_bytes=cached + info.get(b"Buffers", 0) * KIB if cached is not None else None,
    )
    unread = [
        k for k, v in (("MemTotal", total), ("MemAvailable", available), ("Cached", cached)) if v is None
    ]
    if unread:
        into.warnings.append(
            f"/proc/meminfo has no {', '.join(unread)}: the linux_* memory figures from it are null"
        )


def _linux_rates(
    before: LinuxRaw | None, after: LinuxRaw, seconds: float | None, page_size: int, into: Pressure
) -> None:
    if after.vmstat is None:
        into.warnings.append(_not_read("/proc/vmstat", "swap_in/out_bytes_per_s and major_faults_per_s are"))
        return
    if before is None or before.vmstat is None or seconds is None or not seconds > 0:
        into.warnings.append("swap and major-fault rates need two samples; they are null")
        return
    then, now = before.vmstat, after.vmstat
    for name, key, per_unit in (
        ("swap_in_bytes_per_s", b"pswpin", 1 / page_size),  # pages, as bytes
        ("swap_out_bytes_per_s", b"pswpout", 1 / page_size),
        ("major_faults_per_s", b"pgmajfault", 1.0),
    ):
        a, b = then.get(key), now.get(key)
        into.memory[name] = (
            rate(Reading(a, 0.0), Reading(b, seconds), per_unit) if a is not None and b is not None else None
        )


def _linux_disk(name: str, before: DiskCounters | None, now: DiskCounters, seconds: float) -> Disk:
    if before is None or any(
        b < a
        for a, b in (
            (before.sectors_read, now.sectors_read),
            (before.sectors_written, now.sectors_written),
            (before.io_ms, now.io_ms),
        )
    ):
        return Disk(name, None, None, None)
    busy = min(100.0, (now.io_ms - before.io_ms) / 10.0 / seconds)  # ms busy per ms elapsed, as %
    return Disk(
        name,
        busy,
        (now.sectors_read - before.sectors_read) * SECTOR_BYTES / seconds,
        (now.sectors_written - before.sectors_written) * SECTOR_BYTES / seconds,
    )


WINDOWS_FIGURES_ABSENT = (
    "The Windows figures (windows_* memory, wsl_vm_working_set_bytes, io.windows_disks, "
    "cpu.hyperv_wait_per_dispatch_ns) are read only by a server running on Windows; null here"
)


def windows_pressure(
    before: CounterSample | None,
    after: CounterSample | None,
    seconds: float,
    wsl_vm_working_set: int | None,
    into: Pressure,
) -> None:
    """The Windows figures from two PDH samples (rates over ``seconds`` when their own timestamps
    do not advance) and the WSL VM host's working set, into ``into``."""
    into.memory["wsl_vm_working_set_bytes"] = wsl_vm_working_set
    if before is None or after is None:
        into.warnings.append(
            "PDH was not sampled on this host: the windows_* memory figures, io.windows_disks and "
            "cpu.hyperv_wait_per_dispatch_ns are null"
        )
        return
    unread = [
        p for p in (COMMITTED_BYTES, COMMIT_LIMIT, PAGE_READS, DISK_IDLE) if after.counters.get(p) is None
    ]
    into.memory["windows_committed_bytes"] = _gauge(after, COMMITTED_BYTES)
    into.memory["windows_commit_limit_bytes"] = _gauge(after, COMMIT_LIMIT)
    into.memory["windows_hard_faults_per_s"] = _per_second(before, after, PAGE_READS, seconds)
    if after.counters.get(DISK_IDLE) is not None:
        into.windows_disks = _windows_disks(before, after, seconds)
    into.cpu["hyperv_wait_per_dispatch_ns"] = _average(before, after, VP_WAIT_PER_DISPATCH)
    if unread:
        into.warnings.append(
            f"PDH counters not available on this host or not recorded ({', '.join(unread)}); "
            "the figures read from them are null"
        )


def _valid(counter: RawCounter | None) -> RawCounter | None:
    return counter if counter is not None and counter.status <= 1 and counter.first_value >= 0 else None


def _single(sample: CounterSample, path: str) -> RawCounter | None:
    """A counter without instances (PDH lists it as one item)."""
    instances = sample.counters.get(path)
    return _valid(next(iter(instances.values()), None)) if instances else None


def _gauge(sample: CounterSample, path: str) -> int | None:
    counter = _single(sample, path)
    return counter.first_value if counter is not None else None


def _elapsed(a: RawCounter, b: RawCounter, fallback: float) -> float:
    stamped = (b.timestamp_100ns - a.timestamp_100ns) * FILETIME_S
    return stamped if stamped > 0 else fallback


def _per_second(before: CounterSample, after: CounterSample, path: str, seconds: float) -> float | None:
    a, b = _single(before, path), _single(after, path)
    return _count_rate(a, b, seconds)


def _count_rate(a: RawCounter | None, b: RawCounter | None, seconds: float) -> float | None:
    """A count's rate per second between two readings (timed by PDH, else ``seconds`` apart)."""
    if a is None or b is None:
        return None
    return rate(Reading(a.first_value, 0.0), Reading(b.first_value, _elapsed(a, b, seconds)))


def _windows_disks(before: CounterSample, after: CounterSample, seconds: float) -> list[Disk]:
    idle_now = after.counters.get(DISK_IDLE) or {}
    idle_then = before.counters.get(DISK_IDLE) or {}
    disks = []
    for name, now in idle_now.items():
        a, b = _valid(idle_then.get(name)), _valid(now)
        busy = None
        if a is not None and b is not None and b.first_value >= a.first_value:
            base = b.second_value - a.second_value
            if base <= 0:
                base = b.timestamp_100ns - a.timestamp_100ns
            if base > 0:
                busy = max(0.0, min(100.0, 100.0 - 100.0 * (b.first_value - a.first_value) / base))
        disks.append(
            Disk(
                name,
                busy,
                _count_rate(
                    _instance(before, DISK_READ_BYTES, name), _instance(after, DISK_READ_BYTES, name), seconds
                ),
                _count_rate(
                    _instance(before, DISK_WRITE_BYTES, name),
                    _instance(after, DISK_WRITE_BYTES, name),
                    seconds,
                ),
            )
        )
    return disks


def _instance(sample: CounterSample, path: str, name: str) -> RawCounter | None:
    instances = sample.counters.get(path)
    return _valid(instances.get(name)) if instances else None


def _average(before: CounterSample, after: CounterSample, path: str) -> float | None:
    """Σ Δ(FirstValue) / Σ Δ(SecondValue) over the instances both samples hold (an average per
    event over the window); None when nothing happened or a counter went back."""
    then, now = before.counters.get(path) or {}, after.counters.get(path) or {}
    total = events = 0
    for name, b in now.items():
        a = then.get(name)
        if _valid(a) is None or _valid(b) is None or a is None:
            continue
        if b.first_value < a.first_value or b.second_value < a.second_value:
            return None
        total += b.first_value - a.first_value
        events += b.second_value - a.second_value
    return total / events if events > 0 else None
