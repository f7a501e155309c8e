"""Parsing raw /proc bytes and the CPU accounting rules (null rules, PID reuse, host scale)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import examples
from tests.observe.scenario_factory import Proc, stat_line
from wslmcp.boundaries.procfs import ProcSample
from wslmcp.observe.accounting import RawSample, parse_sample, process_rows, wsl_environment
from wslmcp.observe.procstat import (
    KernelCounters,
    kernel_cpu_percent,
    parse_cmdline,
    parse_kernel,
    parse_pid_stat,
    process_name,
)


@settings(max_examples=examples(60), deadline=None)
@given(comm=st.binary(min_size=0, max_size=64).filter(lambda b: b"\0" not in b))
def test_any_comm_survives_between_first_open_and_last_close(comm: bytes) -> None:
    line = stat_line(Proc(42, comm, b"", 1, 777, [(5, 6)]), 5, 6, 777)
    parsed = parse_pid_stat(line)
    assert parsed is not None
    assert parsed.comm == comm.decode("utf-8", errors="replace")
    assert (parsed.pid, parsed.ppid, parsed.utime, parsed.stime, parsed.starttime) == (42, 1, 5, 6, 777)


def test_truncated_or_garbage_stat_is_none() -> None:
    assert parse_pid_stat(b"") is None
    assert parse_pid_stat(b"12 (x) S 1 2") is None
    assert parse_pid_stat(b"no parens here") is None


def test_negative_rss_is_clamped() -> None:
    p = Proc(5, b"x", b"", 1, 1, [(0, 0)], rss_pages=-3)
    parsed = parse_pid_stat(stat_line(p, 0, 0, 1))
    assert parsed is not None and parsed.rss_pages == 0


def test_cmdline_name_is_argv0_basename_and_empty_means_none() -> None:
    assert parse_cmdline(b"/usr/bin/python3\0-c\0x\0").name == "python3"
    assert parse_cmdline(b"/usr/bin/python3\0-c\0x\0").args == "/usr/bin/python3 -c x"
    assert parse_cmdline(b"").name is None and parse_cmdline(None).args is None
    assert parse_cmdline(b"\0\0").name is None


STAT = b"cpu  100 5 50 1000 10 3 2 0 0 0\ncpu0 50 0 25 500 5 1 1 0 0 0\ncpu1 50 5 25 500 5 2 1 0 0 0\n"


def files(stat: bytes = STAT, uptime: bytes = b"10.00 15.00\n", boot: bytes = b"b-1\n") -> dict[str, bytes]:
    return {"stat": stat, "uptime": uptime, "sys/kernel/random/boot_id": boot}


def test_name_is_argv0_basename_only_when_it_agrees_with_comm() -> None:
    assert process_name("python3", parse_cmdline(b"/usr/bin/python3\0-m\0pytest\0")) == "python3"
    # comm cut at 15 characters: argv[0]'s basename completes it
    long = parse_cmdline(b"/opt/bin/containerd-shim-runc-v2\0-namespace\0moby\0")
    assert process_name("containerd-shim", long) == "containerd-shim-runc-v2"
    # a rewritten title never becomes the name, slashes and all
    assert process_name("redis-server", parse_cmdline(b"redis-server *:6379\0")) == "redis-server"
    title = parse_cmdline(b"npm exec @modelcontextprotocol/inspector --method tools/call\0")
    assert process_name("npm exec @model", title) == "npm exec @model"
    # kernel threads and zombies: only comm
    assert process_name("kworker/0:1", parse_cmdline(b"")) == "kworker/0:1"


def test_kernel_busy_is_user_nice_system_irq_softirq() -> None:
    k = parse_kernel(files())
    assert k is not None and k.busy == (100, 5, 50, 3, 2) and k.cpu_count == 2 and k.uptime_s == 10.0


def test_kernel_cpu_percent_and_its_null_rules() -> None:
    a = KernelCounters((100, 0, 0, 0, 0), 2, 10.0, "b", all_ticks=2000)
    b = KernelCounters((200, 0, 0, 0, 0), 2, 11.0, "b", all_ticks=2200)  # 1 s of 2 CPUs, on their clock
    assert kernel_cpu_percent(a, b, 100, 2) == 50.0
    assert kernel_cpu_percent(a, b, 100, 4) == 25.0  # two of the host's four CPUs
    assert (
        kernel_cpu_percent(a, KernelCounters((200, 0, 0, 0, 0), 2, 11.0, "other", all_ticks=2200), 100, 2)
        is None
    )
    assert (
        kernel_cpu_percent(a, KernelCounters((200, 0, 0, 0, 0), 4, 11.0, "b", all_ticks=2200), 100, 2) is None
    )
    assert (
        kernel_cpu_percent(a, KernelCounters((200, 0, 0, 0, 0), 2, 11.0, "b", all_ticks=2000), 100, 2) is None
    )
    assert (
        kernel_cpu_percent(a, KernelCounters((50, 0, 60, 0, 0), 2, 11.0, "b", all_ticks=2200), 100, 2) is None
    )
    assert kernel_cpu_percent(a, b, 100, 0) is None
    assert kernel_cpu_percent(None, b, 100, 2) is None
    assert parse_kernel(files(boot=b"")) is None and parse_kernel(files(stat=b"intr 1\n")) is None


@given(
    cpus=st.integers(1, 64),
    host=st.integers(1, 64),
    before=st.lists(st.integers(0, 10**9), min_size=6, max_size=6),
    grown=st.lists(st.integers(0, 10**6), min_size=6, max_size=6),
    uptimes=st.tuples(st.floats(0, 1e6), st.floats(0, 1e6)),
)
def test_the_kernel_never_reads_more_than_its_share_of_the_machine(
    cpus: int, host: int, before: list[int], grown: list[int], uptimes: tuple[float, float]
) -> None:
    """Busy ticks (five counters) and idle are counted on one clock: whatever /proc/uptime says, the
    kernel's figure is at most its CPUs' share of the host's, so never above 100 %."""
    after = [b + g for b, g in zip(before, grown, strict=True)]

    def counters(v: list[int], up: float) -> KernelCounters:
        return KernelCounters((v[0], v[1], v[2], v[3], v[4]), cpus, up, "b", all_ticks=sum(v))

    value = kernel_cpu_percent(counters(before, uptimes[0]), counters(after, uptimes[1]), 100, host)
    if value is not None:
        assert 0 <= value <= 100.0 * min(cpus, host) / host + 1e-9


