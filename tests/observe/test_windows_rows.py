"""Windows rows from two process tables: rates from matched (pid, creation time), unreadable CPU
kept as null and counted, VM host rows, applications as sums of their members, the windows
environment."""

from __future__ import annotations

import pytest

from wslmcp.boundaries.windows_processes import FILETIME_UNIX_OFFSET_S, WindowsProcess, WindowsTable
from wslmcp.observe.windows import windows_rows


def proc(
    pid: int,
    name: str,
    cpu: float | None,
    mem: int | None = 1000,
    *,
    start: int | None = None,
    exe: str | None = None,
) -> WindowsProcess:
    return WindowsProcess(
        pid, 4, name, start if start is not None else pid * 10, cpu, mem, exe, (name, "--x")
    )


def table(*ps: WindowsProcess) -> WindowsTable:
    return WindowsTable(ps, 16, 32 << 30, 8 << 30, tuple(p.pid for p in ps if p.cpu_seconds is None))


def by_name(rows: object) -> dict[str, object]:
    return {r.name: r for r in rows}  # type: ignore[attr-defined]


def test_rates_use_matched_processes_on_the_host_scale() -> None:
    got = windows_rows(table(proc(10, "a.exe", 1.0)), table(proc(10, "a.exe", 4.0)), 3.0, 16)
    row = got.processes[0]
    assert row.cpu_percent == pytest.approx(3.0 / 3.0 / 16 * 100) and row.identity.start_id == 100
    assert row.args == "a.exe --x" and row.identity.kind == "process"
    assert got.environment.cpu_percent == pytest.approx(6.25) and got.environment.memory_bytes == 1000


def filetime(wall_s: float) -> int:
    return round((wall_s + FILETIME_UNIX_OFFSET_S) * 10**7)


def test_a_process_new_in_the_window_is_rated_over_the_part_it_lived() -> None:
    """Closing table read at wall 1000.0 s, 3 s after the opening one: a PID reused 1.5 s ago, a
    process created 0.5 s ago, one created an hour ago that the opening table missed."""
    got = windows_rows(
        table(proc(10, "a.exe", 1.0)),
        table(
            proc(10, "b.exe", 0.75, start=filetime(998.5)),
            proc(11, "c.exe", 0.5, start=filetime(999.5)),
            proc(12, "d.exe", 50.0, start=filetime(-2600.0)),
        ),
        3.0,
        16,
        closing_wall=1000.0,
    )
    rates = [r.cpu_percent for r in got.processes]
    assert rates[0] == pytest.approx(0.75 / 1.5 / 16 * 100)  # half a core over the 1.5 s it lived
    assert rates[1] == pytest.approx(0.5 / 0.5 / 16 * 100)
    assert rates[2] is None  # running long before the window: one reading tells nothing about it
    assert got.warnings == () and got.environment.cpu_percent == pytest.approx(rates[0] + rates[1])


def test_without_the_closing_wall_time_a_new_process_counts_over_the_whole_window() -> None:
    got = windows_rows(table(proc(10, "a.exe", 1.0)), table(proc(11, "c.exe", 3.0)), 3.0, 16)
    assert got.processes[0].cpu_percent == pytest.approx(3.0 / 3.0 / 16 * 100)


def test_unreadable_cpu_stays_a_null_row_is_counted_and_nulls_the_environment_sum() -> None:
    before = table(proc(10, "a.exe", 1.0), proc(20, "MsMpEng.exe", None), proc(30, "System", None))
    after = table(proc(10, "a.exe", 4.0), proc(20, "MsMpEng.exe", None), proc(30, "System", None))
    got = windows_rows(before, after, 3.0, 16)
    rows = by_name(got.processes)
    assert rows["MsMpEng.exe"].cpu_percent is None and rows["MsMpEng.exe"].memory_bytes == 1000  # type: ignore[attr-defined]
    assert len(got.processes) == 3
    assert got.environment.cpu_percent is None and got.environment.memory_bytes == 3000
    assert (
        len(got.warnings) == 1
        and "2 Windows processes" in got.warnings[0]
        and "MsMpEng.exe" in got.warnings[0]
    )


def test_vm_hosts_are_host_rows_outside_the_windows_sum() -> None:
    ps = (
        proc(10, "vmmemWSL", 1.0, 4 << 30),
        proc(11, "vmmemwslc-1a2b", 1.0, 2 << 30),
        proc(12, "x.exe", 1.0),
    )
    got = windows_rows(table(*ps), table(*ps), 3.0, 16)
    kinds = {r.name: r.identity.kind for r in got.processes}
    assert kinds == {"vmmemWSL": "host", "vmmemwslc-1a2b": "host", "x.exe": "process"}
    assert got.wsl_host is not None and got.wsl_host.native_id == "10"
    assert got.wslc_host is not None and got.wslc_host.native_id == "11"
    assert got.environment.memory_bytes == 1000


def test_two_wsl_hosts_resolve_to_none_with_a_warning() -> None:
    ps = (proc(10, "vmmem", 1.0), proc(11, "VMMEMWSL", 1.0))
    got = windows_rows(table(*ps), table(*ps), 3.0, 16)
    assert got.wsl_host is None and any("2 WSL VM host" in w for w in got.warnings)


def test_applications_sum_their_members_and_parent_them() -> None:
    exe = r"C:\Program Files\Google\Chrome\Application\chrome.exe"
    before = table(
        proc(10, "chrome.exe", 1.0, exe=exe), proc(11, "chrome.exe", 2.0, exe=exe), proc(12, "solo.exe", 0.0)
    )
    after = table(
        proc(10, "chrome.exe", 2.5, 100, exe=exe),
        proc(11, "chrome.exe", 3.5, 200, exe=exe),
        proc(12, "solo.exe", 0.0),
    )
    got = windows_rows(before, after, 3.0, 16)
    assert len(got.applications) == 1
    app = got.applications[0]
    assert app.identity.kind == "application" and app.pid is None and app.name == "chrome.exe"
    assert app.cpu_percent == pytest.approx(3.0 / 3.0 / 16 * 100) and app.memory_bytes == 300
    members = [r for r in got.processes if r.parents == (app.identity,)]
    assert sorted(r.pid or 0 for r in members) == [10, 11]
    assert by_name(got.processes)["solo.exe"].parents == ()  # type: ignore[attr-defined]


def test_no_windows_processes_is_a_real_zero() -> None:
    got = windows_rows(table(), table(), 3.0, 16)
    assert got.environment.cpu_percent == 0.0 and got.environment.memory_bytes == 0
