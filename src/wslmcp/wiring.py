"""Wiring: the one composition root. It chooses real adapters or a scenario's recorded twins, and
reads the host's configuration from this machine or from the scenario.

Entry points call it, then hand what it built to an area's ``assembly``; nothing below them learns
which kind it holds. It imports no server area: what differs between a real run and a replay is
decided here, as a value handed down (the clock, the run tokens, the shell transport, the host's
platform and environment).
"""

from __future__ import annotations

import functools
import os
import shutil
import sys
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, cast

from wslmcp.boundaries.bundle import Boundaries, Host, TransportChooser
from wslmcp.boundaries.client_files import LocalClientFiles
from wslmcp.boundaries.clock import SystemClock
from wslmcp.boundaries.tokens import RandomTokens
from wslmcp.boundaries.windows_home import InteropWindowsHome
from wslmcp.boundaries.wslc_cli import WslcCli, find_wslc

if TYPE_CHECKING:
    from pathlib import Path

    from wslmcp.boundaries.audit_log import AuditLogFile
    from wslmcp.boundaries.clock import AdvancingClock
    from wslmcp.boundaries.docker_api import DockerApi
    from wslmcp.boundaries.mcp_launcher import McpLauncher, ServerAnswer, ServerSpec
    from wslmcp.boundaries.mcp_session import McpSessions, ReplayTarget
    from wslmcp.boundaries.pdh import PdhCounters
    from wslmcp.boundaries.shell_transport import ShellTransport
    from wslmcp.boundaries.windows_processes import WindowsProcesses
    from wslmcp.boundaries.wsl_exe import WslExe
    from wslmcp.scenario.loader import Scenario
    from wslmcp.scenario.recorder import ScenarioWriter

__all__ = [
    "Boundaries", "Host", "Recording", "Replay", "Wired", "real", "real_host", "recording", "recording_shell",
    "replay", "replay_host", "replay_target", "wire",
]  # fmt: skip

WSL_EXE_VARIABLE = "WSLMCP_WSL_EXE"


class _OnDemandMcpLauncher:
    """The real launcher, built (and its module imported) at the first query: a run that launches
    nothing (``--no-query``, a diff, another server) does not pay for it."""

    def __init__(self) -> None:
        self._inner: McpLauncher | None = None

    def query(self, spec: ServerSpec, timeout_s: float) -> ServerAnswer:
        if spec.url is not None:
            from wslmcp.boundaries.mcp_http import HttpMcpLauncher

            return HttpMcpLauncher().query(spec, timeout_s)
        if self._inner is None:
            from wslmcp.boundaries.mcp_stdio import StdioMcpLauncher

            self._inner = StdioMcpLauncher()
        return self._inner.query(spec, timeout_s)


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

    def choose(choice: str, distro: str, user: str | None) -> ShellTransport:
        from wslmcp.boundaries.shell_transport import LocalTransport, WslExeTransport
        from wslmcp.boundaries.wsl_exe import WslExeCli

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


class _OnDemand:
    """A real adapter built by ``build`` (its module imported) at its first use, for a boundary that
    many runs never touch: the profiler reads no /proc and asks no Docker daemon, the observe
    server launches no MCP server. Every attribute is the built adapter's."""

    def __init__(self, build: Callable[[], object]) -> None:
        self._build = build
        self._lock = threading.Lock()
        self._inner: object | None = None

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("_"):  # the proxy's own (copy and pickle probe them): not the adapter's
            raise AttributeError(attribute)
        with self._lock:
            if self._inner is None:
                self._inner = self._build()
        return getattr(self._inner, attribute)


def _adapter(module: str, name: str, *args: object) -> Any:
    """``module.name(*args)``, imported and built at its first use (``_OnDemand``)."""

    def build() -> object:
        import importlib

        return getattr(importlib.import_module(module), name)(*args)

    return _OnDemand(build)


def _append_only_file(path: str) -> AuditLogFile:
    from wslmcp.boundaries.audit_log import AppendOnlyFile

    return AppendOnlyFile(path)


def _docker_api(environ: Mapping[str, str], windows: bool) -> DockerApi:
    """The Engine at the endpoint the docker CLI would use; one it cannot speak answers every
    request with the reason (``DockerUnavailable``)."""
    from wslmcp.boundaries.docker_engine import EngineApi
    from wslmcp.boundaries.docker_host import RefusedEndpoint, UnsupportedDockerHost, resolve_endpoint

    try:
        from pathlib import Path

        return EngineApi(resolve_endpoint(environ, Path(os.path.expanduser("~")), windows=windows))
    except UnsupportedDockerHost as exc:
        return RefusedEndpoint(exc)


def _windows_side(windows: bool) -> tuple[PdhCounters | None, WindowsProcesses | None]:
    if not windows:
        return None, None
    from wslmcp.boundaries.pdh_ctypes import PdhQuery
    from wslmcp.boundaries.windows_psutil import PsutilWindowsProcesses

    return PdhQuery(), PsutilWindowsProcesses()


