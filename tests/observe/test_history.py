"""The history: the sampler on a virtual clock over scripted /proc samples, the bounded rings, the
ranked consumers (a process that lived between two calls still counts), gaps, events, the metric
series and the answers' shapes."""

from __future__ import annotations

import json
import math
import re
from array import array
from typing import Any

import pytest

from tests.observe.helpers import ScriptedReader
from tests.observe.scenario_factory import Kernel, Proc
from wslmcp.boundaries.replay_miss import NotRecorded
from wslmcp.fakes.clock import FakeClock
from wslmcp.observe.collector import Collector, CollectorConfig
from wslmcp.observe.errors import UnknownMetric
from wslmcp.observe.handlers import answer
from wslmcp.observe.history import METRICS, TOP_CPU, Event, FrameParts, History, Key, Usage
from wslmcp.observe.history_queries import HistoryQuery, Now, history_answer
from wslmcp.observe.sampler import HistorySampler
from wslmcp.observe.service import ObserveService
from wslmcp.observe.store import SnapshotStore
from wslmcp.observe.tools import TOOLS, parse_call

INTERVAL = 5.0
CPUS = 4
STEPS = 40


def kernel(busy_share: list[float]) -> Kernel:
    """A 4-CPU kernel whose busy share in the interval before sample ``i`` is ``busy_share[i]``."""
    busy, total = [], 0
    for share in busy_share:
        total += round(share * CPUS * 100 * INTERVAL)
        busy.append((10_000 + total, 0, 0, 0, 0))
    return Kernel(CPUS, busy, [1000.0 + INTERVAL * i for i in range(len(busy_share))])


def proc(pid: int, name: str, cores: float, alive: range, *, rss: int = 1000, start: int = 100) -> Proc:
    """Using ``cores`` while alive (present in the samples of ``alive``), absent otherwise."""
    ticks: list[tuple[int, int] | None] = []
    for i in range(STEPS):
        ticks.append((round(cores * 100 * INTERVAL * (i - alive.start)), 0) if i in alive else None)
    return Proc(pid, name.encode(), f"/usr/bin/{name}\0".encode(), 1, start, ticks, rss)


def busy_kernel() -> Kernel:
    return kernel([0.3] * STEPS)


class Rig:
    """A server on a virtual clock whose first request comes after ``samples`` samples (the way a
    replay runs: the first request walks the clock through them); ``samples=None``: nothing is
    sampled unless ``tick`` is called."""

    def __init__(
        self, processes: list[Proc], k: Kernel | None = None, *, samples: int | None = 4, minutes: int = 60
    ) -> None:
        self.clock = FakeClock(1000.0)
        self.reader = ScriptedReader(processes, k or busy_kernel())
        config = CollectorConfig(
            interval_s=3.0, wsl_only=True, docker=False, wslc=False, local_distro="Ubuntu"
        )
        self.collector = Collector(self.clock, config, self.reader)
        capacity = int(minutes * 60 / INTERVAL)
        self.history = History(capacity, INTERVAL, self.clock.monotonic(), int(self.clock.wall() * 1000))
        first = None if samples is None else (samples - 1) * INTERVAL
        self.sampler = HistorySampler(
            self.clock, self.collector, self.history, real_time=False, first_request_s=first
        )
        self.service = ObserveService(SnapshotStore(self.clock, "t"), self.collector, self.sampler)

    async def tick(self, samples: int) -> None:
        for _ in range(samples):
            await self.sampler.tick()
            self.clock.advance(INTERVAL)

    async def ask(self, tool: str, **args: Any) -> dict[str, Any]:
        return await answer(self.service, parse_call(tool, args))


def names(payload: dict[str, Any]) -> list[str]:
    return [e["name"] for e in payload["top"]]


async def test_a_process_that_lived_between_two_calls_still_counts() -> None:
    rig = Rig(
        [
            proc(10, "editor", 0.05, range(STEPS)),
            proc(20, "cc1plus", 1.5, range(3, 7), start=200),  # lived 20 s, ended long before the call
            proc(21, "cc1plus", 1.0, range(4, 6), start=210),
            proc(30, "sleeper", 0.0, range(STEPS), rss=50_000),
        ],
        samples=12,
    )
    got = await rig.ask("get_history", window_s=300)
    top = {e["name"]: e for e in got["top"]}
    assert names(got)[0] == "cc1plus"
    cc = top["cc1plus"]
    # 1.5 cores for 3 intervals (its first sample is a baseline of 0) + 1 core for 1 interval: seconds of CPU
    assert cc["cpu_seconds"] == pytest.approx(1.5 * 3 * INTERVAL + 1.0 * INTERVAL)
    assert cc["processes"] == 2 and cc["alive"] is False and cc["last_seen_s_ago"] > 0
    assert "resource_id" not in cc
    assert "sleeper" not in top  # used no CPU: not in a ranking by CPU
    assert got["history"]["samples"] == 11 and got["history"]["interval_ms"] == 5000


