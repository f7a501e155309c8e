"""One contract for the Windows-processes port over the real psutil adapter (on Linux: this
machine's processes, for the shape; Windows specifics skip) and the recorded twin: rows with
identity, unreadable values as None and counted (never 0), host memory and CPU count; recording."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import psutil
import pytest

from wslmcp.boundaries.windows_processes import (
    FILETIME_UNIX_OFFSET_S,
    WindowsProcess,
    WindowsProcesses,
    WindowsTable,
    filetime_from_epoch,
)
from wslmcp.boundaries.windows_psutil import PsutilWindowsProcesses, process_row
from wslmcp.fakes.clock import FakeClock
from wslmcp.fakes.windows_processes import (
    FakeWindowsProcesses,
    RecordingWindowsProcesses,
    table_from_json,
    table_to_json,
)
from wslmcp.scenario.loader import Scenario
from wslmcp.scenario.manifest import SCHEMA
from wslmcp.scenario.recorder import ScenarioWriter

RECORDED = WindowsTable(
    processes=[
        WindowsProcess(4, 0, "System", 133_900_000_000_000_000, 812.5, 155_648),
        WindowsProcess(1234, 1000, "Code.exe", 133_900_000_100_000_000, 61.25, 250_000_000,
                       r"C:\Users\me\AppData\Local\Programs\Microsoft VS Code\Code.exe", ("Code.exe", "--type=renderer")),
        WindowsProcess(5678, 4, "MsMpEng.exe", 133_900_000_050_000_000, None, None, None, None),
        WindowsProcess(9012, 700, "vmmemWSL", 133_900_000_060_000_000, 3000.0, 4_000_000_000),
    ],
    logical_cpus=16,
    memory_total_bytes=34_000_000_000,
    memory_available_bytes=12_000_000_000,
    cpu_unreadable=(5678,),
)  # fmt: skip


def _scenario(root: Path, table: WindowsTable) -> Scenario:
    (root / "w.json").write_text(json.dumps(table_to_json(table)))
    manifest = {"schema": SCHEMA, "name": "w", "timeline": [{"t_ms": 0, "windows": {"file": "w.json"}}],
                "hold_last_ms": 1000}  # fmt: skip
    (root / "scenario.json").write_text(json.dumps(manifest))
    return Scenario.load(root)


@pytest.fixture(params=["psutil", "twin"])
def source(request: pytest.FixtureRequest, tmp_path: Path) -> WindowsProcesses:
    if request.param == "twin":
        return FakeWindowsProcesses(_scenario(tmp_path, RECORDED), FakeClock())
    return PsutilWindowsProcesses()


def test_a_table_holds_identified_rows_and_the_host_figures(source: WindowsProcesses) -> None:
    table = source.read()
    assert table.logical_cpus >= 1
    assert 0 < table.memory_available_bytes <= table.memory_total_bytes
    assert table.processes and all(p.pid > 0 for p in table.processes)
    assert len({p.pid for p in table.processes}) == len(table.processes)
    for p in table.processes:
        assert p.cpu_seconds is None or p.cpu_seconds >= 0
        assert p.create_time_100ns is None or p.create_time_100ns > FILETIME_UNIX_OFFSET_S * 10**7
    assert table.cpu_unreadable == tuple(p.pid for p in table.processes if p.cpu_seconds is None)


def test_the_twin_gives_the_recorded_table_unreadable_rows_kept(tmp_path: Path) -> None:
    table = FakeWindowsProcesses(_scenario(tmp_path, RECORDED), FakeClock()).read()
    assert table == RECORDED
    defender = next(p for p in table.processes if p.name == "MsMpEng.exe")
    assert (defender.cpu_seconds, defender.working_set_bytes) == (None, None)


def test_psutil_reports_this_process_as_it_is() -> None:
    me = next(p for p in PsutilWindowsProcesses().read().processes if p.pid == os.getpid())
    proc = psutil.Process()
    assert me.ppid == os.getppid()
    assert me.create_time_100ns == filetime_from_epoch(proc.create_time())
    assert me.cmdline is not None and me.cmdline[0] == proc.cmdline()[0]
    assert me.exe == proc.exe() and me.name == proc.name()
    assert me.cpu_seconds is not None and 0 < me.cpu_seconds <= time.process_time() + 1
    assert me.working_set_bytes is not None and me.working_set_bytes > 1 << 20


def test_what_psutil_could_not_read_is_none_never_zero() -> None:
    # psutil's as_dict(ad_value=None) for a protected process (AccessDenied on cpu_times/memory/cmdline)
    denied = process_row({"pid": 5678, "ppid": 4, "name": "MsMpEng.exe", "exe": None, "cmdline": None,
                          "create_time": None, "cpu_times": None, "memory_info": None})  # fmt: skip
    assert denied == WindowsProcess(5678, 4, "MsMpEng.exe", None, None, None, None, None)
    nameless = process_row({"pid": 7, "name": None, "exe": "C:\\Windows\\System32\\svchost.exe"})
    assert nameless.name == "svchost.exe"


def test_filetime_is_100ns_since_1601() -> None:
    assert filetime_from_epoch(0.0) == 116_444_736_000_000_000
    assert filetime_from_epoch(1.5) - filetime_from_epoch(0.0) == 15_000_000


def test_recording_writes_tables_the_twin_replays_with_command_lines_cut(tmp_path: Path) -> None:
    writer = ScenarioWriter(tmp_path / "rec", "rec", "", FakeClock())
    inner = FakeWindowsProcesses(_scenario(tmp_path, RECORDED), FakeClock())
    handed = RecordingWindowsProcesses(inner, writer).read()
    writer.manifest["hold_last_ms"] = 100
    replayed = FakeWindowsProcesses(Scenario.load(writer.commit()), FakeClock()).read()
    code = next(p for p in replayed.processes if p.pid == 1234)
    assert code.cmdline == ("Code.exe",)
    assert handed == replayed  # the caller reads now what its replay will read: redacted as written
    assert replayed.processes[0] == RECORDED.processes[0]
    assert table_from_json(table_to_json(RECORDED)) == RECORDED


@pytest.mark.skipif(
    sys.platform != "win32", reason="needs a real Windows host (Idle, System, FILETIME identities)"
)
def test_on_windows_idle_is_left_out_and_system_is_listed() -> None:
    table = PsutilWindowsProcesses().read()
    assert 0 not in {p.pid for p in table.processes}
    assert any(p.pid == 4 and p.name == "System" for p in table.processes)
    assert table.logical_cpus == psutil.cpu_count()
