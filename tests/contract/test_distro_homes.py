"""DistroHomes contract: the real adapter (a ``wsl.exe`` stand-in on PATH: it lists running distros
in UTF-16LE and runs ``-d NAME --exec ...`` here) and the twin (stated homes) answer alike."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.observe.standin import make_standin
from wslmcp.boundaries.distro_homes import DistroHomes, WslDistroHomes
from wslmcp.boundaries.wsl_exe import WslExeCli
from wslmcp.fakes.distro_homes import StatedDistroHomes

HOME = os.path.expanduser("~")


def _windows_path(distro: str) -> str:
    return "\\\\wsl.localhost\\" + distro + HOME.rstrip("/").replace("/", "\\")


@pytest.fixture(params=["real", "fake"])
def homes(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> DistroHomes:
    expected = [_windows_path("Ubuntu"), _windows_path("Debian")]
    if request.param == "fake":
        return StatedDistroHomes(expected)
    standin = make_standin(tmp_path / "standin", ["Ubuntu", "Debian"])
    for key, value in standin.env().items():
        monkeypatch.setenv(key, value)
    return WslDistroHomes(WslExeCli("wsl.exe"))


def test_each_running_distro_s_home_as_windows_reaches_it(homes: DistroHomes) -> None:
    assert homes.find() == [_windows_path("Ubuntu"), _windows_path("Debian")]


@pytest.fixture(params=["real-no-wsl-exe", "real-none-running", "fake"])
def none(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> DistroHomes:
    if request.param == "fake":
        return StatedDistroHomes([])
    if request.param == "real-no-wsl-exe":
        return WslDistroHomes(WslExeCli(str(tmp_path / "missing" / "wsl.exe")))
    standin = make_standin(tmp_path / "standin", [])
    for key, value in standin.env().items():
        monkeypatch.setenv(key, value)
    return WslDistroHomes(WslExeCli("wsl.exe"))


def test_no_running_distro_or_no_wsl_exe_is_an_empty_list(none: DistroHomes) -> None:
    assert none.find() == []