async def test_by_memory_and_per_process_with_resource_ids_for_the_living() -> None:
    rig = Rig([proc(10, "editor", 0.05, range(STEPS)), proc(30, "ballast", 0.0, range(STEPS), rss=500_000)])
    by_memory = await rig.ask("get_history", by="memory", resource_kind="process", top=1)
    entry = by_memory["top"][0]
    assert entry["name"] == "ballast" and entry["peak_memory_bytes"] == 500_000 * 4096
    assert entry["kind"] == "process" and entry["pid"] == 30 and entry["alive"] is True
    inspected = await rig.ask(
        "inspect_resource", snapshot_id=by_memory["snapshot_id"], resource_id=entry["resource_id"]
    )
    assert inspected["data"]["usage"]["pid"] == 30


async def test_the_environment_filter_and_the_container_level() -> None:
    rig = Rig([proc(10, "editor", 0.05, range(STEPS))])
    assert names(await rig.ask("get_history", environment="wsl")) == ["editor"]
    assert (await rig.ask("get_history", environment="windows"))["top"] == []
    assert (await rig.ask("get_history", resource_kind="container"))["top"] == []


async def test_frames_and_keys_are_bounded_whatever_runs() -> None:
    """Two minutes of history (24 frames); a new busy process every interval, each living one
    sample: the ring keeps 24 frames and only the keys those frames name."""
    churn = [proc(100 + i, f"job{i}", 1.0, range(i, i + 2), start=1000 + i) for i in range(STEPS - 2)]
    rig = Rig(churn, minutes=2, samples=STEPS)
    await rig.ask("get_history")
    assert len(rig.history.frames) == 24
    named = {u.key for f in rig.history.frames for level in range(3) for u in f.usage(level)}
    assert set(rig.history.index.values()) == named
    assert len(rig.history.index) <= 24 * 3 * (TOP_CPU + 12)


async def test_a_failed_sample_is_a_gap_that_says_why() -> None:
    rig = Rig([proc(10, "editor", 0.05, range(STEPS))], samples=None)
    await rig.tick(3)
    rig.reader.fail_next = True
    await rig.tick(3)
    got = await rig.ask("get_history")
    assert any("sample failed" in g["why"] and "/proc" in g["why"] for g in got["history"]["gaps"])
    assert got["history"]["samples"] == 3  # two before the failure, one after the new baseline


async def test_empty_history_is_an_answer_that_says_why() -> None:
    first = await Rig([proc(10, "editor", 0.05, range(STEPS))], samples=1).ask("get_history")
    assert first["top"] == [] and first["history"]["samples"] == 0
    assert "no sample yet" in first["history"]["why_empty"]
    off = Rig([proc(10, "editor", 0.05, range(STEPS))], minutes=0)
    assert (await off.ask("get_history"))["history"]["why_empty"] == "history is off (--history-minutes 0)"
    replay = Rig([proc(10, "editor", 0.05, range(STEPS))], samples=None)  # a scenario without history
    with pytest.raises(NotRecorded, match="first_request_ms"):  # a replay miss, not an empty history
        await replay.ask("get_history")


async def test_usage_stats_and_unattributed_cpu() -> None:
    rig = Rig(
        [proc(10, "editor", 0.2, range(STEPS))], kernel([0.3] * 10 + [0.8] * 10 + [0.3] * 20), samples=20
    )
    got = await rig.ask("get_history")
    cpu = got["usage"]["wsl"]["cpu_percent"]
    assert cpu["max"] == pytest.approx(80.0) and cpu["p95"] == pytest.approx(80.0)
    assert cpu["avg"] == pytest.approx((9 * 30 + 10 * 80) / 19, abs=0.05)  # one decimal
    assert got["usage"]["host"] is None and got["usage"]["docker"] is None
    # kernel busy seconds minus the processes' (0.2 of a core): what no process accounts for
    spent = sum(0.3 if i < 10 else 0.8 for i in range(1, 20)) * CPUS * INTERVAL
    assert got["unattributed"]["wsl_cpu_seconds"] == pytest.approx(spent - 0.2 * 19 * INTERVAL)
    assert got["unattributed"]["windows_cpu_seconds"] is None