def _home() -> str | None:
    """The user's home directory, or None when there is none to be found (no HOME, no passwd entry)."""
    home = os.path.expanduser("~")
    return None if home.startswith("~") else home


def state_dir(environ: Mapping[str, str]) -> str:
    """Where wslmcp keeps state that must outlive a process (the shell servers' temp-file
    ledgers): ``WSLMCP_STATE_DIR``, else ``%LOCALAPPDATA%\\wslmcp`` on Windows, else
    ``$XDG_STATE_HOME/wslmcp``, else ``~/.local/state/wslmcp``."""
    if environ.get("WSLMCP_STATE_DIR"):
        return environ["WSLMCP_STATE_DIR"]
    if sys.platform == "win32" and environ.get("LOCALAPPDATA"):
        return os.path.join(environ["LOCALAPPDATA"], "wslmcp")
    if environ.get("XDG_STATE_HOME"):
        return os.path.join(environ["XDG_STATE_HOME"], "wslmcp")
    home = _home()
    if home is None:
        raise RuntimeError("could not determine the home directory for the state directory")
    return os.path.join(home, ".local", "state", "wslmcp")


def cache_dir(environ: Mapping[str, str]) -> str | None:
    """Where wslmcp keeps data it can derive again (the profiler's token ranks): ``WSLMCP_CACHE_DIR``,
    else ``%LOCALAPPDATA%\\wslmcp\\cache`` on Windows, else ``$XDG_CACHE_HOME/wslmcp``, else
    ``~/.cache/wslmcp``; None when there is no home to put it in (nothing is cached then)."""
    if environ.get("WSLMCP_CACHE_DIR"):
        return environ["WSLMCP_CACHE_DIR"]
    if sys.platform == "win32" and environ.get("LOCALAPPDATA"):
        return os.path.join(environ["LOCALAPPDATA"], "wslmcp", "cache")
    if environ.get("XDG_CACHE_HOME"):
        return os.path.join(environ["XDG_CACHE_HOME"], "wslmcp")
    home = _home()
    return None if home is None else os.path.join(home, ".cache", "wslmcp")


def real(environ: Mapping[str, str] | None = None, proc_root: str = "/proc") -> Boundaries:
    """The real host."""
    env = _environ(environ)
    windows = sys.platform == "win32"
    pdh, windows_processes = _windows_side(windows)
    real_wsl_exe: WslExe = _adapter("wslmcp.boundaries.wsl_exe", "WslExeCli", _wsl_exe_path(env))
    return Boundaries(
        clock=SystemClock(),
        procfs=_adapter("wslmcp.boundaries.procfs", "LocalProcSource", proc_root),
        wsl_exe=real_wsl_exe,
        client_files=LocalClientFiles(),
        local_files=_adapter(
            "wslmcp.boundaries.local_files", "OsLocalFiles", os.path.join(state_dir(env), "shell")
        ),
        mcp_launcher=_OnDemandMcpLauncher(),
        shell_transport=_real_transports(env),
        tokens=RandomTokens(),
        host_facts=None,
        audit_log=_append_only_file,
        pdh=pdh,
        windows_processes=windows_processes,
        docker_api=cast("DockerApi", _OnDemand(functools.partial(_docker_api, env, windows))),
        wslc=WslcCli(find_wslc(env, windows=windows)),
        windows_home=InteropWindowsHome(env),
        distro_homes=_adapter("wslmcp.boundaries.distro_homes", "WslDistroHomes", real_wsl_exe),
        mcp_sessions=_adapter("wslmcp.boundaries.mcp_session", "ForkedMcpSessions"),
    )


def recording(
    writer: ScenarioWriter, environ: Mapping[str, str] | None = None, *, keep_cmdlines: bool = False
) -> Boundaries:
    """The real host with every boundary that ``wslmcp scenario record`` samples wrapped in its
    recorder, so what passes lands in ``writer``'s scenario in the format the twins replay."""
    from dataclasses import replace

    from fakes.docker_api import RecordingDockerApi
    from fakes.pdh import RecordingPdhCounters
    from fakes.procfs import RecordingProcSource
    from fakes.windows_processes import RecordingWindowsProcesses
    from fakes.wsl_exe import RecordingWslExe
    from fakes.wslc import RecordingWslc

    b = real(environ)
    assert isinstance(b.wslc, WslcCli)
    return replace(
        b,
        procfs=RecordingProcSource(b.procfs, writer),
        wsl_exe=RecordingWslExe(b.wsl_exe, writer),
        pdh=None if b.pdh is None else RecordingPdhCounters(b.pdh, writer),
        windows_processes=None
        if b.windows_processes is None
        else RecordingWindowsProcesses(b.windows_processes, writer, keep_cmdlines=keep_cmdlines),
        docker_api=None if b.docker_api is None else RecordingDockerApi(b.docker_api, writer),
        wslc=RecordingWslc(b.wslc, writer),
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
        real_time=True,
        cache_dir=cache_dir(env),
    )


def _scenario(scenario: Scenario | str | Path) -> Scenario:
    from wslmcp.scenario.loader import Scenario

    return scenario if isinstance(scenario, Scenario) else Scenario.load(scenario)


