"""Parsing the raw /proc files of one sample: per-process ``stat`` and ``cmdline``, kernel counters.

Everything here takes the exact bytes the kernel wrote. A process's ``comm`` is whatever lies
between the first ``(`` and the *last* ``)`` of its ``stat`` line, so names holding spaces,
parentheses, newlines or invalid UTF-8 survive; bytes that are not UTF-8 become U+FFFD.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

# Field positions counted after the closing parenthesis (0 = state, man 5 proc field 3).
_STATE, _PPID, _UTIME, _STIME, _CUTIME, _CSTIME, _STARTTIME, _RSS = 0, 1, 11, 12, 13, 14, 19, 21


@dataclass(frozen=True, slots=True)
class PidStat:
    pid: int
    comm: str
    ppid: int
    utime: int
    stime: int
    starttime: int
    rss_pages: int
    state: str = "?"  # R running, S sleeping, D waiting on I/O (uninterruptible), Z zombie, ...
    # cutime + cstime: the ticks of the children it waited for (each adds its own and its waited-for
    # descendants' ticks when it is reaped)
    children_ticks: int = 0


def decode_name(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace")


def parse_pid_stat(data: bytes) -> PidStat | None:
    """``/proc/<pid>/stat`` or None when it is not a complete stat line (a process that vanished)."""
    open_at = data.find(b"(")
    close_at = data.rfind(b")")
    if open_at <= 0 or close_at < open_at:
        return None
    fields = data[close_at + 1 :].split(maxsplit=_RSS + 1)  # the fields up to RSS, the rest in one
    if len(fields) <= _RSS:
        return None
    try:
        return PidStat(
            pid=int(data[:open_at]),
            comm=decode_name(data[open_at + 1 : close_at]),
            ppid=int(fields[_PPID]),
            utime=int(fields[_UTIME]),
            stime=int(fields[_STIME]),
            starttime=int(fields[_STARTTIME]),
            rss_pages=max(0, int(fields[_RSS])),
            state=fields[_STATE].decode("ascii", errors="replace"),
            children_ticks=max(0, int(fields[_CUTIME]) + int(fields[_CSTIME])),
        )
    except ValueError:
        return None


@dataclass(frozen=True, slots=True)
class Command:
    name: str | None  # basename of argv[0]; None for an empty cmdline (kernel threads, zombies)
    args: str | None  # argv joined by spaces; None when empty


def parse_cmdline(data: bytes | None) -> Command:
    if not data:
        return Command(None, None)
    parts = data.split(b"\0")
    while parts and parts[-1] == b"":
        parts.pop()
    if not parts:
        return Command(None, None)
    argv0 = parts[0].rstrip(b"/").rsplit(b"/", 1)[-1]
    return Command(decode_name(argv0) or None, decode_name(b" ".join(parts)))


COMM_LIMIT = 15  # the kernel keeps the first 15 bytes of a command name


def process_name(comm: str, cmd: Command) -> str:
    """A process's display name: argv[0]'s basename when it agrees with the kernel's ``comm`` (equal,
    or ``comm`` cut at 15 characters and the basename extending it), else ``comm``.

    A process may rewrite its command line into a title (``node`` shows ``npm exec @scope/tool``,
    ``sshd`` shows ``sshd: user@pts/0``); a slash in such a title must not yield a name like
    ``call --tool-name``. ``comm`` is what the kernel runs, so it wins any disagreement.
    """
    if cmd.name is None:
        return comm
    if cmd.name == comm or (len(comm) >= COMM_LIMIT and cmd.name.startswith(comm)):
        return cmd.name
    return comm


@dataclass(frozen=True, slots=True)
class KernelCounters:
    """The shared kernel's CPU counters from one sample (USER_HZ ticks)."""

    busy: tuple[int, int, int, int, int]  # user, nice, system, irq, softirq
    cpu_count: int  # cpuN lines: the logical CPUs this kernel sees
    uptime_s: float
    boot_id: str
    # user+nice+system+idle+iowait+irq+softirq: the total dockerd reports as system_cpu_usage
    all_ticks: int = 0
    steal: int = 0  # time a hypervisor ran something else on these CPUs

    @property
    def elapsed_ticks(self) -> int:
        """Every tick of every CPU, whatever it did (guest time is inside user and nice): the time
        that passed, on the counters' own clock, times the CPUs."""
        return self.all_ticks + self.steal

    @property
    def busy_ticks(self) -> int:
        return sum(self.busy)


def count_cpus(stat: bytes | None) -> int:
    if not stat:
        return 0
    return sum(1 for line in stat.splitlines() if line.startswith(b"cpu") and line[3:4].isdigit())


def parse_uptime(data: bytes | None) -> float | None:
    """The first number of ``/proc/uptime`` (seconds since boot), or None."""
    try:
        value = float((data or b"").split()[0])
    except (ValueError, IndexError):
        return None
    return value if math.isfinite(value) and value >= 0 else None


