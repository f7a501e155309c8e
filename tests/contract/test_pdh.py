"""One contract for the PDH port over the real ctypes adapter (on Windows against pdh.dll; on any
platform against a pdh.dll stand-in that fills buffers in the documented layout) and the recorded
twin: the three sets by path, `_Total` left out, absent sets as None, raw values untouched, one
query for the adapter's life, native CPU times beside them; and the raw-array parsing from bytes."""

from __future__ import annotations

import ctypes
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import psutil
import pytest

from tests.standins.pdh_dll import PdhDllStandin, Samples
from wslmcp.boundaries.pdh import (
    ALL_SETS,
    COMMITTED_BYTES,
    DISK_IDLE,
    GUEST_PROCESSORS,
    LOGICAL_PROCESSORS,
    ROOT_PROCESSORS,
    CounterSample,
    PdhCounters,
    PdhUnavailable,
    RawCounter,
)
from wslmcp.boundaries.pdh_ctypes import PdhQuery, RawCounterItem, parse_raw_array
from wslmcp.fakes.clock import FakeClock
from wslmcp.fakes.pdh import FakePdhCounters, RecordingPdhCounters, sample_to_json
from wslmcp.scenario.loader import Scenario
from wslmcp.scenario.manifest import SCHEMA
from wslmcp.scenario.recorder import ScenarioWriter

T0 = 134_000_000_000_000_000
SAMPLES: Samples = [
    {
        LOGICAL_PROCESSORS: [("_Total", 9, 9, T0, 0), ("Hv LP 0", 500, 1000, T0, 0), ("Hv LP 1", 300, 1000, T0, 0)],
        ROOT_PROCESSORS: [("Root VP 0", 200, 1000, T0, 0), ("Root VP 1", 100, 1000, T0, 0), ("_Total", 1, 1, T0, 0)],
        COMMITTED_BYTES: [("", 12 << 30, 0, T0, 0)],  # no instances: one item
        DISK_IDLE: [("0 C:", 9_000_000, T0, T0, 0), ("_Total", 1, 1, T0, 0)],
    },
    {
        LOGICAL_PROCESSORS: [("_Total", 9, 9, T0, 0), ("Hv LP 0", 1500, 3000, T0 + 10**7, 0),
                             ("Hv LP 1", 900, 3000, T0 + 10**7, 2)],
        ROOT_PROCESSORS: [("Root VP 0", 400, 3000, T0 + 10**7, 0), ("Root VP 1", 150, 3000, T0 + 10**7, 0)],
        COMMITTED_BYTES: [("", 13 << 30, 0, T0 + 10**7, 0)],
        DISK_IDLE: [("0 C:", 9_500_000, T0 + 10**7, T0 + 10**7, 0), ("_Total", 1, 1, T0, 0)],
    },
]  # fmt: skip
Make = Callable[[Samples], PdhCounters]


def _expected(sample: int) -> dict[str, dict[str, RawCounter] | None]:
    return {
        path: None
        if path not in SAMPLES[sample]
        else {n: RawCounter(f, s, t, st) for n, f, s, t, st in SAMPLES[sample][path] if n != "_Total"}
        for path in ALL_SETS
    }


def _twin_scenario(root: Path, samples: Samples) -> Scenario:
    timeline = []
    for i, sample in enumerate(samples):
        doc = {
            "counters": {
                p: None
                if p not in sample
                else {n: RawCounter(f, s, t, st).__dict__ for n, f, s, t, st in sample[p] if n != "_Total"}
                for p in ALL_SETS
            },
            "native": {"user_s": 10.0 + i, "system_s": 5.0 + i, "idle_s": 100.0 + i},
        }
        (root / f"pdh{i}.json").write_text(json.dumps(doc))
        timeline.append({"t_ms": i * 1000, "pdh": {"file": f"pdh{i}.json"}})
    manifest = {"schema": SCHEMA, "name": "pdh-contract", "timeline": timeline, "hold_last_ms": 1000}
    (root / "scenario.json").write_text(json.dumps(manifest))
    return Scenario.load(root)


@pytest.fixture(params=["dll-standin", "twin"])
def make(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Make, Callable[[], None]]]:
    """Exact values need a stand-in; the real pdh.dll is checked by ``test_real_pdh_on_windows``."""
    clock = FakeClock()

    def build(samples: Samples) -> PdhCounters:
        if request.param == "twin":
            return FakePdhCounters(_twin_scenario(tmp_path, samples), clock)
        return PdhQuery(dll=PdhDllStandin(samples))

    yield build, lambda: clock.advance(1.0)


def test_each_set_by_path_total_left_out_absent_set_none(make: tuple[Make, Callable[[], None]]) -> None:
    build, next_sample = make
    pdh = build(SAMPLES)
    first = pdh.collect()
    assert list(first.counters) == list(ALL_SETS)
    assert first.counters == _expected(0)
    assert first.counters[GUEST_PROCESSORS] is None
    assert first.counters[COMMITTED_BYTES] == {"": RawCounter(12 << 30, 0, T0, 0)}  # raw: a gauge
    next_sample()
    second = pdh.collect()
    assert second.counters == _expected(1)
    assert second.counters[LOGICAL_PROCESSORS]["Hv LP 1"].status == 2  # type: ignore[index]  # raw, not judged
    assert second.native is not None
    pdh.close()