def replay(scenario: Scenario | str | Path) -> Boundaries:
    """A scenario's recorded twins, on a virtual clock that starts at the scenario's t=0."""
    return replaying(scenario).boundaries


def replay_host(scenario: Scenario | str | Path, environ: Mapping[str, str] | None = None) -> Host:
    """The host as the scenario states it. ``environ`` is what the scenario's ``shell.env`` is laid
    over (the process environment for ``wslmcp shell --replay``; nothing for the replay layer)."""
    from wslmcp.scenario.sections import read_section, shell_env

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
        real_time=False,
        observe_args=section.args,
    )


def _has_samples(scenario: Scenario, key: str) -> bool:
    """Whether the scenario recorded ``key`` samples (PDH, Windows tables: a Windows host's)."""
    return any(key in entry.data for entry in scenario.timeline)


def _stated_windows_home(sc: Scenario) -> str | None:
    stated = sc.section("profile").get("windows_home")
    return stated if isinstance(stated, str) else None


def _stated_distro_homes(sc: Scenario) -> list[str]:
    stated = sc.section("profile").get("distro_homes")
    return [h for h in stated if isinstance(h, str)] if isinstance(stated, list) else []


def replaying(scenario: Scenario | str | Path, environ: Mapping[str, str] | None = None) -> Replay:
    """Everything a replay of ``scenario`` runs on: its twins, its host and its clock."""
    from fakes.client_files import FakeClientFiles
    from fakes.clock import FakeClock
    from fakes.distro_homes import StatedDistroHomes
    from fakes.docker_api import FakeDockerApi
    from fakes.host_facts import StatedHost
    from fakes.local_files import FakeLocalFiles
    from fakes.mcp_launcher import FakeMcpLauncher
    from fakes.pdh import FakePdhCounters
    from fakes.procfs import FakeProcSource
    from fakes.tokens import CountingTokens
    from fakes.windows_home import StatedWindowsHome
    from fakes.windows_processes import FakeWindowsProcesses
    from fakes.wsl_exe import FakeWslExe
    from fakes.wslc import FakeWslc
    from wslmcp.scenario.sections import read_section

    sc = _scenario(scenario)
    clock = FakeClock(0.0, sc.start_wall)
    tokens = CountingTokens()
    wsl_exe = FakeWslExe(sc, on_miss=tokens.unused)
    stated = read_section(sc).host
    boundaries = Boundaries(
        clock=clock,
        procfs=FakeProcSource(sc, clock),
        wsl_exe=wsl_exe,
        client_files=FakeClientFiles(sc),
        local_files=FakeLocalFiles(sc),
        mcp_launcher=FakeMcpLauncher.from_scenario(sc),
        shell_transport=_recorded_transports(wsl_exe),
        tokens=tokens,
        host_facts=StatedHost(stated) if stated is not None else None,
        audit_log=_append_only_file,  # a replay asked for an audit log writes it, as the real server does
        pdh=FakePdhCounters(sc, clock) if _has_samples(sc, "pdh") else None,
        windows_processes=FakeWindowsProcesses(sc, clock) if _has_samples(sc, "windows") else None,
        docker_api=FakeDockerApi.from_scenario(sc, clock),
        wslc=FakeWslc(sc),
        windows_home=StatedWindowsHome(_stated_windows_home(sc)),
        distro_homes=StatedDistroHomes(_stated_distro_homes(sc)),
        mcp_sessions=_eval_sessions(sc),
    )
    return Replay(boundaries, replay_host(sc, environ), clock, sc)


def _eval_sessions(sc: Scenario) -> McpSessions:
    """A scenario's recorded eval sessions (``eval.mcp_sessions``) when it holds them; otherwise real
    sessions with servers replaying this same scenario (so nothing outside it is touched)."""
    recorded = sc.section("eval").get("mcp_sessions")
    if isinstance(recorded, str):
        from fakes.mcp_session import FakeMcpSessions

        return FakeMcpSessions.load(sc.file(recorded))
    from wslmcp.boundaries.mcp_session import ForkedMcpSessions

    return ForkedMcpSessions()


def replay_target(scenario: Scenario | str | Path) -> ReplayTarget:
    """What ``wslmcp eval`` replays against. Raises ``ScenarioError`` for an invalid scenario."""
    from wslmcp.boundaries.mcp_session import ReplayTarget
    from wslmcp.scenario.sections import read_section

    sc = _scenario(scenario)
    section = read_section(sc)
    return ReplayTarget(str(sc.root), sc.name, section.args, section.distro)


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
    from fakes.clock import PacedClock
    from fakes.tokens import CountingTokens
    from fakes.wsl_exe import RecordingWslExe
    from wslmcp.boundaries.wsl_exe import WslExeCli

    real_boundaries = real(environ)
    clock = PacedClock(0.0, start_wall)  # background processes are waited for in real time
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
        return replaying(os.fspath(replay_dir), environ)
    return Wired(real(environ), real_host(environ, interactive=interactive))