def parse_kernel(files: Mapping[str, bytes]) -> KernelCounters | None:
    """Kernel counters from ``stat``, ``uptime`` and ``boot_id``; None when any is missing or malformed."""
    stat, uptime, boot = files.get("stat"), files.get("uptime"), files.get("sys/kernel/random/boot_id")
    if not stat or not uptime or not boot:
        return None
    first = stat.split(b"\n", 1)[0].split()
    if len(first) < 8 or first[0] != b"cpu":
        return None
    try:
        values = [int(v) for v in first[1:]]
        up = float(uptime.split()[0])
    except (ValueError, IndexError):
        return None
    if any(v < 0 for v in values) or not up >= 0:
        return None
    boot_id = boot.strip().decode("ascii", errors="replace")
    if not boot_id:
        return None
    busy = (values[0], values[1], values[2], values[5], values[6])
    return KernelCounters(
        busy=busy,
        cpu_count=count_cpus(stat),
        uptime_s=up,
        boot_id=boot_id,
        all_ticks=sum(values[:7]),
        steal=values[7] if len(values) > 7 else 0,
    )


def kernel_cpu_percent(
    before: KernelCounters | None, after: KernelCounters | None, clk_tck: int, host_cpus: int
) -> float | None:
    """Busy share of all ``host_cpus`` between two kernel samples taken at the same tick rate
    ``clk_tck``, or None when it cannot be trusted: a different boot or CPU count, no time passed,
    a counter going backwards.

    The time that passed is the counters' own (every CPU's ticks, idle and steal included), not
    ``/proc/uptime``: that file is read apart from ``/proc/stat`` and kept to 10 ms, so a rate over
    it lets a busy kernel read 101 %. On the counters' clock the kernel's busy share is at most 1,
    so the figure is at most ``cpu_count / host_cpus`` of the host, never above 100 %."""
    if before is None or after is None or host_cpus <= 0 or clk_tck <= 0:
        return None
    if before.boot_id != after.boot_id or before.cpu_count != after.cpu_count or after.cpu_count <= 0:
        return None
    elapsed = after.elapsed_ticks - before.elapsed_ticks
    if not elapsed > 0:
        return None
    if any(a < b for a, b in zip(after.busy, before.busy, strict=True)):
        return None
    share = (after.busy_ticks - before.busy_ticks) / elapsed
    value = share * min(after.cpu_count, host_cpus) / host_cpus * 100.0
    return value if math.isfinite(value) and value >= 0 else None


def parse_fields(data: bytes | None, *, sep: bytes | None = None) -> dict[bytes, int]:
    """``name value`` lines (``/proc/vmstat``; ``/proc/meminfo`` with ``sep=b":"``, in kB; the
    ``procs_*`` lines of ``/proc/stat``) as integers; lines that do not parse are left out."""
    out: dict[bytes, int] = {}
    for line in (data or b"").splitlines():
        name, _, rest = line.partition(sep) if sep else line.partition(b" ")
        value = rest.split()
        if name and value and value[0].isdigit():
            out[name.strip()] = int(value[0])
    return out


@dataclass(frozen=True, slots=True)
class Psi:
    """One ``/proc/pressure/<resource>`` file: the share of time (percent) some (or all) tasks
    stalled on the resource, averaged by the kernel over the last 10 s."""

    some_avg10: float | None
    full_avg10: float | None


def parse_psi(data: bytes | None) -> Psi | None:
    """None when the file is absent (a kernel without PSI, or a recording made before it was read)."""
    if data is None:
        return None
    found: dict[bytes, float] = {}
    for line in data.splitlines():
        kind, _, rest = line.partition(b" ")
        for item in rest.split():
            key, _, value = item.partition(b"=")
            if key == b"avg10":
                try:
                    found[kind] = float(value)
                except ValueError:
                    continue
    return Psi(found.get(b"some"), found.get(b"full"))


@dataclass(frozen=True, slots=True)
class DiskCounters:
    """One ``/proc/diskstats`` line: sectors (512 bytes) read and written, ms spent doing I/O."""

    sectors_read: int
    sectors_written: int
    io_ms: int


_SKIPPED_DISKS = (b"loop", b"ram")  # loop and RAM devices hold no disk of their own


def parse_diskstats(data: bytes | None) -> dict[str, DiskCounters] | None:
    """Whole disks by name (partitions, loop and RAM devices left out); None when absent."""
    if data is None:
        return None
    disks: dict[str, DiskCounters] = {}
    for line in data.splitlines():
        f = line.split()
        if len(f) < 14 or f[2].startswith(_SKIPPED_DISKS) or not all(x.isdigit() for x in f[3:14]):
            continue
        disks[f[2].decode("ascii", errors="replace")] = DiskCounters(int(f[5]), int(f[9]), int(f[12]))
    return {name: c for name, c in disks.items() if not _partition(name, disks)}


def _partition(name: str, disks: Mapping[str, DiskCounters]) -> bool:
    """``sda1`` of ``sda``, ``nvme0n1p2`` of ``nvme0n1``, ``mmcblk0p1`` of ``mmcblk0``."""
    base = name.rstrip("0123456789")
    if base == name:
        return False
    return (base in disks and base != name) or (base.endswith("p") and base[:-1] in disks)
