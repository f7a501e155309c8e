"""Docker endpoint resolution against real config and context files in a temporary home, in the
docker CLI's precedence: DOCKER_HOST, DOCKER_CONTEXT, currentContext, then the platform default."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from wslmcp.boundaries.docker_api import DockerEndpoint
from wslmcp.boundaries.docker_host import UnsupportedDockerHost, resolve_endpoint


def _context(home: Path, name: str, host: str, *, current: bool = True) -> None:
    meta = home / ".docker" / "contexts" / "meta" / hashlib.sha256(name.encode()).hexdigest()
    meta.mkdir(parents=True)
    (meta / "meta.json").write_text(json.dumps({"Name": name, "Endpoints": {"docker": {"Host": host}}}))
    if current:
        (home / ".docker" / "config.json").write_text(json.dumps({"auths": {}, "currentContext": name}))


def test_docker_host_wins_over_everything(tmp_path: Path) -> None:
    _context(tmp_path, "colima", "unix:///ctx.sock")
    env = {"DOCKER_HOST": "unix:///run/user/1000/docker.sock", "DOCKER_CONTEXT": "colima"}
    assert resolve_endpoint(env, tmp_path, windows=False) == DockerEndpoint(
        "unix:///run/user/1000/docker.sock", "DOCKER_HOST"
    )


def test_the_current_context_gives_its_endpoint(tmp_path: Path) -> None:
    _context(tmp_path, "rootless", "unix:///run/user/1000/docker.sock")
    endpoint = resolve_endpoint({}, tmp_path, windows=False)
    assert endpoint == DockerEndpoint("unix:///run/user/1000/docker.sock", "context rootless")
    assert endpoint.address == "/run/user/1000/docker.sock"


def test_docker_context_overrides_current_context_and_docker_config_moves_the_files(tmp_path: Path) -> None:
    _context(tmp_path, "a", "unix:///a.sock")
    _context(tmp_path, "b", "unix:///b.sock", current=False)
    assert resolve_endpoint({"DOCKER_CONTEXT": "b"}, tmp_path, windows=False).url == "unix:///b.sock"
    moved = tmp_path / "elsewhere"
    (tmp_path / ".docker").rename(moved)
    assert resolve_endpoint({"DOCKER_CONFIG": str(moved)}, tmp_path, windows=False) == DockerEndpoint(
        "unix:///a.sock", "context a"
    )


def test_the_default_context_broken_files_and_no_files_give_the_platform_default(tmp_path: Path) -> None:
    assert resolve_endpoint({}, tmp_path, windows=False) == DockerEndpoint(
        "unix:///var/run/docker.sock", "default"
    )
    (tmp_path / ".docker").mkdir()
    (tmp_path / ".docker" / "config.json").write_text('{"currentContext": "default"}')
    assert resolve_endpoint({}, tmp_path, windows=False).source == "default"
    (tmp_path / ".docker" / "config.json").write_text("{not json")
    assert resolve_endpoint({}, tmp_path, windows=False).url == "unix:///var/run/docker.sock"
    (tmp_path / ".docker" / "config.json").write_text('{"currentContext": "missing"}')
    assert resolve_endpoint({}, tmp_path, windows=False).url == "unix:///var/run/docker.sock"


def test_windows_prefers_docker_desktops_linux_engine_pipe_when_it_exists(tmp_path: Path) -> None:
    def present(*pipes: str) -> Callable[[str], bool]:
        return lambda url: url in pipes

    desktop, engine = "npipe:////./pipe/dockerDesktopLinuxEngine", "npipe:////./pipe/docker_engine"
    assert resolve_endpoint({}, tmp_path, windows=True, pipe_exists=present(desktop, engine)).url == desktop
    assert resolve_endpoint({}, tmp_path, windows=True, pipe_exists=present(engine)).url == engine
    assert resolve_endpoint({}, tmp_path, windows=True, pipe_exists=present()).url == engine
    assert DockerEndpoint(desktop, "default").address == "//./pipe/dockerDesktopLinuxEngine"


@pytest.mark.parametrize(
    ("url", "windows", "why"),
    [
        ("tcp://127.0.0.1:2375", False, "tcp endpoints are not supported"),
        ("ssh://me@box", True, "ssh endpoints are not supported on Windows"),
        ("npipe:////./pipe/docker_engine", False, "npipe endpoints are not supported here"),
        ("unix://", False, "no socket path"),
    ],
)
def test_endpoints_we_cannot_speak_are_refused_with_the_reason(
    tmp_path: Path, url: str, windows: bool, why: str
) -> None:
    with pytest.raises(UnsupportedDockerHost, match=why):
        resolve_endpoint({"DOCKER_HOST": url}, tmp_path, windows=windows)


def test_npipe_is_accepted_on_windows(tmp_path: Path) -> None:
    url = "npipe:////./pipe/docker_engine"
    assert resolve_endpoint({"DOCKER_HOST": url}, tmp_path, windows=True) == DockerEndpoint(
        url, "DOCKER_HOST"
    )
