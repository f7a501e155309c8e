"""PDH counters replayed from a scenario's timeline (``timeline[i].pdh.file``), and their recorder.

A sample file is the ``CounterSample`` as JSON::

    {"counters": {"\\Hyper-V Hypervisor Logical Processor(*)\\% Total Run Time":
                    {"Hv LP 0": {"first_value": 1, "second_value": 2, "timestamp_100ns": 3, "status": 0}},
                  "...Root Virtual Processor...": {...}, "...\\Hyper-V Hypervisor Virtual Processor...": null},
     "native": {"user_s": 1.0, "system_s": 2.0, "idle_s": 3.0}}

(``null`` set = the counter set does not exist on that host; ``native`` may be null.)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from wslmcp.boundaries.clock import Clock
from wslmcp.boundaries.pdh import CounterSample, InstanceSet, PdhCounters, RawCounter, SystemCpuTimes
from wslmcp.fakes.timeline import append_sample, current_entry, sample_json
from wslmcp.scenario.loader import Scenario
from wslmcp.scenario.recorder import ScenarioWriter

KEY = "pdh"


def sample_to_json(sample: CounterSample) -> dict[str, Any]:
    counters: dict[str, Any] = {}
    for path, instances in sample.counters.items():
        counters[path] = None if instances is None else {n: vars(c) for n, c in instances.items()}
    native = None if sample.native is None else vars(sample.native)
    return {"counters": counters, "native": native}


def sample_from_json(doc: Mapping[str, Any]) -> CounterSample:
    counters: dict[str, InstanceSet | None] = {}
    for path, instances in doc["counters"].items():
        counters[path] = None if instances is None else {n: RawCounter(**c) for n, c in instances.items()}
    native = doc.get("native")
    return CounterSample(counters, None if native is None else SystemCpuTimes(**native))


class FakePdhCounters:
    """Serves the PDH sample current at the clock's time (``wslmcp.fakes.timeline.current_entry``)."""

    boundary = "pdh"

    def __init__(self, scenario: Scenario, clock: Clock) -> None:
        self._scenario = scenario
        self._clock = clock
        self._cache: dict[int, CounterSample] = {}
        self.closed = False

    def collect(self) -> CounterSample:
        entry = current_entry(self._scenario, KEY, self._clock, self.boundary, "a PDH sample")
        if entry.index not in self._cache:
            self._cache[entry.index] = sample_from_json(sample_json(self._scenario, entry, KEY))
        return self._cache[entry.index]

    def close(self) -> None:
        self.closed = True


class RecordingPdhCounters:
    """Record mode: every sample the wrapped adapter collects goes into the scenario's timeline."""

    def __init__(self, inner: PdhCounters, writer: ScenarioWriter) -> None:
        self._inner = inner
        self._writer = writer

    def collect(self) -> CounterSample:
        t_ms = self._writer.now_ms()
        sample = self._inner.collect()
        append_sample(self._writer, KEY, sample_to_json(sample), t_ms)
        return sample

    def close(self) -> None:
        self._inner.close()
