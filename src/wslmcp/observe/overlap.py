"""Separating container CPU from WSL CPU, computed from counters alone (no ``docker exec``).

Docker's stats carry, per reading, the container cgroup's ``total_usage`` and the daemon kernel's
``system_cpu_usage`` (user+nice+system+idle+iowait+irq+softirq of its ``/proc/stat``, in ns). The
primary distro's ``/proc/stat`` gives the same total for the WSL kernel, plus its busy time. So:

* **Same kernel?** A reading whose ``system_cpu_usage`` lies within the WSL kernel's totals of this
  collection (widened by ``SLACK_S`` seconds of all its CPUs: the daemon samples once a second)
  comes from the WSL kernel. Far outside (more than ``STALE_S``) it is another kernel (a remote or
  VM daemon); in between, the reading is stale. Either way the overlap is unresolved, as wsltop
  reports it: no separation is claimed that the counters do not show.
* **Common window**: the kernel total is a clock both sides share. The window is the overlap of
  the kernel's two samples and every same-kernel container's two readings, on that axis; each
  series is interpolated linearly at its ends. It must cover at least ``MIN_WINDOW_S`` seconds.
* **Exclusive WSL** = kernel busy rate − Σ container rates over that window, on the host scale;
  a negative result is unresolved, never clamped.

WSLC containers run in their own utility VM (the ``vmmemwslc-*`` host): when exactly one such host
is observed their CPU is not in the WSL kernel's and nothing is subtracted; without it, whether it
is cannot be verified and the overlap stays unresolved.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

from wslmcp.observe.docker import CpuPoint
from wslmcp.observe.procstat import KernelCounters

NS = 1_000_000_000
SLACK_S = 2.0
STALE_S = 60.0
MIN_WINDOW_S = 0.5


@dataclass(frozen=True)
class KernelPoint:
    total_ns: float  # CPU time of all the kernel's CPUs, idle included
    busy_ns: float


def kernel_point(k: KernelCounters | None, clk_tck: int) -> KernelPoint | None:
    if k is None or clk_tck <= 0 or k.all_ticks <= 0:
        return None
    return KernelPoint(k.all_ticks * NS / clk_tck, k.busy_ticks * NS / clk_tck)


@dataclass(frozen=True)
class Separation:
    unresolved: bool
    reason: str | None = None
    wsl: float | None = None  # exclusive WSL CPU (host scale), when resolved with same-kernel containers
    docker: float | None = None  # Σ same-kernel container rates over the common window
    same_kernel: int = 0


def _at(points: Sequence[tuple[float, float]], x: float) -> float | None:
    for (x0, y0), (x1, y1) in pairwise(points):
        if x0 <= x <= x1 and x1 > x0:
            return y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    return None


def separate(
    kernel: Sequence[KernelPoint],
    kernel_cpus: int,
    host_cpus: int,
    docker: Mapping[str, tuple[CpuPoint, CpuPoint]],
) -> Separation:
    """WSL CPU exclusive of the Docker containers that share its kernel, or the reason it cannot be."""
    if len(kernel) < 2 or kernel_cpus <= 0 or host_cpus <= 0:
        return Separation(True, "WSL kernel CPU counters unavailable")
    k = sorted(kernel, key=lambda p: p.total_ns)
    lo, hi = k[0].total_ns, k[-1].total_ns
    slack, stale = SLACK_S * kernel_cpus * NS, STALE_S * kernel_cpus * NS
    same: list[tuple[CpuPoint, CpuPoint]] = []
    for a, b in docker.values():
        outside = max(lo - a.system_ns, b.system_ns - hi, 0.0)
        if outside > stale:
            return Separation(True, "container belongs to another kernel")
        if outside > slack:
            return Separation(True, "container counters stale")
        same.append((a, b))
    if not same:
        return Separation(False)
    start = max([lo] + [a.system_ns for a, _ in same])
    end = min([hi] + [b.system_ns for _, b in same])
    if end - start < MIN_WINDOW_S * kernel_cpus * NS:
        return Separation(True, "common CPU window warming up or incomplete")
    series = [(p.total_ns, p.busy_ns) for p in k]
    busy0, busy1 = _at(series, start), _at(series, end)
    if busy0 is None or busy1 is None:
        return Separation(True, "common CPU window warming up or incomplete")
    scale = kernel_cpus / host_cpus * 100.0 / (end - start)
    containers = 0.0
    for a, b in same:
        line = [(float(a.system_ns), float(a.usage_ns)), (float(b.system_ns), float(b.usage_ns))]
        u0, u1 = _at(line, start), _at(line, end)
        if u0 is None or u1 is None or u1 < u0:
            return Separation(True, "CPU counter reset")
        containers += (u1 - u0) * scale
    wsl = (busy1 - busy0) * scale - containers
    if wsl < 0:
        return Separation(True, "container CPU exceeds WSL CPU in common window")
    return Separation(False, wsl=wsl, docker=containers, same_kernel=len(same))
