"""One contract for the Docker Engine API port, run over the real adapter (against the Engine
stand-in on a unix socket) and over the recorded twin: negotiation, chunked bodies, errors as
answers, faults as DockerError subclasses, recorded order, concurrency."""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.standins.engine import EngineStandin
from wslmcp.boundaries.docker_api import (
    MAX_API_VERSION,
    DockerAbsent,
    DockerApi,
    DockerBadAnswer,
    DockerEndpoint,
    DockerTimeout,
    DockerUnavailable,
    negotiate,
)
from wslmcp.boundaries.docker_engine import EngineApi
from wslmcp.fakes.clock import FakeClock
from wslmcp.fakes.docker_api import EngineRecording, FakeDockerApi, RecordingDockerApi
from wslmcp.fakes.replay import ReplayMiss
from wslmcp.scenario.loader import Scenario
from wslmcp.scenario.recorder import ScenarioWriter

Items = Sequence[Mapping[str, Any]]
MakeApi = Callable[..., Awaitable[DockerApi]]

CONTAINERS = [
    {
        "Id": f"{i:064x}",
        "Names": [f"/c{i}"],
        "Image": "local/busybox:1",
        "State": "running",
        "Labels": {"k": "é" * 30},
    }
    for i in range(20)
]


@pytest.fixture
def short_dir() -> AsyncIterator[Path]:
    with tempfile.TemporaryDirectory(prefix="eng-", dir="/tmp") as d:
        yield Path(d)


@pytest.fixture(params=["real", "twin"])
async def make_api(request: pytest.FixtureRequest, short_dir: Path) -> AsyncIterator[MakeApi]:
    """``await make_api(items, api_version=...)`` → a DockerApi answering those records."""
    standins: list[EngineStandin] = []

    async def make(items: Items, *, api_version: str = "1.41") -> DockerApi:
        if request.param == "twin":
            recorded = [{**i, "api_version": i.get("api_version", negotiate(api_version))} for i in items]
            return FakeDockerApi(EngineRecording("contract", short_dir, recorded), FakeClock(), _ENDPOINT)
        standin = EngineStandin(short_dir / f"d{len(standins)}.sock", items, api_version=api_version)
        await standin.start()
        standins.append(standin)
        return EngineApi(DockerEndpoint(standin.url, "DOCKER_HOST"))

    yield make
    for s in standins:
        await s.stop()


_ENDPOINT = DockerEndpoint("unix:///var/run/docker.sock", "default")


async def test_the_version_is_negotiated_down_to_the_daemons(make_api: MakeApi) -> None:
    api = await make_api([{"path": "/containers/json", "json": []}], api_version="1.41")
    answer = await api.get("/containers/json", timeout_s=5)
    assert (answer.status, answer.body, answer.api_version) == (200, [], "1.41")


async def test_a_newer_daemon_is_spoken_to_at_our_maximum(make_api: MakeApi) -> None:
    api = await make_api([{"path": "/version", "json": {"ApiVersion": "1.52"}}], api_version="1.52")
    answer = await api.get("/version", timeout_s=5)
    assert answer.api_version == MAX_API_VERSION == "1.47"
    assert answer.body == {"ApiVersion": "1.52"}


async def test_a_large_body_arrives_whole_and_decoded(make_api: MakeApi) -> None:
    api = await make_api([{"path": "/containers/json", "query": {"all": "0"}, "json": CONTAINERS}])
    answer = await api.get("/containers/json", {"all": "0"}, timeout_s=5)
    assert answer.body == CONTAINERS
    assert answer.headers["content-type"] == "application/json"


async def test_error_statuses_are_answers_with_the_engines_message(make_api: MakeApi) -> None:
    api = await make_api(
        [
            {"path": "/containers/x/stats", "query": {"stream": "false"}, "status": 500,
             "json": {"message": "cgroup read failed"}},
            {"path": "/containers/gone/stats", "query": {"stream": "false"}, "status": 404,
             "json": {"message": "No such container: gone"}},
        ]
    )  # fmt: skip
    failed = await api.get("/containers/x/stats", {"stream": "false"}, timeout_s=5)
    assert (failed.status, failed.body) == (500, {"message": "cgroup read failed"})
    gone = await api.get("/containers/gone/stats", {"stream": "false"}, timeout_s=5)
    assert (gone.status, gone.body["message"]) == (404, "No such container: gone")