async def test_an_episode_of_two_samples_or_more_is_an_event_with_its_top_three() -> None:
    shares = [0.3] * 5 + [0.95] * 4 + [0.3] * 3 + [0.99] + [0.3] * 27  # the lone spike is no episode
    rig = Rig(
        [
            proc(10, "make", 0.1, range(STEPS)),
            proc(20, "cc1", 2.0, range(5, 9), start=300),
            proc(21, "ld", 1.0, range(6, 9), start=310),
            proc(22, "as", 0.5, range(5, 9), start=320),
        ],
        kernel(shares),
        samples=16,
    )
    events = (await rig.ask("get_history", window_s=3600))["events"]
    assert len(events) == 1
    event = events[0]
    assert (
        event["kind"] == "cpu_busy"
        and event["peak"] == pytest.approx(95.0)
        and event["to_unix_ms"] is not None
    )
    assert event["top"] == ["cc1", "ld", "as"]
    assert event["to_unix_ms"] - event["from_unix_ms"] == 4 * INTERVAL * 1000


async def test_an_ongoing_episode_has_no_end_yet() -> None:
    rig = Rig([proc(10, "make", 0.1, range(STEPS))], kernel([0.3] * 3 + [0.97] * 37), samples=6)
    (event,) = (await rig.ask("get_history"))["events"]
    assert event["to_unix_ms"] is None and event["top"] == ["make"]


async def test_a_metric_series_has_at_most_points_values_and_null_where_no_sample_fell() -> None:
    rig = Rig(
        [proc(10, "editor", 0.05, range(STEPS))], kernel([0.1 * (i % 10) for i in range(STEPS)]), samples=13
    )
    got = await rig.ask("get_metric_series", metric="wsl.cpu_percent", window_s=120, points=12)
    assert set(got) == {"metric", "unit", "t0_unix_ms", "step_ms", "values"}
    assert got["unit"] == "percent" and got["step_ms"] == 10_000 and len(got["values"]) == 12
    assert got["values"][:5] == [None] * 5  # before the server started
    known = [v for v in got["values"] if v is not None]
    assert len(known) >= 6 and all(0 <= v <= 100 for v in known)
    peaks = await rig.ask("get_metric_series", metric="wsl.cpu_percent", window_s=120, points=12, agg="max")
    assert all(p >= a for p, a in zip(peaks["values"][5:], got["values"][5:], strict=True) if a is not None)
    mem = await rig.ask("get_metric_series", metric="memory.psi_some_avg10")
    assert mem["unit"] == "percent" and len(mem["values"]) == 30


async def test_an_unknown_metric_is_a_tool_error_listing_every_metric() -> None:
    rig = Rig([proc(10, "editor", 0.05, range(STEPS))])
    with pytest.raises(UnknownMetric) as err:
        await rig.ask("get_metric_series", metric="host.cpu")
    payload = err.value.payload()
    assert payload["error"]["code"] == "unknown_metric" and payload["metrics"] == list(METRICS)


def test_the_description_names_every_metric() -> None:
    description = next(t.description for t in TOOLS if t.name == "get_metric_series")

    def expand(text: str) -> set[str]:
        match = re.search(r"\{([^{}]*)\}", text)
        if match is None:
            return {text}
        return {
            n
            for part in match.group(1).split(",")
            for n in expand(text[: match.start()] + part + text[match.end() :])
        }

    listed = description.split("Metrics: ", 1)[1].rstrip(".")
    named = {n for item in re.split(r",\s(?![^{]*\})", listed) for n in expand(item.strip())}
    assert named == set(METRICS)


