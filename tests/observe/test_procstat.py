"""Parsing raw /proc bytes and the CPU accounting rules (null rules, PID reuse, host scale)."""

from __future__ import annotations

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
    a = KernelCounters((100, 0, 0, 0, 0), 2, 10.0, "b")
    b = KernelCounters((200, 0, 0, 0, 0), 2, 11.0, "b")
    assert kernel_cpu_percent(a, b, 100, 2) == 50.0
    assert kernel_cpu_percent(a, KernelCounters((200, 0, 0, 0, 0), 2, 11.0, "other"), 100, 2) is None
    assert kernel_cpu_percent(a, KernelCounters((200, 0, 0, 0, 0), 4, 11.0, "b"), 100, 2) is None
    assert kernel_cpu_percent(a, KernelCounters((200, 0, 0, 0, 0), 2, 10.0, "b"), 100, 2) is None
    assert kernel_cpu_percent(a, KernelCounters((50, 0, 60, 0, 0), 2, 11.0, "b"), 100, 2) is None
    assert kernel_cpu_percent(a, b, 100, 0) is None
    assert kernel_cpu_percent(None, b, 100, 2) is None
    assert parse_kernel(files(boot=b"")) is None and parse_kernel(files(stat=b"intr 1\n")) is None


def raw(t: float, procs: list[tuple[int, int, int]]) -> RawSample:
    fs = {
        f"{pid}/stat": stat_line(Proc(pid, b"p", b"", 1, start, [(ticks, 0)]), ticks, 0, start)
        for pid, start, ticks in procs
    }
    return RawSample(t, parse_sample(ProcSample.build(fs, clk_tck=100, page_size=4096)))


def test_cpu_from_deltas_matched_by_pid_and_starttime() -> None:
    before = raw(0.0, [(1, 10, 100), (2, 20, 500), (3, 30, 0)])
    after = raw(2.0, [(1, 10, 300), (2, 99, 10), (4, 40, 50)])
    rows = {r.pid: r for r in process_rows(before, after, host_cpus=4)}
    assert rows[1].cpu_percent == 25.0  # 2 s of CPU in 2 s on 4 CPUs
    assert rows[2].cpu_percent is None  # PID 2 reused: no bogus (negative) rate
    assert rows[4].cpu_percent is None  # new process
    assert 3 not in rows  # ended processes are not observed
    assert rows[1].identity.start_id == 10 and rows[1].cpu_time_seconds == 3.0


def kernel_only(t: float, busy: int, uptime: float, clk_tck: int) -> RawSample:
    stat = b"cpu  %d 0 0 0 0 0 0 0 0 0\ncpu0 0 0 0 0 0 0 0 0 0 0\ncpu1 0 0 0 0 0 0 0 0 0 0\n" % busy
    fs = files(stat=stat, uptime=b"%.2f 0.00\n" % uptime)
    return RawSample(t, parse_sample(ProcSample.build(fs, clk_tck=clk_tck, page_size=4096)))


def test_wsl_cpu_is_null_when_the_tick_rate_changes_between_samples() -> None:
    same, warnings = wsl_environment(kernel_only(0, 100, 10.0, 100), kernel_only(1, 200, 11.0, 100), [], 2)
    assert same.cpu_percent == 50.0 and warnings == []
    changed, warnings = wsl_environment(kernel_only(0, 100, 10.0, 100), kernel_only(1, 200, 11.0, 250), [], 2)
    assert changed.cpu_percent is None
    assert any("WSL cpu_percent is null" in w for w in warnings)
