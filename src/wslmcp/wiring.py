"""Wiring: the one composition root. It chooses real adapters or a scenario's recorded twins, and
reads the host's configuration from this machine or from the scenario.

Entry points call it, then hand what it built to an area's ``assembly``; nothing below them learns
which kind it holds. It imports no server area: what differs between a real run and a replay is
decided here, as a value handed down (the clock, the run tokens, the shell transport, the host's
platform and environment).
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from wslmcp.boundaries.bundle import Boundaries, Host, TransportChooser
from wslmcp.boundaries.client_files import LocalClientFiles
from wslmcp.boundaries.clock import AdvancingClock, SystemClock
from wslmcp.boundaries.local_files import OsLocalFiles
from wslmcp.boundaries.mcp_launcher import McpLauncher, ServerAnswer, ServerSpec
from wslmcp.boundaries.procfs import LocalProcSource
from wslmcp.boundaries.shell_transport import ShellTransport
from wslmcp.boundaries.tokens import RandomTokens
from wslmcp.boundaries.wsl_exe import WslExe, WslExeCli
from wslmcp.scenario.loader import Scenario
from wslmcp.scenario.recorder import ScenarioWriter
from wslmcp.scenario.sections import read_section, shell_env

__all__ = [
    "Boundaries",
    "Host",
    "Recording",
    "Replay",
    "Wired",
    "real",
    "real_host",
    "recording_shell",
    "replay",
    "replay_host",
    "wire",
]

WSL_EXE_VARIABLE = "WSLMCP_WSL_EXE"


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


@dataclass(frozen=True)
class Wired:
    boundaries: Boundaries
    host: Host


@dataclass(frozen=True)
class Replay(Wired):
    """A scenario's twins and host, with its clock as one the replay layer may move on."""

    clock: AdvancingClock
    scenario: Scenario


def _environ(environ: Mapping[str, str] | None) -> Mapping[str, str]:
    return os.environ if environ is None else environ


def _wsl_exe_path(environ: Mapping[str, str]) -> str:
    return environ.get(WSL_EXE_VARIABLE, "wsl.exe")


def _real_transports(environ: Mapping[str, str]) -> TransportChooser:
    """``auto``: local when this process already runs inside ``distro`` or no wsl.exe is reachable,
    wsl.exe otherwise."""
    from wslmcp.boundaries.shell_transport import LocalTransport, WslExeTransport

    def choose(choice: str, distro: str, user: str | None) -> ShellTransport:
        executable = _wsl_exe_path(environ)
        if choice == "auto":
            inside = environ.get("WSL_DISTRO_NAME", "")
            if inside and inside.casefold() == distro.casefold():
                choice = "local"
            else:
                choice = "wsl.exe" if shutil.which(executable, path=environ.get("PATH")) else "local"
        if choice == "local":
            return LocalTransport(user)
        return WslExeTransport(WslExeCli(executable, kill_on_overflow=True), distro, user)

    return choose


def _recorded_transports(wsl_exe: WslExe) -> TransportChooser:
    """A replay always runs through the recorded wsl.exe exchanges, whatever the choice was."""
    from wslmcp.boundaries.shell_transport import WslExeTransport

    def choose(choice: str, distro: str, user: str | None) -> ShellTransport:
        return WslExeTransport(wsl_exe, distro, user)

    return choose


