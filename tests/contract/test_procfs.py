"""/proc contract: the real local /proc of this machine and recorded scenarios pass the same suite.

Two recordings: one made now from this machine by the product's recorder (the files of today's
sample), and ``linux-recorded``, made before the pressure files, ``io`` and ``cwd`` were read: the
twin serves it as it was recorded, without them."""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from wslmcp.boundaries.clock import Clock, SystemClock
from wslmcp.boundaries.procfs import (
    BASE_FILES,
    DETAIL_FILES,
    PID_FILES,
    PID_LINKS,
    PRESSURE_FILES,
    LocalProcSource,
    ProcSample,
    ProcSource,
    mount_of,
    parse_mounts,
)
from wslmcp.fakes.clock import FakeClock
from wslmcp.fakes.procfs import FakeProcSource
from wslmcp.replay.recording import record_observe
from wslmcp.scenario.loader import Scenario
from wslmcp.scenario.recorder import ScenarioWriter

HAS_PROC = Path("/proc/stat").is_file()
PSI = Path("/proc/pressure/memory").is_file()


class Rig:
    """A source, a way to let time pass between two samples, and which files it holds."""

    def __init__(self, source: ProcSource, clock: Clock, step: Callable[[], None], *, today: bool) -> None:
        self.source, self.clock, self.step = source, clock, step
        self.today = today  # holds the pressure files, io and cwd (not a recording made before them)


def _real() -> Rig:
    return Rig(LocalProcSource(), SystemClock(), lambda: None, today=True)


def _fake(scenario_dir: Path, *, today: bool) -> Rig:
    scenario = Scenario.load(scenario_dir)
    clock = FakeClock(0.0, scenario.start_wall)
    times = [e.t_ms for e in scenario.timeline]
    pos = iter(times[1:])
    return Rig(
        FakeProcSource(scenario, clock),
        clock,
        lambda: clock.advance(next(pos) / 1000 - clock.monotonic()),
        today=today,
    )


def _record_now(out: Path) -> Path:
    clock = FakeClock()
    writer = ScenarioWriter(out, "contract", "", clock)
    return asyncio.run(record_observe(LocalProcSource(), writer, clock, duration_s=1.0, interval_ms=500))


@pytest.fixture(params=["real", "recorded-now", "recorded-before"])
def rig(request: pytest.FixtureRequest, recorded_linux: Path, tmp_path: Path) -> Rig:
    if request.param != "recorded-before" and not HAS_PROC:
        pytest.skip("no local /proc on this platform (Linux or WSL needed for the real adapter)")
    if request.param == "real":
        return _real()
    if request.param == "recorded-now":
        return _fake(_record_now(tmp_path / "rec"), today=True)
    return _fake(recorded_linux, today=False)


def test_global_files_are_raw_kernel_text(rig: Rig) -> None:
    sample = rig.source.read_sample()
    assert set(BASE_FILES) <= set(sample.files)
    assert all(isinstance(v, bytes) for v in sample.files.values())
    assert re.match(rb"cpu  (\d+ ){3,}", sample.files["stat"])
    assert re.fullmatch(rb"\d+\.\d+ \d+\.\d+\n", sample.files["uptime"])
    assert re.fullmatch(rb"[0-9a-f-]{36}\n", sample.files["sys/kernel/random/boot_id"])
    assert sample.files["meminfo"].startswith(b"MemTotal:")


def test_pressure_files_are_read_where_the_kernel_has_them(rig: Rig) -> None:
    sample = rig.source.read_sample()
    present = {f for f in PRESSURE_FILES if f in sample.files}
    if not rig.today:
        assert present == set()  # a recording made before they were read: served as recorded
        return
    assert {"vmstat", "diskstats", "mounts"} <= present
    assert ({"pressure/cpu", "pressure/memory", "pressure/io"} <= present) == PSI  # detected by reading
    assert re.search(rb"^pswpin \d+$", sample.files["vmstat"], re.MULTILINE)
    assert any(m.point == b"/" for m in parse_mounts(sample.files["mounts"]))
    if PSI:
        assert re.match(rb"some avg10=\d+\.\d+ avg60=", sample.files["pressure/memory"])


def test_every_process_has_a_stat_naming_its_pid(rig: Rig) -> None:
    sample = rig.source.read_sample()
    assert sample.pids, "a live system always has processes"
    assert 1 in sample.pids
    for pid in sample.pids:
        stat = sample.files.get(f"{pid}/stat")
        if stat is None:  # vanished between listing and reading: allowed, and then nothing else is kept
            assert not [p for p in sample.files if p.startswith(f"{pid}/")]
            continue
        assert stat.startswith(f"{pid} (".encode())
        assert b")" in stat
    extra = {p.split("/", 1)[1] for p in sample.files if "/" in p and p.split("/", 1)[0].isdigit()}
    assert extra <= set(PID_FILES) | set(PID_LINKS)
    if rig.today:  # this process's own io and working directory are always readable
        assert {"io", "cwd"} <= extra


def test_a_working_directory_is_its_link_target(rig: Rig) -> None:
    sample = rig.source.read_sample()
    cwds = {p: d for p, d in sample.files.items() if p.endswith("/cwd")}
    assert all(d.startswith(b"/") for d in cwds.values())
    if isinstance(rig.source, LocalProcSource):
        assert cwds[f"{os.getpid()}/cwd"] == os.getcwd().encode()


def test_light_reads_leave_out_only_what_the_caller_has(rig: Rig) -> None:
    """``light_for`` may leave out ``cmdline``, ``io`` and ``cwd`` of the PIDs it names, nothing
    else: the local source saves those reads; a recording is served whole."""
    local = isinstance(rig.source, LocalProcSource)
    pid = os.getpid() if local else 1
    light = rig.source.read_sample(light_for={pid})
    assert f"{pid}/stat" in light.files and set(BASE_FILES) <= set(light.files)
    assert "1/cmdline" in light.files  # not named (or served whole)
    if local:
        assert not {f"{pid}/{name}" for name in DETAIL_FILES} & set(light.files)


def test_the_recorder_keeps_of_a_working_directory_only_its_mount(tmp_path: Path) -> None:
    if not HAS_PROC:
        pytest.skip("records this machine's /proc")
    sample = FakeProcSource(Scenario.load(_record_now(tmp_path / "rec")), FakeClock()).read_sample()
    mounts = parse_mounts(sample.files["mounts"])
    cwds = [d for p, d in sample.files.items() if p.endswith("/cwd")]
    assert cwds and all(any(m.point == d for m in mounts) for d in cwds)
    assert mount_of(os.getcwd().encode(), mounts) is not None


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