def test_the_adapter_keeps_one_query_and_adds_counters_once() -> None:
    dll = PdhDllStandin(SAMPLES)
    pdh = PdhQuery(dll=dll)
    pdh.collect()
    pdh.collect()
    assert dll.calls.count("PdhOpenQueryW") == 1
    assert [c for c in dll.calls if c.startswith("PdhAdd")] == [
        f"PdhAddEnglishCounterW {p}" for p in ALL_SETS
    ]
    assert dll.collects == 2
    pdh.close()
    assert dll.open_queries == 0


def test_a_host_without_a_hypervisor_has_only_native_times() -> None:
    pdh = PdhQuery(dll=PdhDllStandin([{}]))
    sample = pdh.collect()
    assert sample.counters == {p: None for p in ALL_SETS}
    assert sample.native is not None and sample.native.idle_s > 0


def test_off_windows_without_a_dll_pdh_is_unavailable() -> None:
    if sys.platform == "win32":
        pytest.skip("on Windows pdh.dll exists")
    with pytest.raises(PdhUnavailable, match="only on Windows"):
        PdhQuery().collect()


def _array(rows: list[tuple[str, int, int, int, int]]) -> tuple[bytes, int]:
    """A buffer as PdhGetRawCounterArrayW leaves it (items, then the names they point at)."""
    item = ctypes.sizeof(RawCounterItem)
    size = item * len(rows) + sum(2 * (len(r[0]) + 1) for r in rows)
    buffer = ctypes.create_string_buffer(size)
    dll = PdhDllStandin([{"p": rows}])
    dll.paths[0x2000] = "p"
    dll.collects = 1
    dll.PdhGetRawCounterArrayW(
        ctypes.c_void_p(0x2000), ctypes.byref(ctypes.c_uint32(size)), ctypes.byref(ctypes.c_uint32()), buffer
    )
    return buffer.raw, ctypes.addressof(buffer)


def test_the_layout_is_the_64_bit_pdh_raw_counter_item() -> None:
    assert ctypes.sizeof(ctypes.c_void_p) == 8
    assert ctypes.sizeof(RawCounterItem) == 48
    assert RawCounterItem.RawValue.offset == 8  # type: ignore[attr-defined]


def test_parsing_recorded_bytes_keeps_the_first_of_duplicates_and_drops_total() -> None:
    big = 2**40 + 7
    data, base = _array([("Hv LP 0", big, 2 * big, T0, 0), ("_Total", 1, 1, T0, 0), ("Hv LP 0", 1, 1, T0, 0),
                         ("Ünïcode VP", -5, 0, T0, 3)])  # fmt: skip
    parsed = parse_raw_array(data, base, 4)
    assert parsed == {"Hv LP 0": RawCounter(big, 2 * big, T0, 0), "Ünïcode VP": RawCounter(-5, 0, T0, 3)}


def test_parsing_refuses_pointers_and_counts_outside_the_buffer() -> None:
    data, base = _array([("Hv LP 0", 1, 2, T0, 0)])
    with pytest.raises(PdhUnavailable, match="do not fit"):
        parse_raw_array(data, base, 2)
    with pytest.raises(PdhUnavailable, match="outside the buffer"):
        parse_raw_array(data, base + 4096, 1)


def test_recording_writes_samples_the_twin_replays(tmp_path: Path) -> None:
    clock = FakeClock()
    writer = ScenarioWriter(tmp_path / "rec", "rec", "", clock)
    recorder = RecordingPdhCounters(PdhQuery(dll=PdhDllStandin(SAMPLES)), writer)
    live = [recorder.collect()]
    clock.advance(1.0)
    live.append(recorder.collect())
    writer.manifest["hold_last_ms"] = 500
    twin = FakePdhCounters(Scenario.load(writer.commit()), replay_clock := FakeClock())
    first = twin.collect()
    replay_clock.advance(1.0)
    assert [sample_to_json(first), sample_to_json(twin.collect())] == [sample_to_json(s) for s in live]


@pytest.mark.skipif(sys.platform != "win32", reason="needs pdh.dll: a real Windows host")
def test_real_pdh_on_windows() -> None:
    pdh = PdhQuery()
    try:
        sample: CounterSample = pdh.collect()
        again = pdh.collect()
    finally:
        pdh.close()
    assert list(sample.counters) == list(ALL_SETS)
    assert sample.native is not None
    logical = again.counters[LOGICAL_PROCESSORS]
    if logical is not None:  # a host with Hyper-V: one LP instance per logical CPU
        assert len(logical) == psutil.cpu_count()
        assert all(not name.startswith("_") for name in logical)
