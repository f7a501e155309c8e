"""The home directories of the running WSL distros, as a Windows host reaches them, as a boundary.

Contract
--------
``DistroHomes.find() -> list[str]``
    For every running distro (``wsl.exe --list --running --quiet``), in wsl.exe's order, its
    default user's ``$HOME`` (asked inside the distro) as a Windows path:
    ``\\\\wsl.localhost\\<distro>\\home\\<user>``. A distro that does not answer with an absolute
    path is left out; no wsl.exe, or a listing that fails, is an empty list. Never raises, and
    never starts a stopped distro.

Real adapter: ``WslDistroHomes`` over the ``WslExe`` boundary (``procfs_wsl.WslDistroLister`` for
the listing). Twin: ``wslmcp.fakes.distro_homes.StatedDistroHomes``, the homes a scenario states
(``profile.distro_homes``).
"""

from __future__ import annotations

from typing import Protocol

from wslmcp.boundaries.procfs_wsl import WslDistroLister
from wslmcp.boundaries.wsl_exe import WslCall, WslExe

ROOT = "\\\\wsl.localhost"
HOME_ARGS = ["--exec", "sh", "-c", 'printf "%s" "$HOME"']


class DistroHomes(Protocol):
    def find(self) -> list[str]: ...


class WslDistroHomes:
    def __init__(self, wsl_exe: WslExe, *, timeout_s: float = 10.0) -> None:
        self._wsl = wsl_exe
        self._timeout_s = timeout_s

    def find(self) -> list[str]:
        import asyncio  # on demand: only a profiler run on Windows asks

        try:
            return asyncio.run(self._find())
        except OSError:  # no wsl.exe, or the listing failed (ProcUnavailable)
            return []

    async def _find(self) -> list[str]:
        homes = []
        for name in await WslDistroLister(self._wsl).running():
            done = await self._wsl.run(
                WslCall(["-d", name, *HOME_ARGS], timeout_s=self._timeout_s, max_output=64 * 1024)
            )
            home = done.stdout.decode("utf-8", errors="replace").strip()
            if done.exit_code == 0 and not done.timed_out and home.startswith("/"):
                homes.append(ROOT + "\\" + name + home.rstrip("/").replace("/", "\\"))
        return homes
