"""The host CPU breakdown from two PDH samples (Hyper-V partitions) or from system CPU times (no
hypervisor): the reference's math and every null rule; nothing is ever clamped."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from wslmcp.boundaries.pdh import (
    GUEST_PROCESSORS,
    LOGICAL_PROCESSORS,
    ROOT_PROCESSORS,
    CounterSample,
    RawCounter,
    SystemCpuTimes,
)
from wslmcp.observe.hyperv import breakdown

BASE = 10_000_000  # 1 s of 100 ns per instance between the samples


def raw(first: int, second: int, status: int = 0) -> RawCounter:
    return RawCounter(first, second, 133_000_000_000_000_000 + second, status)


def sets(lp: list[int], root: list[int], guest: Mapping[str, int], *, t: int = 1) -> CounterSample:
    """Sample ``t`` (1 = before, 2 = after) of instances busy ``b``/1000 of the time in between."""

    def inst(names: list[str], busy: list[int]) -> dict[str, RawCounter]:
        return {n: raw(b * (t - 1) * BASE // 1000, t * BASE) for n, b in zip(names, busy, strict=True)}

    return CounterSample(
        counters={
            LOGICAL_PROCESSORS: inst([f"Hv LP {i}" for i in range(len(lp))], lp),
            ROOT_PROCESSORS: inst([f"Root VP {i}" for i in range(len(root))], root),
            GUEST_PROCESSORS: inst(list(guest), list(guest.values())),
        }
    )


def test_hyperv_partitions_sum_instances_over_the_host_cpu_count() -> None:
    # 4 LPs: 50 % each => total 50; root VPs 10 % each => windows 10; two guest VPs 60 % + 20 % => 20
    before = sets([0, 0, 0, 0], [0, 0, 0, 0], {"WSL:Hv VP 0": 0, "WSL:Hv VP 1": 0})
    after = sets([500] * 4, [100] * 4, {"WSL:Hv VP 0": 600, "WSL:Hv VP 1": 200}, t=2)
    got = breakdown(before, after, 4)
    assert got.value == pytest.approx(
        {"total": 50.0, "windows": 10.0, "virtual_machines": 20.0, "other": 20.0}
    )
    assert got.kind == "hyperv" and got.reason is None


def test_guest_vcpu_count_is_not_the_denominator() -> None:
    before = sets([0, 0], [0, 0], {"a:Hv VP 0": 0, "b:Hv VP 0": 0, "b:Hv VP 1": 0})
    after = sets([900, 900], [100, 100], {"a:Hv VP 0": 500, "b:Hv VP 0": 500, "b:Hv VP 1": 500}, t=2)
    got = breakdown(before, after, 2)
    assert got.value is not None and got.value["virtual_machines"] == pytest.approx(75.0)  # 1.5 cores of 2


@pytest.mark.parametrize(
    ("lp", "root", "why"),
    [([500, 500, 500], [100] * 4, "logical"), ([500] * 4, [100] * 3, "root")],
)
def test_instance_counts_must_equal_the_host_cpu_count(lp: list[int], root: list[int], why: str) -> None:
    before = sets([0] * len(lp), [0] * len(root), {})
    after = sets(lp, root, {}, t=2)
    got = breakdown(before, after, 4)
    assert got.value is None and got.reason is not None and why in got.reason


def test_instance_sets_must_match_between_samples() -> None:
    before = sets([0, 0], [0, 0], {"WSL:Hv VP 0": 0})
    after = sets([500, 500], [100, 100], {"WSL:Hv VP 0": 300, "new:Hv VP 0": 100}, t=2)
    got = breakdown(before, after, 2)
    assert got.value is None and got.reason is not None and "changed" in got.reason


def _one(lp: RawCounter, later: RawCounter) -> tuple[CounterSample, CounterSample]:
    def s(c: RawCounter) -> CounterSample:
        return CounterSample(
            {
                LOGICAL_PROCESSORS: {"Hv LP 0": c},
                ROOT_PROCESSORS: {"Root VP 0": raw(0, c.second_value)},
                GUEST_PROCESSORS: {},
            }
        )

    return s(lp), s(later)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (raw(0, 100), raw(50, 100)),  # no elapsed base
        (raw(0, 100), raw(150, 200)),  # busy grew more than the base
        (raw(80, 100), raw(50, 200)),  # busy went backwards
        (raw(0, 100), raw(50, 200, status=0xC0000BC6)),  # a status above 1
        (raw(-1, 100), raw(50, 200)),  # negative first value
        (raw(0, 0), raw(50, 200)),  # non-positive second value
    ],
)
def test_any_unusable_counter_makes_the_breakdown_null(first: RawCounter, second: RawCounter) -> None:
    got = breakdown(*_one(first, second), 1)
    assert got.value is None and got.reason


def test_other_below_zero_or_total_above_100_is_null_never_clamped() -> None:
    before = sets([0, 0], [0, 0], {"WSL:Hv VP 0": 0})
    negative_other = sets([200, 200], [150, 150], {"WSL:Hv VP 0": 200}, t=2)  # 20 - 15 - 10 < 0
    got = breakdown(before, negative_other, 2)
    assert got.value is None and got.reason is not None and "other" in got.reason
    # a status of 1 ("new data") is usable
    exactly = sets([300, 300], [100, 100], {"WSL:Hv VP 0": 400}, t=2)  # 30 = 10 + 20, other 0
    ok = breakdown(before, exactly, 2)
    assert ok.value is not None and ok.value["other"] == 0.0  # exact: no -1e-17 from float sums


def test_a_fully_busy_host_is_exactly_100_and_accepted() -> None:
    before = sets([0], [0], {})
    after = sets([1000], [0], {}, t=2)
    assert breakdown(before, after, 1).value == {
        "total": 100.0,
        "windows": 0.0,
        "virtual_machines": 0.0,
        "other": 100.0,
    }


def test_a_missing_counter_set_without_native_times_is_null_with_a_reason() -> None:
    empty = CounterSample({LOGICAL_PROCESSORS: None, ROOT_PROCESSORS: None, GUEST_PROCESSORS: None})
    got = breakdown(empty, empty, 4)
    assert got.value is None and got.reason is not None and "system CPU times" in got.reason


def test_no_hypervisor_gives_the_native_breakdown_from_system_cpu_times() -> None:
    def s(user: float, system: float, idle: float) -> CounterSample:
        absent: dict[str, None] = dict.fromkeys((LOGICAL_PROCESSORS, ROOT_PROCESSORS, GUEST_PROCESSORS))
        return CounterSample(absent, native=SystemCpuTimes(user, system, idle))

    got = breakdown(s(100.0, 50.0, 850.0), s(130.0, 70.0, 950.0), 8)  # 50 busy of 150 elapsed
    assert got.kind == "native"
    assert got.value == pytest.approx(
        {"total": 100 / 3, "windows": 100 / 3, "virtual_machines": 0.0, "other": 0.0}
    )
    assert breakdown(s(100.0, 50.0, 850.0), s(100.0, 50.0, 850.0), 8).value is None  # no time passed
    assert breakdown(s(100.0, 50.0, 850.0), s(90.0, 50.0, 900.0), 8).value is None  # counter went back


def test_one_sample_with_hyperv_and_one_without_is_null() -> None:
    before = sets([0, 0], [0, 0], {})
    absent = CounterSample(
        dict.fromkeys((LOGICAL_PROCESSORS, ROOT_PROCESSORS, GUEST_PROCESSORS)), native=SystemCpuTimes(1, 1, 1)
    )
    assert breakdown(before, absent, 2).value is None
    assert breakdown(absent, before, 2).value is None
