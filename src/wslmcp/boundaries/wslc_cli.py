"""The real wslc.exe adapter (contract in ``wslmcp.boundaries.wslc``), and where wslc.exe is found."""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping, Sequence
from typing import Final

from wslmcp.boundaries.process import Exchange
from wslmcp.boundaries.wsl_exe import WslCall, WslExeCli

WSL_INSTALL_PATH: Final = "/mnt/c/Program Files/WSL/wslc.exe"  # seen from inside a distro


class WslcCli:
    """The real wslc.exe: the wsl.exe transport (``WSL_UTF8=1``, closed stdin, deadline) on
    another executable. ``executable`` None means it was not found: every run raises
    ``FileNotFoundError``."""

    def __init__(self, executable: str | None) -> None:
        self.executable = executable or "wslc.exe"
        self.found = executable is not None
        self.exe = WslExeCli(self.executable, kill_on_overflow=True)

    async def run(self, args: Sequence[str], *, timeout_s: float | None = None) -> Exchange:
        if not self.found:
            raise FileNotFoundError("wslc.exe is not installed (not on PATH, not in %ProgramFiles%\\WSL)")
        return await self.exe.run(WslCall(args, timeout_s=timeout_s))


def find_wslc(env: Mapping[str, str], *, windows: bool, wsl_path: str = WSL_INSTALL_PATH) -> str | None:
    """Where wslc.exe is: on ``PATH``; else ``%ProgramFiles%\\WSL\\wslc.exe`` on Windows, or
    ``wsl_path`` (the same file through /mnt/c) elsewhere; None when it is nowhere."""
    found = shutil.which("wslc.exe", path=env.get("PATH", ""))
    if found:
        return found
    if windows:
        candidate = os.path.join(env.get("ProgramFiles", r"C:\Program Files"), "WSL", "wslc.exe")
    else:
        candidate = wsl_path
    return candidate if os.path.isfile(candidate) else None
