"""PDH performance counters (Windows) as a boundary: the Hyper-V CPU partition counters and the
pressure counters, raw.

Contract
--------
``collect() -> CounterSample``
    Collects the query once and returns, for each English counter path in ``ALL_SETS``
    (``PdhAddEnglishCounterW`` semantics, so the paths do not depend on the display language):
    the three Hyper-V CPU sets ``HYPERV_SETS``::

        \\Hyper-V Hypervisor Logical Processor(*)\\% Total Run Time        (physical LPs, "Hv LP 0"…)
        \\Hyper-V Hypervisor Root Virtual Processor(*)\\% Total Run Time   (Windows, "Root VP 0"…)
        \\Hyper-V Hypervisor Virtual Processor(*)\\% Total Run Time        (guests, "<vm>:Hv VP 0"…)

    and the pressure counters ``PRESSURE_SETS`` (memory commit, page reads, physical disks, the
    hypervisor's dispatch wait; a counter without instances is one item, named as PDH names it):
    the raw counter of every instance (``PdhGetRawCounterArrayW``: ``FirstValue``, ``SecondValue``
    (for the CPU sets: busy 100 ns and the elapsed base; each pressure path says how its values are
    read), the FILETIME ``TimeStamp``, ``CStatus``), keyed by instance name
    in the order PDH lists them, ``_Total`` left out. A set that does not exist on this host
    (no hypervisor: ``PDH_CSTATUS_NO_OBJECT`` when it was added) maps to ``None``: absence is data.
    Nothing is validated or turned into rates here: the domain judges statuses, deltas and counts
    from two samples. Instance names repeated by PDH keep their first row.

    ``native`` carries the host's system CPU times (``GetSystemTimes`` as ``psutil.cpu_times()``
    gives them, seconds summed over all logical CPUs) read in the same call, so a host without a
    hypervisor still gets its total from the same sample; ``None`` when they cannot be read.

    One PDH query is opened at the first ``collect`` and kept open until ``close()`` (the server's
    life): counters are added once, and each ``collect`` is one ``PdhCollectQueryData``.
Errors
    ``PdhUnavailable`` when PDH itself cannot be used (not Windows, pdh.dll missing, the query
    cannot be opened or collected). A missing counter set is not an error.

Real adapter: ``wslmcp.boundaries.pdh_ctypes.PdhQuery`` (ctypes on pdh.dll; pywin32's win32pdh has no
raw-array call). Twin: ``wslmcp.fakes.pdh.FakePdhCounters`` (samples from a scenario's timeline).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, Protocol

LOGICAL_PROCESSORS: Final = r"\Hyper-V Hypervisor Logical Processor(*)\% Total Run Time"
ROOT_PROCESSORS: Final = r"\Hyper-V Hypervisor Root Virtual Processor(*)\% Total Run Time"
GUEST_PROCESSORS: Final = r"\Hyper-V Hypervisor Virtual Processor(*)\% Total Run Time"
HYPERV_SETS: Final = (LOGICAL_PROCESSORS, ROOT_PROCESSORS, GUEST_PROCESSORS)
# The pressure evidence (issue 21), read raw like the sets above; how each raw value is read:
COMMITTED_BYTES: Final = r"\Memory\Committed Bytes"  # a gauge: FirstValue (bytes)
COMMIT_LIMIT: Final = r"\Memory\Commit Limit"  # a gauge: FirstValue (bytes)
PAGE_READS: Final = r"\Memory\Page Reads/sec"  # a count: ΔFirstValue / Δtime (hard faults resolved)
DISK_IDLE: Final = r"\PhysicalDisk(*)\% Idle Time"  # a 100 ns timer: ΔFirstValue / ΔSecondValue
DISK_READ_BYTES: Final = r"\PhysicalDisk(*)\Disk Read Bytes/sec"  # a count: ΔFirstValue / Δtime
DISK_WRITE_BYTES: Final = r"\PhysicalDisk(*)\Disk Write Bytes/sec"  # a count: ΔFirstValue / Δtime
# an average: ΔFirstValue (ns waited) / ΔSecondValue (dispatches)
VP_WAIT_PER_DISPATCH: Final = r"\Hyper-V Hypervisor Virtual Processor(*)\CPU Wait Time Per Dispatch"
PRESSURE_SETS: Final = (
    COMMITTED_BYTES,
    COMMIT_LIMIT,
    PAGE_READS,
    DISK_IDLE,
    DISK_READ_BYTES,
    DISK_WRITE_BYTES,
    VP_WAIT_PER_DISPATCH,
)
ALL_SETS: Final = HYPERV_SETS + PRESSURE_SETS
TOTAL_INSTANCE: Final = "_Total"


class PdhUnavailable(OSError):
    """PDH cannot be used on this host."""


@dataclass(frozen=True)
class RawCounter:
    """One instance's ``PDH_RAW_COUNTER``."""

    first_value: int
    second_value: int
    timestamp_100ns: int  # FILETIME (100 ns since 1601-01-01 UTC)
    status: int = 0  # CStatus: 0 valid data, 1 new data; anything above 1 is not usable


@dataclass(frozen=True)
class SystemCpuTimes:
    """Host CPU times in seconds summed over all logical CPUs; ``system`` excludes ``idle``
    (``GetSystemTimes``' kernel time includes idle; psutil subtracts it)."""

    user_s: float
    system_s: float
    idle_s: float


# instance name -> raw counter, ``_Total`` excluded; None = the counter set does not exist here
InstanceSet = Mapping[str, RawCounter]


@dataclass(frozen=True)
class CounterSample:
    counters: Mapping[str, InstanceSet | None]  # keyed by the ALL_SETS paths (a recording may lack some)
    native: SystemCpuTimes | None = None


class PdhCounters(Protocol):
    def collect(self) -> CounterSample: ...

    def close(self) -> None: ...
