"""Wiring of the four Windows-side boundaries: real on this (Linux) machine, and a scenario's twins."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wslmcp import wiring
from wslmcp.boundaries.docker_api import DockerEndpoint, DockerUnavailable
from wslmcp.boundaries.wslc_cli import WslcCli
from wslmcp.fakes.docker_api import FakeDockerApi
from wslmcp.fakes.pdh import FakePdhCounters
from wslmcp.fakes.windows_processes import FakeWindowsProcesses
from wslmcp.fakes.wslc import FakeWslc
from wslmcp.scenario.manifest import SCHEMA
from wslmcp.wiring.replay import replay

pytestmark = pytest.mark.skipif(__import__("sys").platform == "win32", reason="checks the Linux wiring")


def test_on_linux_there_is_no_pdh_or_windows_table_and_docker_follows_docker_host(tmp_path: Path) -> None:
    b = wiring.real({"DOCKER_HOST": f"unix://{tmp_path}/d.sock", "PATH": str(tmp_path)})
    assert b.pdh is None and b.windows_processes is None
    assert b.docker_api is not None
    assert b.docker_api.endpoint == DockerEndpoint(f"unix://{tmp_path}/d.sock", "DOCKER_HOST")
    assert isinstance(wiring.real_wslc({"PATH": str(tmp_path)}), WslcCli)  # what b.wslc builds at first use


async def test_a_docker_host_we_cannot_speak_answers_with_the_reason() -> None:
    b = wiring.real({"DOCKER_HOST": "tcp://10.0.0.1:2375", "PATH": ""})
    assert b.docker_api is not None
    with pytest.raises(DockerUnavailable, match="tcp endpoints are not supported"):
        await b.docker_api.get("/containers/json", timeout_s=1)


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("tcp://10.0.0.1:2375", "wslmcp speaks unix:// sockets only; tcp endpoints are not supported here"),
        (
            "docker.sock",
            "not an endpoint URL (unix:///path/to/docker.sock); wslmcp speaks unix:// sockets only",
        ),
    ],
)
async def test_the_warning_for_a_docker_host_we_cannot_speak_names_it_once(url: str, why: str) -> None:
    from wslmcp.observe.docker import sample

    b = wiring.real({"DOCKER_HOST": url, "PATH": ""})
    assert b.docker_api is not None and b.docker_api.endpoint == DockerEndpoint(url, "DOCKER_HOST")
    got = await sample(b.docker_api, 0.0, 1.0)
    assert got.failure == f"the Docker daemon at {url} (from DOCKER_HOST) cannot be used: {why}"


def test_a_scenario_gets_the_twins_and_pdh_only_when_it_recorded_samples(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "scenario.json").write_text(json.dumps({"schema": SCHEMA, "name": "a"}))
    plain = replay(tmp_path / "a")
    assert plain.pdh is None and plain.windows_processes is None
    assert isinstance(plain.docker_api, FakeDockerApi) and isinstance(plain.wslc, FakeWslc)
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "s.json").write_text("{}")
    timeline = [{"t_ms": 0, "pdh": {"file": "s.json"}, "windows": {"file": "s.json"}}]
    (tmp_path / "b" / "scenario.json").write_text(
        json.dumps({"schema": SCHEMA, "name": "b", "timeline": timeline})
    )
    windows = replay(tmp_path / "b")
    assert isinstance(windows.pdh, FakePdhCounters) and isinstance(
        windows.windows_processes, FakeWindowsProcesses
    )


def test_an_adapter_built_on_demand_survives_copy_and_says_what_it_lacks(tmp_path: Path) -> None:
    import copy

    b = wiring.real({"PATH": str(tmp_path)})
    assert copy.copy(b.procfs) is not b.procfs  # no recursion through the proxy's own attributes
    with pytest.raises(AttributeError):
        b.procfs.no_such_method  # noqa: B018 (the built adapter answers, not the proxy)