def raw(t: float, procs: list[tuple[int, int, int]], uptime: float | None = None, ppid: int = 1) -> RawSample:
    fs = {
        f"{pid}/stat": stat_line(Proc(pid, b"p", b"", ppid, start, [(ticks, 0)]), ticks, 0, start)
        for pid, start, ticks in procs
    }
    if uptime is not None:
        fs["uptime"] = b"%.2f 0.00\n" % uptime
    return RawSample(t, parse_sample(ProcSample.build(fs, clk_tck=100, page_size=4096)))


def test_cpu_from_deltas_matched_by_pid_and_starttime() -> None:
    before = raw(0.0, [(1, 10, 100), (2, 20, 500), (3, 30, 0)])
    after = raw(2.0, [(1, 10, 300), (2, 99, 10), (4, 40, 50)])
    rows = {r.pid: r for r in process_rows(before, after, host_cpus=4)}
    assert rows[1].cpu_percent == 25.0  # 2 s of CPU in 2 s on 4 CPUs
    # PID 2 reused and PID 4 new, with no uptime to place their start: not in the opening sample,
    # so they started after it was listed, and their CPU counts over the whole window (never None)
    assert rows[2].cpu_percent == 0.1 / 2 / 4 * 100
    assert rows[4].cpu_percent == 0.5 / 2 / 4 * 100
    assert 3 not in rows  # ended processes are not observed
    assert rows[1].identity.start_id == 10 and rows[1].cpu_time_seconds == 3.0


