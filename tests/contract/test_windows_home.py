"""WindowsHome contract: the real adapter (``cmd.exe`` and ``wslpath`` stand-ins on PATH, as WSL
interop provides them) and the twin (the home a scenario states) answer alike."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from wslmcp.boundaries.windows_home import InteropWindowsHome, WindowsHome
from wslmcp.fakes.windows_home import StatedWindowsHome

HOME = "/mnt/c/Users/Tester Name"
WINDOWS = r"C:\Users\Tester Name"


def _script(folder: Path, name: str, body: str) -> None:
    path = folder / name
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def _interop(tmp_path: Path, profile: str = WINDOWS) -> dict[str, str]:
    """cmd.exe prints the expanded profile path CRLF-terminated and warns on stderr; wslpath maps
    exactly that one Windows path (anything else fails, as a wrong argument would)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _script(bin_dir, "cmd.exe", f"echo 'UNC paths are not supported.' >&2\nprintf '%s\\r\\n' '{profile}'\n")
    _script(
        bin_dir,
        "wslpath",
        f'[ "$1" = -u ] && [ "$2" = \'{WINDOWS}\' ] && echo "{HOME}" && exit 0\nexit 1\n',
    )
    return {**os.environ, "PATH": f"{bin_dir}:{os.environ.get('PATH', '')}"}


@pytest.fixture(params=["real", "fake"])
def found(request: pytest.FixtureRequest, tmp_path: Path) -> WindowsHome:
    if request.param == "real":
        return InteropWindowsHome(_interop(tmp_path))
    return StatedWindowsHome(HOME)


def test_the_windows_profile_directory_as_this_distro_names_it(found: WindowsHome) -> None:
    assert found.find() == HOME


@pytest.fixture(params=["real-no-interop", "real-unexpanded", "fake"])
def absent(request: pytest.FixtureRequest, tmp_path: Path) -> WindowsHome:
    if request.param == "real-no-interop":
        return InteropWindowsHome({"PATH": str(tmp_path)})
    if request.param == "real-unexpanded":
        return InteropWindowsHome(_interop(tmp_path, "%USERPROFILE%"))
    return StatedWindowsHome(None)


def test_no_windows_side_is_none_not_an_error(absent: WindowsHome) -> None:
    assert absent.find() is None