async def test_a_text_body_is_text(make_api: MakeApi) -> None:
    api = await make_api([{"path": "/_ping", "text": "OK"}])
    answer = await api.get("/_ping", timeout_s=5)
    assert (answer.status, answer.body) == (200, "OK")
    assert answer.headers["content-type"].startswith("text/plain")


async def test_a_json_body_without_a_content_type_is_still_json(make_api: MakeApi) -> None:
    api = await make_api([{"path": "/x", "headers": {"content-type": ""}, "json": {"a": [1]}},
                          {"path": "/y", "headers": {"content-type": ""}, "text": "plain words"}])  # fmt: skip
    assert (await api.get("/x", timeout_s=5)).body == {"a": [1]}
    assert (await api.get("/y", timeout_s=5)).body == "plain words"


async def test_repeated_requests_get_recorded_order_then_the_last_again(make_api: MakeApi) -> None:
    api = await make_api([{"path": "/info", "json": {"n": 1}}, {"path": "/info", "json": {"n": 2}}])
    bodies = [(await api.get("/info", timeout_s=5)).body["n"] for _ in range(3)]
    assert bodies == [1, 2, 2]


async def test_a_hung_daemon_costs_the_deadline_and_raises_timeout(make_api: MakeApi) -> None:
    api = await make_api([{"path": "/containers/h/stats", "query": {"stream": "false"}, "error": "timeout"}])
    with pytest.raises(DockerTimeout, match=r"within 0\.3 s"):
        await api.get("/containers/h/stats", {"stream": "false"}, timeout_s=0.3)


async def test_a_connection_closed_without_an_answer_is_unavailable(make_api: MakeApi) -> None:
    api = await make_api([{"path": "/containers/json", "error": "unavailable", "message": "closed"}])
    with pytest.raises(DockerUnavailable) as info:
        await api.get("/containers/json", timeout_s=5)
    assert not isinstance(info.value, DockerTimeout | DockerAbsent)


async def test_a_body_that_stops_halfway_is_a_timeout_and_one_cut_off_is_unavailable(
    make_api: MakeApi,
) -> None:
    api = await make_api([{"path": "/a", "error": "timeout", "wire": "stall_body"},
                          {"path": "/b", "error": "unavailable", "message": "cut", "wire": "truncated_body"}])  # fmt: skip
    with pytest.raises(DockerTimeout):
        await api.get("/a", timeout_s=0.3)
    with pytest.raises(DockerUnavailable) as info:
        await api.get("/b", timeout_s=5)
    assert not isinstance(info.value, DockerTimeout | DockerAbsent)


async def test_bytes_that_are_not_http_are_a_bad_answer(make_api: MakeApi) -> None:
    api = await make_api([{"path": "/containers/json", "error": "bad_answer", "message": "not HTTP"}])
    with pytest.raises(DockerBadAnswer):
        await api.get("/containers/json", timeout_s=5)


async def test_every_containers_request_runs_concurrently(make_api: MakeApi) -> None:
    items = [
        {"path": f"/containers/c{i}/top", "json": {"Titles": ["PID"], "Processes": [[str(i)]]}}
        for i in range(20)
    ]
    api = await make_api(items)
    answers = await asyncio.gather(*(api.get(f"/containers/c{i}/top", timeout_s=5) for i in range(20)))
    assert [a.body["Processes"][0][0] for a in answers] == [str(i) for i in range(20)]


async def test_the_twin_refuses_what_was_not_recorded(short_dir: Path) -> None:
    api = FakeDockerApi(
        EngineRecording("s", short_dir, [{"path": "/containers/json", "json": []}]), FakeClock(), _ENDPOINT
    )
    with pytest.raises(
        ReplayMiss,
        match=r"docker_api replay of scenario 's': not recorded: GET /containers/jsn.*"
        r"offers: GET /containers/json",
    ):
        await api.get("/containers/jsn", timeout_s=1)


async def test_no_socket_is_docker_absent(short_dir: Path) -> None:
    api = EngineApi(DockerEndpoint(f"unix://{short_dir}/none.sock", "default"))
    with pytest.raises(DockerAbsent, match="no Docker daemon socket"):
        await api.get("/containers/json", timeout_s=5)


