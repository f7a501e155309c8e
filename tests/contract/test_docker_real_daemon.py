"""The real Engine adapter against a real dockerd with real containers (Debian's docker.io, started by
.ci/run and named by WSLMCP_TEST_DOCKER_HOST): version negotiation, chunked bodies, two-sample stats,
top, a vanished container. Exact values stay on the stand-in (test_docker_api.py)."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from wslmcp.boundaries.docker_api import DockerAbsent, DockerEndpoint, DockerError, negotiate
from wslmcp.boundaries.docker_engine import EngineApi
from wslmcp.boundaries.docker_host import resolve_endpoint

HOST = os.environ.get("WSLMCP_TEST_DOCKER_HOST", "")
IMAGE = "wslmcp-test/busybox:1"
NO_DAEMON = (
    "no real Docker daemon: WSLMCP_TEST_DOCKER_HOST is unset (.ci/run sets it when dockerd starts as root)"
)


def _docker(*args: str, stdin: bytes | None = None) -> str:
    done = subprocess.run(
        ["docker", *args],
        input=stdin,
        capture_output=True,
        timeout=60,
        env={**os.environ, "DOCKER_HOST": HOST},
    )
    if done.returncode != 0:
        raise RuntimeError(f"docker {' '.join(args)}: {done.stderr.decode(errors='replace').strip()}")
    return done.stdout.decode().strip()


def _image() -> None:
    if _docker("images", "-q", IMAGE):
        return
    busybox = shutil.which("busybox")
    if busybox is None:
        pytest.skip("busybox-static is not installed: no root file system to import an image from")
    with tempfile.TemporaryDirectory() as root:
        (Path(root) / "bin").mkdir()
        shutil.copy(busybox, Path(root, "bin", "busybox"))
        for applet in ("sh", "sleep", "yes"):
            os.symlink("busybox", Path(root, "bin", applet))
        tar = subprocess.run(["tar", "-C", root, "-c", "."], capture_output=True, check=True).stdout
    _docker("import", "-", IMAGE, stdin=tar)


@pytest.fixture(scope="module")
def daemon() -> None:
    if not HOST:
        pytest.skip(NO_DAEMON)
    try:
        asyncio.run(_api().get("/_ping", timeout_s=10))
    except DockerError as exc:
        pytest.skip(f"the Docker daemon at WSLMCP_TEST_DOCKER_HOST={HOST} cannot be reached: {exc}")


@pytest.fixture(scope="module")
def containers(daemon: None) -> Iterator[dict[str, str]]:
    if shutil.which("docker") is None:
        pytest.skip("no docker CLI to create the test containers with")
    _image()
    tag = f"wslmcp-{os.getpid()}"
    specs = {
        "busy": ["sh", "-c", "while :; do :; done"],
        "idle": ["sleep", "3600"],
        "third": ["sleep", "3601"],
    }
    ids: dict[str, str] = {}
    try:
        for name, cmd in specs.items():
            ids[name] = _docker("run", "-d", "--network", "none", "--name", f"{tag}-{name}", IMAGE, *cmd)
        yield ids
    finally:
        if ids:
            _docker("rm", "-f", *ids.values())


def _api() -> EngineApi:
    return EngineApi(DockerEndpoint(HOST, "WSLMCP_TEST_DOCKER_HOST"))


async def test_negotiates_the_daemons_version_and_lists_our_containers_from_a_chunked_body(
    containers: dict[str, str],
) -> None:
    api = _api()
    ping = await api.get("/_ping", timeout_s=10)
    assert (ping.status, ping.body) == (200, "OK")
    listing = await api.get("/containers/json", {"all": "1"}, timeout_s=10)
    assert listing.api_version == negotiate(ping.headers["api-version"])
    assert listing.headers.get("transfer-encoding") == "chunked"  # three containers' JSON exceeds 2 KiB
    ids = {c["Id"] for c in listing.body}
    assert set(containers.values()) <= ids


async def test_stats_carry_two_samples_and_the_busy_container_uses_a_core(containers: dict[str, str]) -> None:
    api = _api()

    def used(body: dict[str, Any]) -> int:
        return int(
            body["cpu_stats"]["cpu_usage"]["total_usage"] - body["precpu_stats"]["cpu_usage"]["total_usage"]
        )

    # a busy loop on a shared 2-core machine, where the tests' own workers compete: asked again until
    # one second of its stats shows it running (a hang guard, not a timing assertion)
    async with asyncio.timeout(60):
        while True:
            answers = await asyncio.gather(
                *(
                    api.get(f"/containers/{cid}/stats", {"stream": "false"}, timeout_s=10)
                    for cid in containers.values()
                )
            )
            assert [a.status for a in answers] == [200, 200, 200]
            busy = answers[0].body
            cpu, pre = busy["cpu_stats"], busy["precpu_stats"]
            system_delta = cpu["system_cpu_usage"] - pre["system_cpu_usage"]
            assert system_delta > 0
            if used(busy) / system_delta * cpu["online_cpus"] > 0.2:
                break
    assert busy["memory_stats"]["usage"] > 0
    assert used(answers[1].body) < used(busy)  # the idle one used less


async def test_top_lists_the_container_process_with_args_last(containers: dict[str, str]) -> None:
    top = await _api().get(
        f"/containers/{containers['idle']}/top", {"ps_args": "-eo pid,ppid,rss,args"}, timeout_s=10
    )
    assert top.status == 200
    assert top.body["Titles"] == ["PID", "PPID", "RSS", "COMMAND"]
    assert [row[3] for row in top.body["Processes"]] == ["sleep 3600"]


async def test_a_container_that_vanished_is_a_404_answer(daemon: None) -> None:
    api = _api()
    answer = await api.get("/containers/0123456789ab/stats", {"stream": "false"}, timeout_s=10)
    assert answer.status == 404
    assert "No such container" in answer.body["message"]


@pytest.mark.skipif(sys.platform != "win32", reason="named pipes exist only on Windows (Docker Desktop)")
async def test_the_named_pipe_transport_on_windows() -> None:
    endpoint = resolve_endpoint(os.environ, Path.home(), windows=True)
    if endpoint.scheme != "npipe":
        pytest.skip(f"the Docker endpoint here is {endpoint.url}, not a named pipe")
    try:
        ping = await EngineApi(endpoint).get("/_ping", timeout_s=10)
    except DockerAbsent:
        pytest.skip(f"no Docker daemon on {endpoint.url} (Docker Desktop not running)")
    assert (ping.status, ping.body) == (200, "OK")
    listing = await EngineApi(endpoint).get("/containers/json", timeout_s=10)
    assert listing.status == 200 and isinstance(listing.body, list)
