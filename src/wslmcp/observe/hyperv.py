"""The host CPU breakdown (``total``, ``windows``, ``virtual_machines``, ``other``) from two PDH samples.

Hyper-V host (the counter sets exist in both samples): per instance ``100 × Δbusy / Δbase / host
CPUs``; ``total`` = Σ logical processors, ``windows`` = Σ root virtual processors,
``virtual_machines`` = Σ guest virtual processors (the guests' vCPU count is *not* the
denominator), ``other`` = total − windows − virtual_machines (the hypervisor itself).

Null, with a reason, whenever a figure could be wrong: the logical or root instance count differs
from the host CPU count, an instance set changed between the samples, a status above 1, a
negative busy value, a non-positive base, a base that did not advance, busy going backwards or
growing faster than its base, ``other < 0`` or ``total > 100``. Nothing is clamped or rescaled.
Sums are exact (fractions of the integer raw values), so ``other`` is never a float-noise ``-1e-17``.

No hypervisor (the Hyper-V counter sets absent in both samples): the native breakdown from the
system CPU times, ``total = windows = 100 × Δ(user+system) / Δ(user+system+idle)``,
``virtual_machines = other = 0``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from wslmcp.boundaries.pdh import (
    GUEST_PROCESSORS,
    LOGICAL_PROCESSORS,
    ROOT_PROCESSORS,
    CounterSample,
    RawCounter,
    SystemCpuTimes,
)

_LABEL = {LOGICAL_PROCESSORS: "logical", ROOT_PROCESSORS: "root", GUEST_PROCESSORS: "guest"}


@dataclass(frozen=True)
class Breakdown:
    kind: Literal["hyperv", "native"] | None
    value: dict[str, float] | None
    reason: str | None = None  # why ``value`` is null


class _Unusable(ValueError):
    pass


def breakdown(before: CounterSample, after: CounterSample, host_cpus: int) -> Breakdown:
    if host_cpus <= 0:
        return Breakdown(None, None, "the host logical CPU count is unknown")
    present = [s.counters.get(LOGICAL_PROCESSORS) is not None for s in (before, after)]
    if present == [False, False]:
        return _native(before.native, after.native)
    if present != [True, True]:
        return Breakdown("hyperv", None, "the Hyper-V counter sets appeared or disappeared between samples")
    try:
        total = _share(before, after, LOGICAL_PROCESSORS, host_cpus, exact_count=True)
        windows = _share(before, after, ROOT_PROCESSORS, host_cpus, exact_count=True)
        guests = _share(before, after, GUEST_PROCESSORS, host_cpus, exact_count=False)
    except _Unusable as exc:
        return Breakdown("hyperv", None, str(exc))
    other = total - windows - guests
    if other < 0:
        return Breakdown(
            "hyperv", None, "Windows plus virtual machines exceed the logical processors (other < 0)"
        )
    if total > 100:
        return Breakdown("hyperv", None, "the logical processors add up to more than 100 %")
    return Breakdown(
        "hyperv",
        {
            "total": float(total),
            "windows": float(windows),
            "virtual_machines": float(guests),
            "other": float(other),
        },
    )


def _share(
    before: CounterSample, after: CounterSample, path: str, host_cpus: int, *, exact_count: bool
) -> Fraction:
    label = _LABEL[path]
    old, new = before.counters.get(path), after.counters.get(path)
    if old is None or new is None:
        raise _Unusable(f"the Hyper-V {label} processor counters are missing")
    if set(old) != set(new):
        raise _Unusable(f"the Hyper-V {label} processor instances changed between samples")
    if exact_count and len(new) != host_cpus:
        raise _Unusable(f"{len(new)} Hyper-V {label} processor instances for {host_cpus} host logical CPUs")
    return sum((_instance(label, name, old[name], new[name]) for name in new), Fraction(0)) * 100 / host_cpus


def _instance(label: str, name: str, a: RawCounter, b: RawCounter) -> Fraction:
    for c in (a, b):
        if c.status > 1 or c.first_value < 0 or c.second_value <= 0:
            raise _Unusable(f"the Hyper-V {label} counter {name!r} is not valid (status {c.status:#x})")
    busy, base = b.first_value - a.first_value, b.second_value - a.second_value
    if base <= 0 or busy < 0 or busy > base:
        raise _Unusable(f"the Hyper-V {label} counter {name!r} did not advance consistently between samples")
    return Fraction(busy, base)


def _native(a: SystemCpuTimes | None, b: SystemCpuTimes | None) -> Breakdown:
    if a is None or b is None:
        return Breakdown("native", None, "no Hyper-V counters and the system CPU times could not be read")
    deltas = (b.user_s - a.user_s, b.system_s - a.system_s, b.idle_s - a.idle_s)
    if any(not math.isfinite(d) or d < 0 for d in deltas):
        return Breakdown("native", None, "the system CPU times went backwards between samples")
    busy = deltas[0] + deltas[1]
    elapsed = busy + deltas[2]
    if not elapsed > 0:
        return Breakdown("native", None, "the system CPU times did not advance between samples")
    total = 100.0 * busy / elapsed
    if not 0.0 <= total <= 100.0:
        return Breakdown("native", None, "the system CPU times give a share outside 0..100 %")
    return Breakdown("native", {"total": total, "windows": total, "virtual_machines": 0.0, "other": 0.0})