async def test_a_stale_socket_is_unavailable_not_absent(short_dir: Path) -> None:
    import socket

    path = short_dir / "stale.sock"
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(path))
    s.close()
    with pytest.raises(DockerUnavailable, match="refused") as info:
        await EngineApi(DockerEndpoint(f"unix://{path}", "default")).get("/_ping", timeout_s=5)
    assert not isinstance(info.value, DockerAbsent)


async def test_the_adapter_sends_versioned_paths_after_one_ping(short_dir: Path) -> None:
    async with EngineStandin(short_dir / "v.sock", [{"path": "/containers/json", "json": []}]) as standin:
        api = EngineApi(DockerEndpoint(standin.url, "DOCKER_HOST"))
        await asyncio.gather(*(api.get("/containers/json", {"all": "1"}, timeout_s=5) for _ in range(3)))
        assert standin.requests == ["/_ping"] + ["/v1.41/containers/json?all=1"] * 3
        await api.get("/containers/x/top", {"ps_args": "-eo pid,args"}, timeout_s=5)
        assert standin.requests[-1] == "/v1.41/containers/x/top?ps_args=-eo%20pid%2Cargs"


async def test_docker_29_which_refuses_below_1_44_accepts_what_we_send(short_dir: Path) -> None:
    items = [{"path": "/containers/json", "json": []}]
    async with EngineStandin(
        short_dir / "o.sock", items, api_version="1.52", min_api_version="1.44"
    ) as standin:
        answer = await EngineApi(DockerEndpoint(standin.url, "x")).get("/containers/json", timeout_s=5)
    assert (answer.status, answer.api_version) == (200, "1.47")


async def test_recording_then_replay_gives_the_same_answers(short_dir: Path) -> None:
    items = [
        {"path": "/containers/json", "json": CONTAINERS},
        {
            "path": "/containers/c1/stats",
            "query": {"stream": "false"},
            "status": 404,
            "json": {"message": "gone"},
        },
        {"path": "/_ping", "text": "OK"},
        {"path": "/containers/h/top", "error": "timeout"},
    ]
    writer = ScenarioWriter(short_dir / "rec", "rec", "", FakeClock())
    async with EngineStandin(short_dir / "r.sock", items) as standin:
        recorder = RecordingDockerApi(EngineApi(DockerEndpoint(standin.url, "DOCKER_HOST")), writer)
        live = [await recorder.get("/containers/json", timeout_s=5),
                await recorder.get("/containers/c1/stats", {"stream": "false"}, timeout_s=5),
                await recorder.get("/_ping", timeout_s=5)]  # fmt: skip
        with pytest.raises(DockerTimeout):
            await recorder.get("/containers/h/top", timeout_s=0.2)
    scenario = Scenario.load(writer.commit())
    assert [i.get("error") for i in scenario.manifest["exchanges"]["docker_api"]] == [
        None,
        None,
        None,
        "timeout",
    ]
    twin = FakeDockerApi.from_scenario(scenario, FakeClock())
    assert twin.endpoint == DockerEndpoint(standin.url, "DOCKER_HOST")
    replayed = [await twin.get("/containers/json", timeout_s=5),
                await twin.get("/containers/c1/stats", {"stream": "false"}, timeout_s=5),
                await twin.get("/_ping", timeout_s=5)]  # fmt: skip
    assert [(a.status, a.body, a.api_version) for a in replayed] == [
        (a.status, a.body, a.api_version) for a in live
    ]
    with pytest.raises(DockerTimeout):
        await twin.get("/containers/h/top", timeout_s=0.2)


RECORDED = Path(__file__).parent / "fixtures" / "dockerd-20.10"


async def test_a_real_dockerds_recorded_answers_read_the_same_through_both(short_dir: Path) -> None:
    scenario = Scenario.load(RECORDED)
    items = scenario.manifest["exchanges"]["docker_api"]
    twin = FakeDockerApi.from_scenario(scenario, FakeClock())
    async with EngineStandin(short_dir / "f.sock", items, root=RECORDED, api_version="1.41") as standin:
        real = EngineApi(DockerEndpoint(standin.url, "DOCKER_HOST"))
        for item in items:
            query = item.get("query")
            a = await real.get(item["path"], query, timeout_s=5)
            b = await twin.get(item["path"], query, timeout_s=5)
            assert (a.status, a.body, a.api_version) == (b.status, b.body, b.api_version), item["path"]
    listing = next(i for i in items if i["path"] == "/containers/json")
    assert len((RECORDED / listing["body"]).read_bytes()) > 2048  # served chunked, as dockerd did
