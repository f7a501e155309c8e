"""The Windows user's home as seen from inside a WSL distro, as a boundary.

Contract
--------
``WindowsHome.find() -> str | None``
    The Windows side's own profile directory (``%USERPROFILE%``, as Windows itself reports it),
    translated to this distro's path for it (``/mnt/c/Users/<name>``); None when it cannot be told
    (no interop, no ``cmd.exe`` or ``wslpath``, an unexpanded variable, a failure or a timeout).
    Never guessed from names; never raises.

Real adapter: ``InteropWindowsHome`` runs ``cmd.exe /d /c echo %USERPROFILE%`` through WSL interop
(its output decoded as UTF-8 with replacement, one line, ``\\r`` dropped), then ``wslpath -u`` on
that Windows path, each bounded by ``timeout_s``, through ``process.run_process``. Twin:
``wslmcp.fakes.windows_home.StatedWindowsHome``, the home a scenario states (``profile.windows_home``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from wslmcp.boundaries.process import Streams, run_process


class WindowsHome(Protocol):
    def find(self) -> str | None: ...


class InteropWindowsHome:
    """``cmd.exe`` and ``wslpath`` (names or paths) as found on ``env``'s PATH."""

    def __init__(
        self,
        env: Mapping[str, str] | None = None,
        *,
        cmd: str = "cmd.exe",
        wslpath: str = "wslpath",
        timeout_s: float = 5.0,
    ) -> None:
        self._env = dict(env) if env is not None else None
        self._cmd, self._wslpath, self._timeout_s = cmd, wslpath, timeout_s

    def find(self) -> str | None:
        import asyncio  # on demand: only a profiler run inside WSL asks

        try:
            return asyncio.run(self._find())
        except (OSError, ValueError):  # no such program, or not executable
            return None

    async def _find(self) -> str | None:
        # From "/": cmd.exe started in a Linux directory warns about UNC paths (on stderr only).
        asked = await self._line([self._cmd, "/d", "/c", "echo %USERPROFILE%"])
        if asked is None or "%" in asked or not asked:
            return None
        return await self._line([self._wslpath, "-u", asked])

    async def _line(self, argv: list[str]) -> str | None:
        streams = Streams(timeout_s=self._timeout_s, max_output=64 * 1024)
        done = await run_process(argv, streams, env=self._env, cwd="/")
        if done.exit_code != 0 or done.timed_out:
            return None
        text = done.stdout.decode("utf-8", errors="replace").replace("\r", "").strip()
        return text.splitlines()[0] if text else None
