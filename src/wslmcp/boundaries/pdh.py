"""PDH performance counters (Windows) as a boundary.

Contract
--------
``collect(paths) -> CounterSample``
    Samples the given English counter paths once (``PdhAddEnglishCounter`` semantics, so the
    paths do not depend on the display language), e.g.
    ``\\Hyper-V Hypervisor Root Virtual Processor(_Total)\\% Total Run Time``,
    ``\\Hyper-V Hypervisor Virtual Processor(*)\\% Guest Run Time`` and
    ``\\Hyper-V Hypervisor Logical Processor(_Total)\\% Total Run Time``.
    Returns raw counter values (the first value and base as PDH gives them, the 100 ns timestamp)
    per expanded instance path; rates are computed by the domain from two samples, never here.
    A counter that does not exist on this host (Hyper-V absent) maps to ``None``: absence is data.
Errors
    ``PdhUnavailable`` when PDH itself cannot be used (not Windows, no pywin32).

Real adapter: pywin32's ``win32pdh`` (Windows only; arrives with the observe part 2 issue).
Fake: raw counter values per sample from a scenario's timeline.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol


class PdhUnavailable(OSError):
    """PDH cannot be used on this host."""


@dataclass(frozen=True)
class RawCounter:
    first_value: int
    second_value: int
    timestamp_100ns: int
    status: int = 0


@dataclass(frozen=True)
class CounterSample:
    counters: Mapping[str, RawCounter | None]


class PdhCounters(Protocol):
    def collect(self, paths: Sequence[str]) -> CounterSample: ...
