"""Pressure evidence: the Linux figures from the pressure files of two /proc samples, the Windows
figures from two PDH samples (through the pdh.dll stand-in and through the recorded twin, as the
CPU counters are tested), every figure null with a warning when it cannot be read, and the
working directories on Windows drives."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.standins.pdh_dll import PdhDllStandin, Samples
from wslmcp.boundaries.pdh import (
    ALL_SETS,
    COMMIT_LIMIT,
    COMMITTED_BYTES,
    DISK_IDLE,
    DISK_READ_BYTES,
    DISK_WRITE_BYTES,
    PAGE_READS,
    VP_WAIT_PER_DISPATCH,
    CounterSample,
    PdhCounters,
)
from wslmcp.boundaries.pdh_ctypes import PdhQuery
from wslmcp.boundaries.procfs import ProcSample
from wslmcp.fakes.clock import FakeClock
from wslmcp.fakes.pdh import FakePdhCounters, sample_to_json
from wslmcp.observe.accounting import RawSample, drive_warning, parse_sample, process_rows
from wslmcp.observe.pressure import (
    PRESSURE_METRICS,
    Pressure,
    linux_pressure,
    parse_linux,
    windows_pressure,
)
from wslmcp.scenario.loader import Scenario
from wslmcp.scenario.manifest import SCHEMA

MEMINFO = b"MemTotal:       16000000 kB\nMemFree:  1000 kB\nMemAvailable:    1000000 kB\nBuffers:  100 kB\nCached:  2000000 kB\n"
PSI = b"some avg10=%.2f avg60=1.00 avg300=0.50 total=123\nfull avg10=%.2f avg60=0.00 avg300=0.00 total=45\n"


def linux_files(i: int) -> dict[str, bytes]:
    """Sample ``i`` of a host swapping 256 pages in and 512 out per second, sda reading 1 MiB/s and
    busy 40 % of the time, 2 s apart."""
    return {
        "meminfo": MEMINFO,
        "vmstat": b"nr_free_pages 5\npswpin %d\npswpout %d\npgmajfault %d\n"
        % (256 * 2 * i, 512 * 2 * i, 30 * i),
        "pressure/memory": PSI % (12.5, 11.25),
        "pressure/io": PSI % (3.0, 1.0),
        "pressure/cpu": b"some avg10=40.00 avg60=1.00 avg300=0.50 total=123\n",
        "diskstats": (
            b"   7 0 loop0 1 0 2 0 3 0 4 0 0 5 6 0 0 0 0\n"
            b"   8 0 sda 10 0 %d 0 20 0 %d 0 0 %d 90 0 0 0 0\n"
            b"   8 1 sda1 10 0 %d 0 20 0 %d 0 0 %d 90 0 0 0 0\n"
        )
        % ((2048 * 2 * i, 100, 800 * i) * 2),
        "stat": b"cpu  1 2 3 4 5 6 7 0 0 0\nprocs_running 3\nprocs_blocked 4\n",
    }


def test_linux_figures_from_two_samples() -> None:
    into = Pressure()
    linux_pressure(parse_linux(linux_files(0)), parse_linux(linux_files(1)), 2.0, 4096, into)
    mem = into.memory
    assert mem["linux_total_bytes"] == 16_000_000 * 1024 and mem["linux_available_bytes"] == 1_000_000 * 1024
    assert mem["linux_used_bytes"] == 15_000_000 * 1024 and mem["linux_cache_bytes"] == 2_000_100 * 1024
    assert mem["swap_in_bytes_per_s"] == 256 * 4096 and mem["swap_out_bytes_per_s"] == 512 * 4096
    assert mem["major_faults_per_s"] == 15.0
    assert (mem["psi_some_avg10"], mem["psi_full_avg10"]) == (12.5, 11.25)
    assert (into.io["psi_some_avg10"], into.io["psi_full_avg10"]) == (3.0, 1.0)
    assert into.cpu == {"psi_some_avg10": 40.0, "procs_blocked": 4, "hyperv_wait_per_dispatch_ns": None}
    assert into.linux_disks is not None and [d.name for d in into.linux_disks] == [
        "sda"
    ]  # no loop, no partition
    sda = into.linux_disks[0]
    assert (sda.busy_percent, sda.read_bytes_per_s, sda.write_bytes_per_s) == (40.0, 1024 * 1024, 0.0)
    assert into.warnings == []
    metrics = into.metrics()
    assert set(metrics) == set(PRESSURE_METRICS)
    assert metrics["io.linux_disk_busy_percent"] == 40.0 and metrics["memory.psi_full_avg10"] == 11.25


def test_a_recording_made_before_the_pressure_files_gives_nulls_and_says_why() -> None:
    old = {"meminfo": MEMINFO, "stat": b"cpu  1 2 3 4 5 6 7 0 0 0\n"}
    into = Pressure()
    linux_pressure(parse_linux(old), parse_linux(old), 2.0, 4096, into)
    assert into.memory["linux_available_bytes"] == 1_000_000 * 1024  # meminfo was always read
    nulls = ["swap_in_bytes_per_s", "swap_out_bytes_per_s", "major_faults_per_s", "psi_some_avg10"]
    assert all(into.memory[k] is None for k in nulls)
    assert into.io["psi_some_avg10"] is None and into.cpu["psi_some_avg10"] is None
    assert into.cpu["procs_blocked"] is None and into.linux_disks is None
    text = " ".join(into.warnings)
    assert "/proc/vmstat" in text and "/proc/pressure/memory" in text and "/proc/diskstats" in text


def test_counters_that_go_backwards_give_null_rates_never_negative_ones() -> None:
    into = Pressure()
    linux_pressure(parse_linux(linux_files(2)), parse_linux(linux_files(1)), 2.0, 4096, into)
    assert into.memory["swap_in_bytes_per_s"] is None and into.memory["major_faults_per_s"] is None
    assert into.linux_disks is not None and into.linux_disks[0].busy_percent is None


# --- Windows: the PDH counters, through the pdh.dll stand-in and the twin -------------------------

T0 = 134_000_000_000_000_000
SECOND = 10**7


def pdh_samples() -> Samples:
    """Two samples 2 s apart: 12 GiB committed of 40 GiB, 300 page reads per second, disk 0 busy
    75 % reading 4 MiB/s, two virtual processors that waited 3000 ns and 1000 ns in 100 dispatches."""

    def one(i: int) -> dict[str, list[tuple[str, int, int, int, int]]]:
        t = T0 + 2 * SECOND * i
        return {
            COMMITTED_BYTES: [("", (12 << 30) + i, 0, t, 0)],
            COMMIT_LIMIT: [("", 40 << 30, 0, t, 0)],
            PAGE_READS: [("", 600 * i, 0, t, 0)],
            DISK_IDLE: [("0 C:", SECOND // 2 * i, 2 * SECOND * i + 1, t, 0), ("_Total", 1, 1, t, 0)],
            DISK_READ_BYTES: [("0 C:", 8 << 20 if i else 0, 0, t, 0)],
            DISK_WRITE_BYTES: [("0 C:", 0, 0, t, 0)],
            VP_WAIT_PER_DISPATCH: [("WSL:Hv VP 0", 3000 * 50 * i, 50 * i, t, 0), ("WSL:Hv VP 1", 1000 * 50 * i, 50 * i, t, 0)],
        }  # fmt: skip

    return [one(0), one(1)]


def _twin(root: Path, samples: Samples) -> PdhCounters:
    timeline = []
    for i in range(len(samples)):
        live = PdhQuery(dll=PdhDllStandin(samples[i : i + 1])).collect()
        (root / f"pdh{i}.json").write_text(json.dumps(sample_to_json(live)))
        timeline.append({"t_ms": i * 2000, "pdh": {"file": f"pdh{i}.json"}})
    (root / "scenario.json").write_text(
        json.dumps({"schema": SCHEMA, "name": "p", "timeline": timeline, "hold_last_ms": 1000})
    )
    return FakePdhCounters(Scenario.load(root), FakeClock())


@pytest.fixture(params=["dll-standin", "twin"])
def two_samples(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Callable[[Samples], tuple[CounterSample, CounterSample]]:
    def take(samples: Samples) -> tuple[CounterSample, CounterSample]:
        if request.param == "dll-standin":
            pdh: PdhCounters = PdhQuery(dll=PdhDllStandin(samples))
            return pdh.collect(), pdh.collect()
        twin = _twin(tmp_path, samples)
        first = twin.collect()
        twin._clock.advance(2.0)  # type: ignore[attr-defined]
        return first, twin.collect()

    return take


def test_windows_figures_from_two_pdh_samples(
    two_samples: Callable[[Samples], tuple[CounterSample, CounterSample]],
) -> None:
    before, after = two_samples(pdh_samples())
    into = Pressure()
    windows_pressure(before, after, 2.0, 6 << 30, into)
    mem = into.memory
    assert mem["windows_committed_bytes"] == (12 << 30) + 1 and mem["windows_commit_limit_bytes"] == 40 << 30
    assert mem["windows_hard_faults_per_s"] == 300.0 and mem["wsl_vm_working_set_bytes"] == 6 << 30
    assert into.windows_disks is not None and [d.name for d in into.windows_disks] == ["0 C:"]
    disk = into.windows_disks[0]
    assert disk.busy_percent == pytest.approx(75.0) and disk.read_bytes_per_s == 4 << 20
    assert into.cpu["hyperv_wait_per_dispatch_ns"] == 2000.0
    assert into.warnings == []


def test_counters_absent_on_the_host_or_in_an_old_recording_are_null_with_a_warning(
    two_samples: Callable[[Samples], tuple[CounterSample, CounterSample]],
) -> None:
    only_cpu: Samples = [{}, {}]  # no pressure counters at all (a recording made before them)
    before, after = two_samples(only_cpu)
    into = Pressure()
    windows_pressure(before, after, 2.0, None, into)
    assert into.memory["windows_committed_bytes"] is None and into.windows_disks is None
    assert into.cpu["hyperv_wait_per_dispatch_ns"] is None
    assert any(r"\Memory\Committed Bytes" in w for w in into.warnings)
    assert set(ALL_SETS) >= {COMMITTED_BYTES, PAGE_READS}


# --- working directories on Windows drives -------------------------------------------------------

MOUNTS = b"/dev/sdc / ext4 rw 0 0\nC:\\134 /mnt/c 9p rw,aname=drvfs;path=C:\\134 0 0\n"


def stat(pid: int, name: str, ticks: int, state: str = "S") -> bytes:
    return b"%d (%s) %s 1 0 0 0 0 0 0 0 0 0 %d 0 0 0 0 0 1 0 100 0 100" % (
        pid,
        name.encode(),
        state.encode(),
        ticks,
    )


def sample(ticks: int) -> RawSample:
    files = {
        "uptime": b"%d.00 0.00\n" % (10 + ticks // 100),
        "mounts": MOUNTS,
        "1/stat": stat(1, "init", 0),
        "1/cwd": b"/",
        "20/stat": stat(20, "make", ticks),
        "20/cwd": b"/mnt/c/src/app",
        "21/stat": stat(21, "cc1", ticks),
        "21/cwd": b"/home/dev/app",
        "22/stat": stat(22, "cp", 0, "D"),
        "22/cwd": b"/mnt/c",
        "23/stat": stat(23, "vim", 0),
        "23/cwd": b"/mnt/c/notes",
        "24/stat": stat(24, "zombie", 0, "Z"),  # its cwd cannot be read
    }
    return RawSample(ticks / 100, parse_sample(ProcSample.build(files, 100, 4096)))


def test_rows_say_whether_the_working_directory_is_on_a_windows_drive() -> None:
    rows = {r.name: r for r in process_rows(sample(0), sample(100), host_cpus=2)}
    flags = {name: row.usage().get("cwd_on_windows_drive") for name, row in rows.items()}
    assert flags == {"init": False, "make": True, "cc1": False, "cp": True, "vim": True, "zombie": None}
    assert "cwd_on_windows_drive" not in rows["zombie"].usage()  # not known: left out


def test_the_summary_warns_when_busy_processes_work_on_a_windows_drive() -> None:
    before, after = sample(0), sample(100)
    warning = drive_warning(after, process_rows(before, after, host_cpus=2), host_cpus=2)
    assert warning is not None
    assert "/mnt/c (cp, make)" in warning  # busy (a core) and waiting on I/O (state D); idle vim is not named
    assert "9P" in warning and "vim" not in warning and "cc1" not in warning
    idle = drive_warning(before, process_rows(before, before, host_cpus=2), host_cpus=2)
    assert idle is not None and "/mnt/c (cp)" in idle  # no CPU in a zero window: only the D-state cp


async def test_a_collection_on_windows_reports_both_sides(tmp_path: Path) -> None:
    """The collector with the process-table and PDH twins: the WSL VM's working set from its host
    row beside the Linux used and cached view, the commit from PDH."""
    from tests.observe.helpers import ScriptedReader
    from tests.observe.windows_scenarios import table, windows_processes
    from wslmcp.fakes.windows_processes import FakeWindowsProcesses
    from wslmcp.observe.collector import Collector, CollectorConfig
    from wslmcp.observe.sources import HostSources

    timeline = []
    for i, counters in enumerate(pdh_samples() * 2):  # four samples, 3 s apart
        live = PdhQuery(dll=PdhDllStandin([counters])).collect()
        (tmp_path / f"p{i}.json").write_text(json.dumps(sample_to_json(live)))
        (tmp_path / f"w{i}.json").write_text(json.dumps(table(windows_processes(), i)))
        timeline.append({"t_ms": 3000 * i, "pdh": {"file": f"p{i}.json"}, "windows": {"file": f"w{i}.json"}})
    manifest = {"schema": SCHEMA, "name": "w", "timeline": timeline, "hold_last_ms": 60000}
    (tmp_path / "scenario.json").write_text(json.dumps(manifest))
    scenario, clock = Scenario.load(tmp_path), FakeClock(0.0)
    sources = HostSources(windows=FakeWindowsProcesses(scenario, clock), pdh=FakePdhCounters(scenario, clock))
    config = CollectorConfig(interval_s=3.0, docker=False, wslc=False)
    summary = (await Collector(clock, config, ScriptedReader(), sources=sources).collect()).summary.to_json()
    memory = summary["pressure"]["memory"]
    vmmem = next(w for w in windows_processes() if w.name.lower().startswith("vmmem"))
    assert memory["wsl_vm_working_set_bytes"] == vmmem.ws_mib << 20
    assert (
        memory["windows_committed_bytes"] == (12 << 30) + 1 and memory["windows_hard_faults_per_s"] == 300.0
    )
    assert memory["linux_total_bytes"] == 16_303_428 * 1024  # the distro's own view beside it
    assert summary["pressure"]["io"]["windows_disks"][0]["name"] == "0 C:"
