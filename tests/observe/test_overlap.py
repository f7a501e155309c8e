"""Overlap separation from counters: same-kernel check on the daemon's system counter, a common
window on the kernel-total axis, exclusive WSL CPU, and each unresolved reason."""

from __future__ import annotations

import pytest

from wslmcp.observe.docker import CpuPoint
from wslmcp.observe.overlap import NS, KernelPoint, kernel_point, separate
from wslmcp.observe.procstat import parse_kernel

CPUS = 8  # the WSL kernel sees 8 CPUs; the host has 16


def kpoint(t: float, busy_share: float, t0: float = 1000.0) -> KernelPoint:
    """The kernel at time ``t`` s, busy ``busy_share`` of its CPUs since ``t0``."""
    return KernelPoint(t * CPUS * NS, (t - t0) * CPUS * NS * busy_share)


def dpoint(t: float, cores: float, t0: float = 1000.0) -> CpuPoint:
    return CpuPoint(int((t - t0) * cores * NS), int(t * CPUS * NS), CPUS)


KERNEL = [kpoint(1000.0, 0.0), kpoint(1003.0, 1.0)]  # 8 cores over 3 s = 50 % of 16 host CPUs


def test_the_worked_example_kernel_50_docker_10_leaves_wsl_40() -> None:
    web = (dpoint(1000.5, 1.6), dpoint(1002.5, 1.6))  # 1.6 cores = 10 % of 16
    got = separate(KERNEL, CPUS, 16, {"web": web})
    assert not got.unresolved and got.same_kernel == 1
    assert got.docker == pytest.approx(10.0) and got.wsl == pytest.approx(40.0)


def test_containers_on_another_kernel_are_unresolved() -> None:
    far = (CpuPoint(0, 10 * NS, 4), CpuPoint(NS, 14 * NS, 4))  # a daemon whose kernel booted 2 s ago
    got = separate(KERNEL, CPUS, 16, {"remote": far})
    assert got.unresolved and got.reason == "container belongs to another kernel" and got.wsl is None


def test_stale_readings_are_unresolved() -> None:
    old = (dpoint(980.0, 1.0), dpoint(985.0, 1.0))  # 15 s before the kernel window
    got = separate(KERNEL, CPUS, 16, {"web": old})
    assert got.unresolved and got.reason == "container counters stale"


def test_a_too_short_common_window_is_unresolved() -> None:
    short = (dpoint(1002.8, 1.0), dpoint(1002.9, 1.0))
    assert separate(KERNEL, CPUS, 16, {"web": short}).reason == "common CPU window warming up or incomplete"


def test_containers_busier_than_the_kernel_are_unresolved_never_clamped() -> None:
    busy = (dpoint(1000.5, 9.0), dpoint(1002.5, 9.0))
    got = separate(KERNEL, CPUS, 16, {"web": busy})
    assert got.unresolved and got.reason == "container CPU exceeds WSL CPU in common window"


def test_without_kernel_counters_it_is_unresolved() -> None:
    assert separate(KERNEL[:1], CPUS, 16, {"web": (dpoint(1000.5, 1), dpoint(1002.5, 1))}).unresolved


def test_kernel_points_count_idle_and_iowait_like_dockerd() -> None:
    stat = b"cpu  100 5 50 1000 20 3 2 7 0 0\ncpu0 100 5 50 1000 20 3 2 7 0 0\n"
    k = parse_kernel({"stat": stat, "uptime": b"10.0 9.0\n", "sys/kernel/random/boot_id": b"x\n"})
    p = kernel_point(k, 100)
    assert p is not None and p.total_ns == 1180 * NS / 100 and p.busy_ns == 160 * NS / 100