def test_a_default_answer_stays_under_3_kb_on_a_busy_windows_host() -> None:
    """A default answer on a server running on Windows: host, Windows, WSL and Docker observed, ten
    busy applications of several processes each, two CPU episodes in the window."""
    names_ = ["msedgewebview2.exe", "rust-analyzer", "Code.exe", "chrome.exe", "node", "cc1plus",
              "dockerd", "MsMpEng.exe", "clangd", "java", "python3", "Teams.exe"]  # fmt: skip
    apps = [
        Key("application", ("windows", "wsl", "docker")[i % 3], None, n, n, None, "application")
        for i, n in enumerate(names_)
    ]
    history = History(720, INTERVAL, 0.0, 1_795_000_000_000)
    observed = {"host.", "windows.", "wsl.", "docker.", "memory.", "io.", "cpu."}
    for i in range(80):
        usage = tuple(
            (k, Usage(0, 0.123456 * (j + 1) * (i % 5 + 1), 123_456_789 * (j + 1), j + 3))
            for j, k in enumerate(apps)
        )
        values = [
            (45.678 if "percent" in m else 17_123_456_789.0)
            if any(m.startswith(p) for p in observed)
            else math.nan
            for m in METRICS
        ]
        history.add(
            FrameParts(
                at=INTERVAL * (i + 1),
                wall_ms=1_795_000_000_000 + 5000 * (i + 1),
                seconds=INTERVAL,
                host_cpus=16,
                scalars=array("d", values),
                levels=((), usage, ()),
                residual_s=(1.23456, 2.34567),
                first_seen={k: 1_795_000_000_000 for k in apps},
            )
        )
    for i in range(2):
        history.events.append(
            Event("cpu_busy", 1_795_000_200_000 + 60_000 * i, None, 97.123, ("cc1plus", "node", "java"))
        )
    now = Now(INTERVAL * 80, 1_795_000_400_000, {k: 1_795_000_000_000 for k in apps})
    got = history_answer(history, HistoryQuery(), now, lambda keys: {})
    assert len(got["top"]) == 10 and got["usage"]["wslc"] is None and len(got["events"]) == 2
    assert len(json.dumps(got, ensure_ascii=False, separators=(",", ":"))) < 3000


async def test_a_process_born_inside_an_interval_counts_only_the_cpu_it_used() -> None:
    """Born 1 s before sample 3 (uptime 1014 s), it used 1 s of CPU: one second, not a whole
    interval at its rate (one core over the second it lived)."""
    born = Proc(
        40, b"quick", b"/usr/bin/quick\0", 1, 101_400, [None] * 3 + [(100, 0)] + [None] * (STEPS - 4), 1000
    )
    rig = Rig([proc(10, "editor", 0.05, range(STEPS)), born], samples=6)
    top = {e["name"]: e for e in (await rig.ask("get_history"))["top"]}
    assert top["quick"]["cpu_seconds"] == pytest.approx(1.0)
    assert top["quick"]["alive"] is False


async def test_no_figure_of_a_busy_kernel_exceeds_the_machine() -> None:
    """Every CPU busy the whole time, while /proc/uptime (10 ms steps, read apart from /proc/stat)
    lags the counters' clock by a step at every other sample: on uptime's clock the kernel would
    read 100.4 % and 99.6 % by turns; on the counters' own it reads 100 % exactly."""
    counted = [1000.0 + INTERVAL * i for i in range(STEPS)]
    uptime = [t - (0.02 if i % 2 else 0.0) for i, t in enumerate(counted)]
    busy = [(10_000 + round(CPUS * 100 * INTERVAL * i), 0, 0, 0, 0) for i in range(STEPS)]
    rig = Rig([proc(10, "burn", float(CPUS), range(STEPS))], Kernel(CPUS, busy, uptime, counted), samples=12)
    got = (await rig.ask("get_history"))["usage"]["wsl"]["cpu_percent"]
    assert got == {"avg": 100.0, "p95": 100.0, "max": 100.0}
    series = await rig.ask("get_metric_series", metric="wsl.cpu_percent", window_s=60, points=12, agg="max")
    assert [v for v in series["values"] if v is not None] and all(
        v == 100.0 for v in series["values"] if v is not None
    )
    summary = await rig.ask("get_system_summary", max_age_ms=0)
    assert summary["data"]["environments"]["wsl"]["cpu_percent"] == pytest.approx(100.0)


async def test_a_process_read_late_in_a_sample_never_reads_more_than_the_machine() -> None:
    """A process's counters are read at a moment of the capture that the sample does not stamp, so
    a process using every CPU can show a little more CPU time than the window held (modelled here
    as 4.08 cores of 4). That residual is inherent: its figures are held to the machine's CPUs."""
    counted = [1000.0 + INTERVAL * i for i in range(STEPS)]
    busy = [(10_000 + round(CPUS * 100 * INTERVAL * i), 0, 0, 0, 0) for i in range(STEPS)]
    rig = Rig([proc(10, "spin", CPUS * 1.02, range(STEPS))], Kernel(CPUS, busy, counted), samples=6)
    (top,) = (await rig.ask("get_history", resource_kind="process"))["top"]
    assert top["avg_host_percent"] == 100.0 and top["avg_cores"] == float(CPUS)
    listed = await rig.ask("list_resources", max_age_ms=0, sort_by="cpu", limit=1)
    (row,) = listed["data"]
    assert row["usage"]["name"] == "spin" and row["usage"]["cpu_percent"] == pytest.approx(100.0)
