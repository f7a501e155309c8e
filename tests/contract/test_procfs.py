"""/proc contract: the real local /proc of this machine and a recorded scenario pass the same suite."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from fakes.clock import FakeClock
from fakes.procfs import FakeProcSource
from wslmcp.boundaries.clock import Clock, SystemClock
from wslmcp.boundaries.procfs import GLOBAL_FILES, PID_FILES, LocalProcSource, ProcSample, ProcSource
from wslmcp.scenario.loader import Scenario

HAS_PROC = Path("/proc/stat").is_file()


class Rig:
    """A source and a way to let time pass between two samples."""

    def __init__(self, source: ProcSource, clock: Clock, step: Callable[[], None]) -> None:
        self.source, self.clock, self.step = source, clock, step


def _real() -> Rig:
    return Rig(LocalProcSource(), SystemClock(), lambda: None)


def _fake(scenario_dir: Path) -> Rig:
    scenario = Scenario.load(scenario_dir)
    clock = FakeClock(0.0, scenario.start_wall)
    times = [e.t_ms for e in scenario.timeline]
    pos = iter(times[1:])
    return Rig(
        FakeProcSource(scenario, clock), clock, lambda: clock.advance(next(pos) / 1000 - clock.monotonic())
    )


@pytest.fixture(params=["real", "fake"])
def rig(request: pytest.FixtureRequest, recorded_linux: Path) -> Rig:
    if request.param == "real":
        if not HAS_PROC:
            pytest.skip("no local /proc on this platform (Linux or WSL needed for the real adapter)")
        return _real()
    return _fake(recorded_linux)


def test_global_files_are_raw_kernel_text(rig: Rig) -> None:
    sample = rig.source.read_sample()
    assert set(GLOBAL_FILES) <= set(sample.files)
    assert all(isinstance(v, bytes) for v in sample.files.values())
    assert re.match(rb"cpu  (\d+ ){3,}", sample.files["stat"])
    assert re.fullmatch(rb"\d+\.\d+ \d+\.\d+\n", sample.files["uptime"])
    assert re.fullmatch(rb"[0-9a-f-]{36}\n", sample.files["sys/kernel/random/boot_id"])
    assert sample.files["meminfo"].startswith(b"MemTotal:")


def test_every_process_has_a_stat_naming_its_pid(rig: Rig) -> None:
    sample = rig.source.read_sample()
    assert sample.pids, "a live system always has processes"
    assert 1 in sample.pids
    for pid in sample.pids:
        stat = sample.files.get(f"{pid}/stat")
        if stat is None:  # vanished between listing and reading: allowed, and then nothing else is kept
            assert f"{pid}/cmdline" not in sample.files
            continue
        assert stat.startswith(f"{pid} (".encode())
        assert b")" in stat
    extra = {p.split("/", 1)[1] for p in sample.files if "/" in p and p.split("/", 1)[0].isdigit()}
    assert extra <= set(PID_FILES)


def test_pids_match_the_files(rig: Rig) -> None:
    sample = rig.source.read_sample()
    assert list(sample.pids) == sorted(
        {int(p.split("/")[0]) for p in sample.files if p.split("/")[0].isdigit()}
    )


def test_tick_rate_and_page_size_are_sane(rig: Rig) -> None:
    sample = rig.source.read_sample()
    assert sample.clk_tck > 0
    assert sample.page_size >= 4096
    assert sample.page_size & (sample.page_size - 1) == 0


def test_uptime_and_boot_id_across_two_samples(rig: Rig) -> None:
    first = rig.source.read_sample()
    rig.step()
    second = rig.source.read_sample()
    up1 = float(first.files["uptime"].split()[0])
    up2 = float(second.files["uptime"].split()[0])
    assert up2 >= up1
    assert first.files["sys/kernel/random/boot_id"] == second.files["sys/kernel/random/boot_id"]


def test_cpu_counters_never_decrease(rig: Rig) -> None:
    def busy(stat: bytes) -> list[int]:
        return [int(x) for x in stat.split(b"\n", 1)[0].split()[1:4]]

    first = rig.source.read_sample()
    rig.step()
    second = rig.source.read_sample()
    assert all(b >= a for a, b in zip(busy(first.files["stat"]), busy(second.files["stat"]), strict=True))


def test_pids_are_every_numeric_entry_of_a_sample_however_it_was_made() -> None:
    files = {
        "stat": b"cpu  1\n",
        "12/cmdline": b"",
        "7/stat": b"7 (x) S",
        "\u00b2/stat": b"",
        "self/stat": b"",
    }
    assert ProcSample(files, 100, 4096).pids == ProcSample.build(files, 100, 4096).pids == (7, 12)