def state_dir(environ: Mapping[str, str]) -> Path:
    """Where wslmcp keeps state that must outlive a process (the shell servers' temp-file
    ledgers): ``WSLMCP_STATE_DIR``, else ``%LOCALAPPDATA%\\wslmcp`` on Windows, else
    ``$XDG_STATE_HOME/wslmcp``, else ``~/.local/state/wslmcp``."""
    if environ.get("WSLMCP_STATE_DIR"):
        return Path(environ["WSLMCP_STATE_DIR"])
    if sys.platform == "win32" and environ.get("LOCALAPPDATA"):
        return Path(environ["LOCALAPPDATA"]) / "wslmcp"
    return Path(environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state") / "wslmcp"


def real(environ: Mapping[str, str] | None = None, proc_root: str = "/proc") -> Boundaries:
    """The real host."""
    env = _environ(environ)
    return Boundaries(
        clock=SystemClock(),
        procfs=LocalProcSource(proc_root),
        wsl_exe=WslExeCli(_wsl_exe_path(env)),
        client_files=LocalClientFiles(),
        local_files=OsLocalFiles(state_dir(env) / "shell"),
        mcp_launcher=_OnDemandMcpLauncher(),
        shell_transport=_real_transports(env),
        tokens=RandomTokens(),
        host_facts=None,
    )


def real_host(environ: Mapping[str, str] | None = None, *, interactive: bool = False) -> Host:
    """This machine's configuration."""
    env = _environ(environ)
    windows = sys.platform == "win32"
    cwd = os.getcwd()
    return Host(
        platform="windows" if windows else "linux",
        distro=env.get("WSL_DISTRO_NAME") or None,
        wsl_reachable=windows or shutil.which(_wsl_exe_path(env), path=env.get("PATH")) is not None,
        home=os.path.expanduser("~"),
        project=cwd,
        cwd=cwd,
        shell_env=env,
        interactive=interactive,
    )


def _scenario(scenario: Scenario | str | Path) -> Scenario:
    return scenario if isinstance(scenario, Scenario) else Scenario.load(scenario)


def replay(scenario: Scenario | str | Path) -> Boundaries:
    """A scenario's recorded twins, on a virtual clock that starts at the scenario's t=0."""
    return replaying(scenario).boundaries


def replay_host(scenario: Scenario | str | Path, environ: Mapping[str, str] | None = None) -> Host:
    """The host as the scenario states it. ``environ`` is what the scenario's ``shell.env`` is laid
    over (the process environment for ``wslmcp shell --replay``; nothing for the replay layer)."""
    sc = _scenario(scenario)
    section = read_section(sc)
    profile = sc.section("profile")
    stated_project = profile.get("project")
    cwd = os.getcwd()
    project = str(stated_project) if isinstance(stated_project, str) else cwd
    return Host(
        platform=section.platform,
        distro=section.distro,
        wsl_reachable=section.wsl_interop,
        home=str(sc.section("home").get("path", "")),
        project=project,
        cwd=project,
        shell_env={**({} if environ is None else environ), **shell_env(sc)},
        interactive=False,
    )


def replaying(scenario: Scenario | str | Path, environ: Mapping[str, str] | None = None) -> Replay:
    """Everything a replay of ``scenario`` runs on: its twins, its host and its clock."""
    from fakes.client_files import FakeClientFiles
    from fakes.clock import FakeClock
    from fakes.host_facts import StatedHost
    from fakes.local_files import FakeLocalFiles
    from fakes.mcp_launcher import FakeMcpLauncher
    from fakes.procfs import FakeProcSource
    from fakes.tokens import CountingTokens
    from fakes.wsl_exe import FakeWslExe

    sc = _scenario(scenario)
    clock = FakeClock(0.0, sc.start_wall)
    wsl_exe = FakeWslExe(sc)
    stated = read_section(sc).host
    boundaries = Boundaries(
        clock=clock,
        procfs=FakeProcSource(sc, clock),
        wsl_exe=wsl_exe,
        client_files=FakeClientFiles(sc),
        local_files=FakeLocalFiles(sc),
        mcp_launcher=FakeMcpLauncher.from_scenario(sc),
        shell_transport=_recorded_transports(wsl_exe),
        tokens=CountingTokens(),
        host_facts=StatedHost(stated) if stated is not None else None,
    )
    return Replay(boundaries, replay_host(sc, environ), clock, sc)


@dataclass(frozen=True)
class Recording(Wired):
    """A recording's boundaries and host, with the clock the recorder moves on between calls."""

    clock: AdvancingClock


def recording_shell(writer: ScenarioWriter, environ: Mapping[str, str], start_wall: float) -> Recording:
    """What ``wslmcp scenario record --area shell`` runs on: the real wsl.exe (``WSLMCP_WSL_EXE``:
    on Linux, the stand-in) with every exchange written by ``writer``; the run tokens and the clock
    a replay of the recording will have (a counter; virtual time from 0 at ``start_wall``, moved on
    by the calls' ``advance_s``), so the replay asks exactly what was recorded. The server's
    environment is ``environ``."""
    from fakes.clock import FakeClock
    from fakes.tokens import CountingTokens
    from fakes.wsl_exe import RecordingWslExe

    real_boundaries = real(environ)
    clock = FakeClock(0.0, start_wall)
    wsl_exe = RecordingWslExe(WslExeCli(_wsl_exe_path(environ), kill_on_overflow=True), writer)
    boundaries = replace(
        real_boundaries,
        clock=clock,
        wsl_exe=wsl_exe,
        shell_transport=_recorded_transports(wsl_exe),
        tokens=CountingTokens(),
    )
    host = replace(real_host(environ), shell_env=dict(environ))
    return Recording(boundaries, host, clock)


def wire(
    replay_dir: str | os.PathLike[str] | None,
    environ: Mapping[str, str] | None = None,
    *,
    interactive: bool = False,
) -> Wired:
    """What an entry point runs on: the scenario at ``replay_dir`` when given, else this machine.
    Raises ``ScenarioError`` for an invalid scenario."""
    if replay_dir is not None:
        return replaying(Path(replay_dir), environ)
    return Wired(real(environ), real_host(environ, interactive=interactive))
