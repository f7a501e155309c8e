"""Wiring: the one place that chooses real adapters or a scenario's recorded fakes.

Everything below the CLI receives a ``Boundaries`` and never learns which kind it holds.
"""

from __future__ import annotations

import itertools
import os
import shutil
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from wslmcp.boundaries.client_files import ClientFiles, LocalClientFiles
from wslmcp.boundaries.clock import Clock, SystemClock
from wslmcp.boundaries.local_files import LocalFiles, OsLocalFiles
from wslmcp.boundaries.mcp_launcher import McpLauncher, ServerAnswer, ServerSpec
from wslmcp.boundaries.procfs import LocalProcSource, ProcSource
from wslmcp.boundaries.shell_transport import ShellTransport
from wslmcp.boundaries.wsl_exe import WslExe, WslExeCli
from wslmcp.scenario.loader import Scenario

if TYPE_CHECKING:
    from wslmcp.observe.assembly import ObserveParts


class _OnDemandMcpLauncher:
    """The real launcher, built at its first query: importing the mcp SDK costs about half a second,
    which a run that launches nothing (``--no-query``, a diff, another server) should not pay."""

    def __init__(self) -> None:
        self._inner: McpLauncher | None = None

    async def query(self, spec: ServerSpec, timeout_s: float) -> ServerAnswer:
        if self._inner is None:
            from wslmcp.boundaries.mcp_stdio import SdkMcpLauncher

            self._inner = SdkMcpLauncher()
        return await self._inner.query(spec, timeout_s)


@dataclass
class Boundaries:
    clock: Clock
    procfs: ProcSource
    wsl_exe: WslExe
    client_files: ClientFiles
    scenario: Scenario | None = None
    mcp_launcher: McpLauncher = field(default_factory=_OnDemandMcpLauncher)
    local_files: LocalFiles = field(default_factory=lambda: OsLocalFiles(state_dir(os.environ) / "shell"))

    @property
    def replaying(self) -> bool:
        return self.scenario is not None


def state_dir(env: Mapping[str, str]) -> Path:
    """Where wslmcp keeps state that must outlive a process (the shell servers' temp-file
    ledgers): ``WSLMCP_STATE_DIR``, else ``%LOCALAPPDATA%\\wslmcp`` on Windows, else
    ``$XDG_STATE_HOME/wslmcp``, else ``~/.local/state/wslmcp``."""
    if env.get("WSLMCP_STATE_DIR"):
        return Path(env["WSLMCP_STATE_DIR"])
    if sys.platform == "win32" and env.get("LOCALAPPDATA"):
        return Path(env["LOCALAPPDATA"]) / "wslmcp"
    base = env.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "wslmcp"


def real(proc_root: str = "/proc") -> Boundaries:
    """The real host."""
    return Boundaries(
        clock=SystemClock(),
        procfs=LocalProcSource(proc_root),
        wsl_exe=WslExeCli(os.environ.get("WSLMCP_WSL_EXE", "wsl.exe")),
        client_files=LocalClientFiles(),
        local_files=OsLocalFiles(state_dir(os.environ) / "shell"),
    )


def replay(scenario_dir: str | Path) -> Boundaries:
    """A scenario's recorded twins, on a virtual clock that starts at the scenario's t=0."""
    from fakes.client_files import FakeClientFiles
    from fakes.clock import FakeClock
    from fakes.local_files import FakeLocalFiles
    from fakes.mcp_launcher import FakeMcpLauncher
    from fakes.procfs import FakeProcSource
    from fakes.wsl_exe import FakeWslExe

    scenario = Scenario.load(scenario_dir)
    clock = FakeClock(0.0, scenario.start_wall)
    return Boundaries(
        clock=clock,
        procfs=FakeProcSource(scenario, clock),
        wsl_exe=FakeWslExe(scenario),
        client_files=FakeClientFiles(scenario),
        scenario=scenario,
        mcp_launcher=FakeMcpLauncher.from_scenario(scenario),
        local_files=FakeLocalFiles(scenario),
    )


def observe_parts(b: Boundaries, distro: str | None = None, platform: str | None = None) -> ObserveParts:
    """What the observe server reads from: this machine, or the scenario ``b`` replays.

    Linux (inside a distro or plain Linux): the primary is the local /proc; other running distros
    are read through wsl.exe when it is reachable. Windows: the primary is ``distro`` (or WSL's
    default) read through wsl.exe. Host facts come from a scenario until part 2's Windows collectors.
    """
    from wslmcp.boundaries.procfs_wsl import WslDistroLister, WslProcSource, default_distro
    from wslmcp.observe.assembly import ObserveParts
    from wslmcp.observe.scenario_section import read_section
    from wslmcp.observe.sources import HostProbe, SampleReader, StaticHost, ThreadedReader, WindowsPrimary

    if b.scenario is not None:
        section = read_section(b.scenario)
        windows, local, interop = section.platform == "windows", section.distro, section.wsl_interop
        host: HostProbe | None = StaticHost(section.host) if section.host is not None else None
    else:
        windows = (platform or sys.platform) == "win32"
        local = os.environ.get("WSL_DISTRO_NAME") or None
        exe = b.wsl_exe.executable if isinstance(b.wsl_exe, WslExeCli) else "wsl.exe"
        interop = windows or shutil.which(exe) is not None
        host = None
    lister = WslDistroLister(b.wsl_exe)

    def remote(name: str) -> SampleReader:
        return WslProcSource(b.wsl_exe, name)

    if windows:
        chosen = WindowsPrimary(distro, lambda: default_distro(b.wsl_exe), lister, remote)
        return ObserveParts(
            clock=b.clock,
            primary=chosen,
            host=host,
            lister=lister,
            remote=remote,
            local_distro=None,
            windows_native=True,
            primary_name=chosen.name,
        )
    primary: SampleReader = ThreadedReader(b.procfs)
    return ObserveParts(
        clock=b.clock,
        primary=primary,
        host=host,
        lister=lister if interop else None,
        remote=remote if interop else None,
        local_distro=local,
        windows_native=False,
    )


def shell_transport(
    choice: str,
    distro: str,
    user: str | None,
    boundaries: Boundaries,
    env: Mapping[str, str],
) -> ShellTransport:
    """The shell server's transport. ``choice`` is WSLMCP_SHELL_TRANSPORT: ``wsl.exe``, ``local`` or
    ``auto`` (local when this process already runs inside ``distro`` or no wsl.exe is reachable,
    wsl.exe otherwise). Replaying a scenario always uses the recorded wsl.exe exchanges."""
    from wslmcp.boundaries.shell_transport import LocalTransport, WslExeTransport

    if boundaries.replaying:
        return WslExeTransport(boundaries.wsl_exe, distro, user)
    executable = env.get("WSLMCP_WSL_EXE", "wsl.exe")
    if choice == "auto":
        inside = env.get("WSL_DISTRO_NAME", "")
        if inside and inside.casefold() == distro.casefold():
            choice = "local"
        else:
            choice = "wsl.exe" if shutil.which(executable, path=env.get("PATH")) else "local"
    if choice == "local":
        return LocalTransport(user)
    return WslExeTransport(WslExeCli(executable, kill_on_overflow=True), distro, user)


def run_tokens(boundaries: Boundaries) -> Callable[[], str]:
    """Run tokens for the shell runner: random on a real host, a counter when replaying (recorded
    exchanges hold the tokens that were used when they were recorded)."""
    from wslmcp.shell.runner import random_token

    if not boundaries.replaying:
        return random_token
    counter = itertools.count(1)
    return lambda: f"{next(counter):016x}"
