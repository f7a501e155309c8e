"""From two raw samples to rows and a summary: per-process CPU from matched deltas, kernel WSL CPU.

A process's CPU rate needs the *same* process in both samples: same PID and same ``starttime``.
A PID reused by a new process, or a process that started between the samples, has no rate
(``cpu_percent`` null) rather than a bogus one. Percentages use the host-wide scale: all
``host_cpus`` logical CPUs are 100.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from wslmcp.boundaries.procfs import ProcSample
from wslmcp.observe.host import HostRaw
from wslmcp.observe.model import Environment, EnvObservation, Identity, Observed
from wslmcp.observe.procstat import (
    Command,
    KernelCounters,
    PidStat,
    count_cpus,
    kernel_cpu_percent,
    parse_cmdline,
    parse_kernel,
    parse_pid_stat,
    process_name,
)


@dataclass(frozen=True)
class ParsedProc:
    processes: Mapping[int, tuple[PidStat, Command]]
    kernel: KernelCounters | None
    cpu_count: int
    clk_tck: int
    page_size: int


def parse_sample(sample: ProcSample) -> ParsedProc:
    files = sample.files
    processes: dict[int, tuple[PidStat, Command]] = {}
    for pid in sample.pids:
        raw = files.get(f"{pid}/stat")
        if raw is None:
            continue
        stat = parse_pid_stat(raw)
        if stat is None or stat.pid != pid:
            continue
        processes[pid] = (stat, parse_cmdline(files.get(f"{pid}/cmdline")))
    kernel = parse_kernel(files)
    return ParsedProc(
        processes=processes,
        kernel=kernel,
        cpu_count=kernel.cpu_count if kernel is not None else count_cpus(files.get("stat")),
        clk_tck=sample.clk_tck,
        page_size=sample.page_size,
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
    elapsed = after.taken_at - before.taken_at
    rows: list[Observed] = []
    sources: list[tuple[str | None, ParsedProc, ParsedProc | None]] = [(None, after.primary, before.primary)]
    sources += [(name, parsed, before.extras.get(name)) for name, parsed in after.extras.items()]
    for source, now, prev in sources:
        clk = now.clk_tck if now.clk_tck > 0 else 100
        earlier = prev.processes if prev is not None and prev.clk_tck == now.clk_tck else {}
        for pid, (stat, cmd) in now.processes.items():
            ticks = stat.utime + stat.stime
            cpu: float | None = None
            old = earlier.get(pid)
            if old is not None and old[0].starttime == stat.starttime and elapsed > 0 and host_cpus > 0:
                delta = ticks - old[0].utime - old[0].stime
                if delta >= 0:
                    cpu = delta / clk / elapsed / host_cpus * 100.0
            name = process_name(stat.comm, cmd)
            env: Environment = "wsl"
            rows.append(
                Observed(
                    identity=Identity(
                        environment=env,
                        kind="infra" if name.lower() == "plan9" else "process",
                        source=source,
                        native_id=str(pid),
                        start_id=stat.starttime,
                    ),
                    name=name,
                    pid=pid,
                    ppid=stat.ppid,
                    args=cmd.args,
                    cpu_percent=cpu,
                    cpu_time_seconds=ticks / clk,
                    memory_bytes=stat.rss_pages * now.page_size,
                )
            )
    return rows


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
