"""The local shell transport's runs as wsl.exe exchanges: how a shell session recorded over the local
transport (this machine's bash, no wsl.exe) is written into a scenario, and how its replay reads it.

Both transports run the same thing in the end (``shell_transport.distro_argv``: ``bash -lc SCRIPT``,
or the sandbox launcher in front of it); wsl.exe is only told where first (``-d DISTRO [-u USER]
--exec``). So a local run is recorded as the exchange the wsl.exe transport would have made for it,
in the format every shell scenario holds (``exchanges.wsl_exe``), and replayed through the same twin.

``LocalWslExe``
    A ``WslExe`` that runs ``-d DISTRO [-u USER] --exec ARGV...`` on this machine as the local
    transport runs its scripts: ARGV directly, in the user's home, its process group stopped at the
    deadline (each killed member named), deliberately backgrounded jobs left running.
``LocalThroughWslExe``
    The local transport (``kind`` "local", ``user`` the recorded one) whose runs go through a
    ``WslExe``: ``LocalWslExe`` wrapped by the recorder while recording, the recorded twin in replay.
"""

from __future__ import annotations

from collections.abc import Sequence

from wslmcp.boundaries.distro_files import DistroFiles
from wslmcp.boundaries.process import Exchange, run_process
from wslmcp.boundaries.shell_transport import (
    Confinement,
    ScriptCall,
    TransportError,
    distro_argv,
    wsl_args,
)
from wslmcp.boundaries.wsl_exe import WslCall, WslExe


def exec_argv(args: Sequence[str]) -> list[str]:
    """What ``-d DISTRO [-u USER] --exec ARGV...`` runs: ARGV (``ValueError`` for other wsl.exe args)."""
    if "--exec" not in args:
        raise ValueError(f"not a wsl.exe --exec call: {' '.join(args)[:120]}")
    return list(args[list(args).index("--exec") + 1 :])


class LocalWslExe:
    """``-d D [-u U] --exec ARGV`` run on this machine, as the local transport runs it (see above)."""

    def __init__(self, home: str) -> None:
        self.home = home

    async def run(self, call: WslCall) -> Exchange:
        return await run_process(
            exec_argv(call.args),
            call,
            kill_on_overflow=True,
            kill_group_on_exit=False,
            name_killed=True,
            cwd=self.home,
        )


class LocalThroughWslExe:
    """The local transport over a ``WslExe``: each script call is the exchange wsl.exe would have had
    for it (``wsl_args(distro, configured user, distro_argv(...))``), answered by ``wsl_exe``."""

    kind = "local"

    def __init__(
        self,
        wsl_exe: WslExe,
        distro: str,
        configured_user: str | None,
        user: str | None,
        confinement: Confinement | None = None,
    ) -> None:
        self.wsl_exe = wsl_exe
        self.distro = distro
        self._configured_user = configured_user
        self.user = user  # who ran the scripts when recorded
        self.confinement = confinement
        self.files: DistroFiles | None = None  # a recording keeps every file-tool script as an exchange

    async def run(self, call: ScriptCall) -> Exchange:
        args = wsl_args(self.distro, self._configured_user, distro_argv(call, self.confinement))
        try:
            return await self.wsl_exe.run(WslCall.of(args, call))
        except (FileNotFoundError, PermissionError) as exc:  # as the local transport says it
            raise TransportError(f"bash could not be started: {exc}") from exc

    async def list_distros(self) -> str | None:
        return None  # as the local transport: this machine runs, there is no listing