@pytest.mark.parametrize("started", range(10_000, 10_201, 25))  # ticks since boot: every point of the window
def test_a_process_born_inside_the_window_is_rated_over_the_part_it_lived(started: int) -> None:
    """The window runs from uptime 100.00 s to 102.00 s; a process that started at ``started``
    ticks and kept half a core busy has used half of the time it lived."""
    lived_ticks = 10_200 - started
    before = raw(0.0, [(1, 5, 100)], uptime=100.0)
    after = raw(2.0, [(1, 5, 100), (7, started, lived_ticks // 2)], uptime=102.0)
    row = {r.pid: r for r in process_rows(before, after, host_cpus=4)}[7]
    assert row.cpu_percent is not None
    # cores = CPU seconds / seconds lived; born at the closing read, it has used nothing yet
    expected = (lived_ticks // 2) / lived_ticks / 4 * 100 if lived_ticks else 0.0
    assert row.cpu_percent == pytest.approx(expected)


def test_a_process_running_before_the_window_but_missing_from_its_opening_sample_has_no_rate() -> None:
    """A distro sampled for the first time, or a PID the opening sample missed: when it started
    long before the window, what it used inside the window cannot be told from one reading."""
    before = raw(0.0, [(1, 5, 100)], uptime=100.0)
    after = raw(2.0, [(1, 5, 100), (8, 2_000, 900)], uptime=102.0)
    rows = {r.pid: r for r in process_rows(before, after, host_cpus=4)}
    assert rows[8].cpu_percent is None
    appeared = RawSample(2.0, after.primary, extras={"Debian": after.primary})  # not in the opening sample
    debian = [r for r in process_rows(before, appeared, host_cpus=4) if r.identity.source == "Debian"]
    assert debian and all(r.cpu_percent is None for r in debian)


def test_a_parent_is_named_only_when_it_is_in_the_sample_and_started_no_later() -> None:
    after = raw(
        2.0,
        [(1, 5, 0), (20, 100, 0), (21, 150, 0), (30, 90, 0)],
        uptime=102.0,
        ppid=20,  # every process names PID 20 as its parent
    )
    rows = {r.pid: r for r in process_rows(raw(0.0, [], uptime=100.0), after, host_cpus=4)}
    parent = rows[20].identity
    assert rows[21].parents == (parent,)  # started after its parent
    assert rows[30].parents == ()  # started before PID 20: a reused PID, not its parent
    assert rows[1].parents == ()  # ditto
    assert rows[20].parents == ()  # never its own parent


def kernel_only(t: float, busy: int, uptime: float, clk_tck: int) -> RawSample:
    """Two CPUs busy ``busy`` ticks since boot, idle the rest of ``uptime``."""
    idle = round(uptime * 2 * clk_tck) - busy
    stat = b"cpu  %d 0 0 %d 0 0 0 0 0 0\ncpu0 0 0 0 0 0 0 0 0 0 0\ncpu1 0 0 0 0 0 0 0 0 0 0\n" % (busy, idle)
    fs = files(stat=stat, uptime=b"%.2f 0.00\n" % uptime)
    return RawSample(t, parse_sample(ProcSample.build(fs, clk_tck=clk_tck, page_size=4096)))


def test_wsl_cpu_is_null_when_the_tick_rate_changes_between_samples() -> None:
    same, warnings = wsl_environment(kernel_only(0, 100, 10.0, 100), kernel_only(1, 200, 11.0, 100), [], 2)
    assert same.cpu_percent == 50.0 and warnings == []
    changed, warnings = wsl_environment(kernel_only(0, 100, 10.0, 100), kernel_only(1, 200, 11.0, 250), [], 2)
    assert changed.cpu_percent is None
    assert any("WSL cpu_percent is null" in w for w in warnings)


def test_a_light_sample_reuses_what_the_previous_one_read_for_the_same_process() -> None:
    def line(pid: int, start: int, ticks: int) -> bytes:
        return stat_line(Proc(pid, b"p", b"", 1, start, [(ticks, 0)]), ticks, 0, start)

    full = {"1/stat": line(1, 5, 10), "1/cmdline": b"/bin/editor\0--x\0", "1/cwd": b"/mnt/c/src"}
    full |= {
        "2/stat": line(2, 6, 10),
        "2/cmdline": b"/bin/make\0",
        "3/stat": line(3, 7, 0),
        "3/cmdline": b"/bin/old\0",
    }
    prev = parse_sample(ProcSample.build(full, 100, 4096))
    light = {
        "1/stat": line(1, 5, 10),
        "2/stat": line(2, 6, 99),
        "3/stat": line(3, 70, 0),
    }  # 3 is a reused PID
    now = parse_sample(ProcSample.build(light, 100, 4096), prev)
    assert now.processes[1][0] is prev.processes[1][0]  # the same stat line: not parsed again
    assert now.processes[1][1].args == "/bin/editor --x" and now.cwds[1] == b"/mnt/c/src"  # carried over
    assert now.processes[2][0].utime == 99 and now.processes[2][1].name == "make"
    assert now.processes[3][1].name is None and 3 not in now.cwds  # another process: nothing carried


def _stat(pid: int, ppid: int, start: int, ticks: int, children: int = 0) -> bytes:
    """A stat line with utime ``ticks`` and cutime ``children`` (the ticks of reaped children)."""
    rest = ["S", ppid, pid, pid, 0, -1, 0, 0, 0, 0, 0, ticks, 0, children, 0, 20, 0, 1, 0, start, 0, 10, "0"]
    return b"%d (p) " % pid + " ".join(map(str, [*rest, *[0] * 29])).encode() + b"\n"


def _sample(t: float, uptime: float, *lines: bytes) -> RawSample:
    fs = {f"{line.split()[0].decode()}/stat": line for line in lines}
    fs["uptime"] = b"%.2f 0.00\n" % uptime
    return RawSample(t, parse_sample(ProcSample.build(fs, clk_tck=100, page_size=4096)))


def test_children_no_sample_saw_are_charged_to_the_parent_that_reaped_them() -> None:
    """make (PID 10) reaped, inside the window, gcc (PID 11: 30 ticks seen in the opening sample,
    50 in all), the cc1 gcc had reaped (PID 15: 40 seen, 60 in all) and compilers no sample saw (250
    ticks): its children counter grew by 50 + 60 + 250, of which the samples saw 30 + 40. PID 12,
    born inside the window, reaped 80 ticks of children; PID 13 reaped nothing; PID 14 ran before
    the window but is not in its opening sample: unknown."""
    before = _sample(0.0, 100.0, _stat(10, 1, 5, 40, 100), _stat(11, 10, 9_950, 30), _stat(15, 11, 9_960, 40))
    after = _sample(
        2.0,
        102.0,
        _stat(10, 1, 5, 45, 100 + 50 + 60 + 250),
        _stat(12, 1, 10_100, 5, 80),
        _stat(13, 1, 10_150, 5),
        _stat(14, 1, 2_000, 5, 70),
    )
    rows = {r.pid: r for r in process_rows(before, after, host_cpus=2)}
    assert rows[10].exited_children_cpu_s == pytest.approx(2.9)
    assert rows[12].exited_children_cpu_s == pytest.approx(0.8)
    assert rows[13].exited_children_cpu_s == 0.0
    assert rows[14].exited_children_cpu_s is None
    assert 11 not in rows and parse_pid_stat(_stat(10, 1, 5, 45, 400)).children_ticks == 400  # type: ignore[union-attr]
