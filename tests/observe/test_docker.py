"""Docker through the Engine API's recorded twin: docker's CPU formula on two samples on the host
scale, docker stats' memory, top children with args last, and each fault as a reason."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.observe.engine_answers import cid, item, listing, stats, stats_item, top, top_item
from wslmcp.fakes.clock import FakeClock
from wslmcp.fakes.docker_api import DEFAULT_ENDPOINT, EngineRecording, FakeDockerApi
from wslmcp.observe.docker import DockerSample, cores, cpu_point, docker_rows, memory_bytes, parse_top, sample

S = 1_000_000_000


def api(items: list[dict[str, Any]]) -> FakeDockerApi:
    return FakeDockerApi(EngineRecording("t", Path("."), items), FakeClock(0.0), DEFAULT_ENDPOINT)


def take(items: list[dict[str, Any]], deadline: float = 5.0) -> DockerSample:
    return asyncio.run(sample(api(items), 0.0, deadline))


def test_docker_formula_gives_cores_then_the_host_scale() -> None:
    a, b = (
        cpu_point({"cpu_usage": {"total_usage": 0}, "system_cpu_usage": 8 * S, "online_cpus": 8}),
        cpu_point({"cpu_usage": {"total_usage": S}, "system_cpu_usage": 16 * S, "online_cpus": 8}),
    )
    assert cores(a, b) == 1.0  # one busy core of the daemon's 8 over 1 s
    assert cores(b, b) is None and cores(b, a) is None  # no time passed / went backwards: unknown, not 0


def test_a_one_shot_empty_precpu_is_not_a_sample() -> None:
    body = stats("web", 0, (5 * S, 100 * S), None)
    assert cpu_point(body["precpu_stats"]) is None


def test_memory_is_what_docker_stats_shows() -> None:
    assert memory_bytes(stats("a", 0, (1, 1), None)["memory_stats"]) == 40 << 20  # v2: usage - inactive_file
    assert (
        memory_bytes(stats("a", 0, (1, 1), None, v1=True)["memory_stats"]) == 40 << 20
    )  # v1: total_inactive_file
    assert memory_bytes({"usage": 100, "stats": {"inactive_file": 500}}) == 100
    assert memory_bytes({}) is None  # a stopped container's empty memory_stats


def test_top_keeps_args_last_and_reads_rss_and_time() -> None:
    rows = parse_top(top((7, 1, 2048, "01:02:03", "make", "make -j8 all  --keep going")))
    assert rows is not None and rows[0].args == "make -j8 all  --keep going" and rows[0].comm == "make"
    assert rows[0].rss_bytes == 2048 * 1024 and rows[0].cpu_time_s == 3723.0 and rows[0].ppid == 1
    assert parse_top(top((7, 1, 1, "2-00:00:01", "x", "x")))[0].cpu_time_s == 172801.0  # type: ignore[index]
    assert parse_top({"message": "nope"}) is None


def good_items(usage: int = 9 * S) -> list[dict[str, Any]]:
    return [
        item("/containers/json", listing("web", "db")),
        stats_item(0, stats("web", 0, (usage, 100 * S), (usage - S // 2, 92 * S))),
        stats_item(1, stats("db", 1, (S, 100 * S), (S, 92 * S))),
        top_item(0, top((100, 1, 4096, "00:00:09", "nginx", "nginx: master process"))),
        top_item(1, top((200, 1, 8192, "00:00:01", "postgres", "postgres -D /data"))),
    ]


def test_rows_pair_the_daemons_own_previous_sample_on_a_cold_start() -> None:
    got = take(good_items())
    assert got.failure is None and not got.incomplete and set(got.containers or {}) == {cid(0), cid(1)}
    rows = docker_rows(None, got, 16)
    web = next(r for r in rows.containers if r.name == "web")
    assert web.cpu_percent == pytest.approx(0.5 / 8 * 8 / 16 * 100)  # half a core of 16 host CPUs
    assert web.memory_bytes == 40 << 20 and web.identity.kind == "container" and web.pid is None
    kids = [r for r in rows.processes if r.parents == (web.identity,)]
    assert [k.identity.native_id for k in kids] == [f"{cid(0)}:100"] and kids[0].cpu_percent is None
    assert kids[0].identity.source == cid(0) and kids[0].ppid == 1


def test_rows_pair_with_the_previous_collections_sample_when_there_is_one() -> None:
    first = take(good_items(usage=9 * S))
    second = take(good_items(usage=12 * S))  # +3 s of CPU; but its own system stays at 100 s
    moved = {
        k: replace(v, cpu=replace(v.cpu, system_ns=v.cpu.system_ns + 24 * S))  # type: ignore[type-var, union-attr]
        for k, v in (second.containers or {}).items()
    }
    later = DockerSample(3.0, moved)
    web = next(r for r in docker_rows(first, later, 16).containers if r.name == "web")
    assert web.cpu_percent == pytest.approx(3 / 24 * 8 / 16 * 100)  # 1 core over the 3 s window


def test_an_absent_daemon_is_absent() -> None:
    got = take([{"path": "/containers/json", "error": "absent", "message": "no such file"}])
    assert got.absent and got.containers is None and "no Docker daemon" in (got.failure or "")


def test_a_500_is_a_failure_with_the_daemons_message() -> None:
    got = take([item("/containers/json", {"message": "Internal Server Error: boom"}, status=500)])
    assert (
        got.containers is None
        and not got.absent
        and "HTTP 500" in (got.failure or "")
        and "boom" in (got.failure or "")
    )


@pytest.mark.parametrize(
    ("body", "said", "end"),
    [({"containers": ["x" * 500]}, "a JSON object", "…)"), ("<html>login</html>", "text", "</html>)")],
)
def test_a_container_list_that_is_not_one_says_so(body: Any, said: str, end: str) -> None:
    why = take([item("/containers/json", body)]).failure or ""
    assert f"answered the container list with {said}, not a list of containers" in why, why
    assert len(why) < 400 and why.endswith(end), why  # the body is quoted, cut where a person sees it


def test_a_hung_daemon_costs_at_most_the_deadline() -> None:
    got = take([item("/containers/json", [], duration_ms=60_000)], deadline=2.0)
    why = got.failure or ""
    assert got.containers is None and ("did not answer" in why or "timed out" in why)


def test_a_container_vanishing_between_list_and_stats_is_left_out_with_a_warning() -> None:
    items = good_items()
    items[2] = stats_item(1, {"message": f"No such container: {cid(1)}"}, status=404)
    items[4] = top_item(1, {"message": "No such container"}, status=404)
    got = take(items)
    assert set(got.containers or {}) == {cid(0)} and not got.incomplete
    assert any("db exited" in w for w in got.warnings)


def stopped_stats(name: str, n: int) -> dict[str, Any]:
    """dockerd's 200 answer to ``stats?stream=false`` for a container that is not running: zero
    times, zero CPU counters without ``system_cpu_usage``, empty ``memory_stats``."""
    zero = {
        "cpu_usage": {"total_usage": 0, "usage_in_kernelmode": 0, "usage_in_usermode": 0},
        "throttling_data": {"periods": 0, "throttled_periods": 0, "throttled_time": 0},
    }
    return {
        "read": "0001-01-01T00:00:00Z",
        "preread": "0001-01-01T00:00:00Z",
        "pids_stats": {},
        "num_procs": 0,
        "storage_stats": {},
        "cpu_stats": zero,
        "precpu_stats": zero,
        "memory_stats": {},
        "name": f"/{name}",
        "id": cid(n),
    }


def test_a_container_stopped_between_list_and_stats_is_left_out_with_a_warning() -> None:
    items = good_items()  # db exits (and is not removed) after the listing: dockerd answers 200, empty
    items[2] = stats_item(1, stopped_stats("db", 1))
    items[4] = top_item(1, {"message": f"Container {cid(1)} is not running"}, status=409)
    got = take(items)
    assert set(got.containers or {}) == {cid(0)} and not got.incomplete
    assert any("db exited" in w for w in got.warnings)
    assert not any("process list unavailable" in w for w in got.warnings)
    rows = docker_rows(None, got, 16)
    assert [r.name for r in rows.containers] == ["web"]


@pytest.mark.parametrize(
    "spoil",
    [
        lambda b: b["cpu_stats"]["cpu_usage"].update(total_usage="12"),  # a string is not a counter
        lambda b: b["cpu_stats"].update(online_cpus=True),  # nor is a boolean
        lambda b: b["memory_stats"].update(usage=True),
        lambda b: b["memory_stats"].update(usage=-5),  # nor a negative size
    ],
)
def test_unreadable_counters_are_null_with_a_warning_never_a_value(spoil: Any) -> None:
    items = good_items()
    body = stats("db", 1, (S, 100 * S), (S, 92 * S))
    spoil(body)
    items[2] = stats_item(1, body)
    got = take(items)
    db = next(r for r in docker_rows(None, got, 16).containers if r.name == "db")
    assert db.cpu_percent is None or db.memory_bytes is None
    assert db.memory_bytes is None or (type(db.memory_bytes) is int and db.memory_bytes >= 0)
    assert any(w.startswith("Docker container db: stats carry no readable") for w in got.warnings), (
        got.warnings
    )


def test_a_failing_stats_answer_makes_the_sample_incomplete() -> None:
    items = good_items()
    items[2] = stats_item(1, {"message": "boom"}, status=500)
    got = take(items)
    assert got.incomplete and any("HTTP 500" in w for w in got.warnings)


def test_a_failing_top_keeps_the_container_without_children() -> None:
    items = good_items()
    items[3] = top_item(0, {"message": 'ps: error: unknown user-defined format specifier "x"'}, status=500)
    got = take(items)
    assert not got.incomplete and (got.containers or {})[cid(0)].top is None
    assert any("process list unavailable" in w for w in got.warnings)


def test_a_container_restarted_since_the_previous_collection_uses_the_daemons_pair() -> None:
    first = take(good_items(usage=9 * S))
    restarted = take(good_items(usage=S))  # its counter went back: a new cgroup
    moved = {
        k: replace(v, cpu=replace(v.cpu, system_ns=v.cpu.system_ns + 24 * S))  # type: ignore[type-var, union-attr]
        for k, v in (restarted.containers or {}).items()
    }
    web = next(r for r in docker_rows(first, DockerSample(3.0, moved), 16).containers if r.name == "web")
    assert web.cpu_percent is not None and web.cpu_percent > 0  # not null: the answer's own two samples
