"""From two raw samples to rows and a summary: per-process CPU by identity, kernel WSL CPU.

A process's CPU rate is a rate by identity (``rates``): the *same* process in both samples, the same
PID and the same ``starttime``. A process that is new in the closing sample (born inside the window,
or a PID reused by a new process) counted zero CPU when it started, so its rate is over the part
of the window it lived: its start time (``starttime`` ticks after boot) against the kernel's
``uptime``. Only a process that was already running before the window and is missing from the
opening sample (a distro sampled for the first time, a changed tick rate) has no rate
(``cpu_percent`` null). Percentages use the host-wide scale: all ``host_cpus`` logical CPUs are 100.

Children that begin and end between two samples are in no sample; the parent that waits for one
adds its CPU to its own children counter (``cutime`` + ``cstime``). That counter's growth, less what
the samples saw of the children that ended, is the process's ``exited_children_cpu_s``: compiler
churn under ``make`` is charged to ``make`` rather than lost.

A WSL process's parent is the process its ``ppid`` names when that process is in the same
sample and started no later than the child (a reused PID is never taken for a parent).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial

from wslmcp.boundaries.procfs import Mount, ProcSample, mount_of
from wslmcp.observe.host import HostRaw
from wslmcp.observe.model import EnvObservation, Identity, Observed
from wslmcp.observe.pressure import LinuxRaw, parse_linux
from wslmcp.observe.procstat import (
    Command,
    KernelCounters,
    PidStat,
    count_cpus,
    kernel_cpu_percent,
    parse_cmdline,
    parse_kernel,
    parse_pid_stat,
    parse_uptime,
    process_name,
)
from wslmcp.observe.rates import Reading, at_most, born, opening, rate, spent


@dataclass(frozen=True)
class ParsedProc:
    processes: Mapping[int, tuple[PidStat, Command]]
    kernel: KernelCounters | None
    cpu_count: int
    clk_tck: int
    page_size: int
    uptime_s: float | None = None  # the kernel's uptime when the sample was read
    linux: LinuxRaw | None = None  # the pressure files
    cwds: Mapping[int, bytes] = field(default_factory=dict)  # working directories read
    stats: Mapping[int, bytes] = field(default_factory=dict)  # the raw stat lines (a next parse reuses them)


def parse_sample(sample: ProcSample, previous: ParsedProc | None = None) -> ParsedProc:
    """Parse one sample. With ``previous`` (the same distro's last sample, when this one was read
    light for its processes): a stat line byte-identical to its previous one is not parsed again
    (an idle process's usually is), and a process whose command line and working directory were
    left out keeps those of the same process (PID and start time) in ``previous``."""
    files = sample.files
    processes: dict[int, tuple[PidStat, Command]] = {}
    cwds: dict[int, bytes] = {}
    stats: dict[int, bytes] = {}
    for pid in sample.pids:
        raw = files.get(f"{pid}/stat")
        if raw is None:
            continue
        known = previous.processes.get(pid) if previous is not None else None
        stat = (
            known[0]
            if known is not None and previous is not None and previous.stats.get(pid) == raw
            else parse_pid_stat(raw)
        )
        if stat is None or stat.pid != pid:
            continue
        same = known is not None and known[0].starttime == stat.starttime
        cmdline, cwd = files.get(f"{pid}/cmdline"), files.get(f"{pid}/cwd")
        processes[pid] = (stat, known[1] if cmdline is None and same and known else parse_cmdline(cmdline))
        if cwd is None and same and previous is not None:
            cwd = previous.cwds.get(pid)
        if cwd is not None:
            cwds[pid] = cwd
        stats[pid] = raw
    kernel = parse_kernel(files)
    return ParsedProc(
        processes=processes,
        kernel=kernel,
        cpu_count=kernel.cpu_count if kernel is not None else count_cpus(files.get("stat")),
        clk_tck=sample.clk_tck,
        page_size=sample.page_size,
        uptime_s=parse_uptime(files.get("uptime")),
        linux=parse_linux(files),
        cwds=cwds,
        stats=stats,
    )


@dataclass(frozen=True)
class RawSample:
    """One capture of every distro: the primary (``None`` source) and the additional ones by name."""

    taken_at: float  # monotonic seconds when the capture started
    primary: ParsedProc
    extras: Mapping[str, ParsedProc] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    host: HostRaw | None = None  # the Windows side read at the same time (None: not observed)


def process_rows(before: RawSample, after: RawSample, host_cpus: int) -> list[Observed]:
    """Every WSL process of ``after`` (the primary, then the additional distros), with its rate over
    the window and its observed parent process."""
    rows: list[Observed] = []
    pairs: list[tuple[str | None, ParsedProc, ParsedProc | None]] = [(None, after.primary, before.primary)]
    pairs += [(name, parsed, before.extras.get(name)) for name, parsed in after.extras.items()]
    for source, now, prev in pairs:
        window = _Window(before.taken_at, after.taken_at, prev, now)
        rows += _distro_rows(source, now, window, host_cpus)
    return rows


@dataclass(frozen=True)
class _Window:
    """One distro's collection window: the monotonic ends, and the kernel's uptime at both."""

    start: float
    end: float
    prev: ParsedProc | None
    now: ParsedProc

    @property
    def clk(self) -> int:
        return self.now.clk_tck if self.now.clk_tck > 0 else 100

    def earlier(self) -> dict[tuple[int, int], Reading]:
        """The opening readings by identity; none when the tick rate changed (ticks differ in size)."""
        prev = self.prev
        if prev is None or prev.clk_tck != self.now.clk_tck:
            return {}
        return {
            (pid, stat.starttime): Reading(stat.utime + stat.stime, self.start)
            for pid, (stat, _) in prev.processes.items()
        }

    def vanished(self) -> dict[int, int]:
        """Per surviving PID, the last ticks seen (own and children's) of the processes the opening
        sample listed and the closing one does not: the part of their CPU a sample already saw, which
        comes back in the children counter of the nearest ancestor still running (a compiler's
        through its compiler driver's, when that ended too)."""
        prev = self.prev
        out: dict[int, int] = {}
        if prev is None:
            return out
        gone = {
            pid: stat
            for pid, (stat, _) in prev.processes.items()
            if (found := self.now.processes.get(pid)) is None or found[0].starttime != stat.starttime
        }
        for stat in gone.values():
            heir, hops = stat.ppid, 0
            while heir in gone and hops < len(gone):  # hops: a PID cycle in garbled samples ends
                heir, hops = gone[heir].ppid, hops + 1
            out[heir] = out.get(heir, 0) + stat.utime + stat.stime + stat.children_ticks
        return out

    def exited_children(self, stat: PidStat, vanished: Mapping[int, int]) -> float | None:
        """CPU seconds of the children ``stat``'s process reaped inside the window beyond what a
        sample saw of them: those that began and ended between two samples, and the last part of
        those that ended after one. None when the opening sample has no reading of the process."""
        if not stat.children_ticks:  # it never reaped a child (most processes): nothing, known
            return 0.0
        prev = self.prev
        if prev is None or prev.clk_tck != self.now.clk_tck:
            return None
        found = prev.processes.get(stat.pid)
        if found is not None and found[0].starttime == stat.starttime:
            before = found[0].children_ticks
        elif self.birth(stat) is not None:
            before = 0
        else:
            return None
        return max(0, stat.children_ticks - before - vanished.get(stat.pid, 0)) / self.clk

    def birth(self, stat: PidStat) -> Reading | None:
        """A new process's first reading (zero CPU when it started), when it started inside the
        window; None when it was already running before (it should have been in the opening sample)."""
        if self.prev is None or self.prev.clk_tck != self.now.clk_tck:
            return None
        up_now, up_then = self.now.uptime_s, self.prev.uptime_s
        tick = 1.0 / self.clk
        if up_now is None or up_then is None:  # not in the opening sample: started after it was listed
            return born(None, self.start, self.end, tick)
        started = stat.starttime / self.clk
        if started < up_then - tick:
            return None
        return born(self.end - (up_now - started), self.start, self.end, tick)


def _distro_rows(source: str | None, now: ParsedProc, window: _Window, host_cpus: int) -> list[Observed]:
    earlier, vanished = window.earlier(), window.vanished()
    on_drive = _DriveLookup(now.linux.mounts if now.linux is not None else None)
    names = {pid: process_name(stat.comm, cmd) for pid, (stat, cmd) in now.processes.items()}
    identities = {
        pid: Identity(
            "wsl", "infra" if names[pid].lower() == "plan9" else "process", source, str(pid), stat.starttime
        )
        for pid, (stat, _) in now.processes.items()
    }
    clk, scale = window.clk, (100.0 / host_cpus if host_cpus > 0 else 0.0)
    rows: list[Observed] = []
    for pid, (stat, cmd) in now.processes.items():
        ticks = stat.utime + stat.stime
        last = Reading(ticks, window.end)
        first = opening((pid, stat.starttime), earlier, partial(window.birth, stat))
        cores = at_most(rate(first, last, clk), now.cpu_count)
        parent = _parent(stat, now)
        rows.append(
            Observed(
                identity=identities[pid],
                name=names[pid],
                pid=pid,
                ppid=stat.ppid,
                args=cmd.args,
                cpu_percent=cores * scale if cores is not None and scale else None,
                cpu_time_seconds=ticks / clk,
                memory_bytes=stat.rss_pages * now.page_size,
                parents=(identities[parent],) if parent is not None else (),
                cwd_on_windows_drive=on_drive(now.cwds.get(pid)),
                cpu_seconds_used=spent(first, last, clk),
                exited_children_cpu_s=window.exited_children(stat, vanished),
            )
        )
    return rows


WINDOWS_DRIVE_TYPES = (b"9p", b"drvfs")  # how WSL mounts Windows drives (/mnt/c): 9P in WSL 2
BUSY_CORES = 0.05  # a process using at least this much of one core, or waiting on I/O, is busy


class _DriveLookup:
    """Whether a working directory lies on a Windows drive, each distinct directory looked up once
    (a thousand processes share a handful)."""

    def __init__(self, mounts: Sequence[Mount] | None) -> None:
        self._mounts = mounts
        self._seen: dict[bytes, bool] = {}

    def __call__(self, cwd: bytes | None) -> bool | None:
        if cwd is None or self._mounts is None:
            return None
        found = self._seen.get(cwd)
        if found is None:
            mount = mount_of(cwd, self._mounts)
            found = self._seen[cwd] = mount is not None and mount.fstype in WINDOWS_DRIVE_TYPES
        return found


def drive_warning(after: RawSample, rows: Sequence[Observed], host_cpus: int) -> str | None:
    """A warning when busy WSL processes work on a Windows drive: which mount, which processes, why."""
    linux = after.primary.linux
    mounts = linux.mounts if linux is not None else None
    if not mounts:
        return None
    busy: dict[bytes, list[str]] = {}
    for row in rows:
        if not row.cwd_on_windows_drive or row.identity.source is not None or row.pid is None:
            continue
        stat = after.primary.processes.get(row.pid)
        cores = (row.cpu_percent or 0.0) * host_cpus / 100.0
        if cores >= BUSY_CORES or (stat is not None and stat[0].state == "D"):
            found = mount_of(after.primary.cwds.get(row.pid, b""), mounts)
            if found is not None:
                busy.setdefault(found.point, []).append(row.name)
    if not busy:
        return None
    where = "; ".join(
        f"{point.decode(errors='replace')} ({', '.join(sorted(set(names))[:5])})"
        for point, names in busy.items()
    )
    return (
        f"Busy WSL processes work on a Windows drive: {where}. Such a mount is the Windows file system "
        "reached over 9P: every file operation crosses the VM boundary and is many times slower than on "
        "the distro's own ext4 file system, which can make builds and installs slow; keep such work "
        "under the Linux file system (e.g. ~/) if file access is the bottleneck"
    )


def _parent(stat: PidStat, now: ParsedProc) -> int | None:
    """The PID of ``stat``'s parent when it is in the same sample and started no later than the
    child (ties broken by PID, so two processes of one tick never name each other)."""
    found = now.processes.get(stat.ppid)
    if found is None or stat.ppid == stat.pid:
        return None
    parent = found[0]
    if (parent.starttime, parent.pid) < (stat.starttime, stat.pid):
        return parent.pid
    return None


def wsl_environment(
    before: RawSample, after: RawSample, rows: list[Observed], host_cpus: int
) -> tuple[EnvObservation, list[str]]:
    """WSL CPU from the primary's kernel counters (covers every distro on the shared kernel);
    WSL memory as the sum of observed process RSS, only when every capture was complete."""
    warnings: list[str] = []
    cpu = (
        kernel_cpu_percent(before.primary.kernel, after.primary.kernel, after.primary.clk_tck, host_cpus)
        if before.primary.clk_tck == after.primary.clk_tck
        else None
    )
    if cpu is None:
        warnings.append(
            "WSL kernel CPU counters unavailable or inconsistent between samples; WSL cpu_percent is null"
        )
    complete = not before.warnings and not after.warnings and set(before.extras) == set(after.extras)
    memory = sum(r.memory_bytes or 0 for r in rows) if complete else None
    if not complete:
        warnings.append("WSL process collection was incomplete; WSL memory_bytes is null")
    return EnvObservation(cpu_percent=cpu, memory_bytes=memory), warnings
