"""This machine: its real adapters (``real``) and its configuration (``real_host``).

The adapters many runs never touch are built at their first use (``on_demand``), each by a builder
typed to return its port, so a profiler run imports none of the observe, shell or eval adapters.
This is the one module that reads the process environment (``environment``); entry points ask it.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING

from wslmcp.boundaries.bundle import Boundaries, Host, TransportChooser
from wslmcp.boundaries.client_files import LocalClientFiles
from wslmcp.boundaries.clock import SystemClock
from wslmcp.boundaries.config_files import LocalConfigFiles
from wslmcp.boundaries.tokens import RandomTokens
from wslmcp.wiring.on_demand import (
    Once,
    OnDemandDistroHomes,
    OnDemandDockerApi,
    OnDemandLocalFiles,
    OnDemandMcpSessions,
    OnDemandProcSource,
    OnDemandWindowsHome,
    OnDemandWslc,
    OnDemandWslExe,
)

if TYPE_CHECKING:
    from wslmcp.boundaries.audit_log import AuditLogFile
    from wslmcp.boundaries.distro_homes import DistroHomes
    from wslmcp.boundaries.docker_api import DockerApi
    from wslmcp.boundaries.local_files import LocalFiles
    from wslmcp.boundaries.mcp_launcher import McpLauncher, ServerAnswer, ServerSpec
    from wslmcp.boundaries.mcp_session import McpSessions
    from wslmcp.boundaries.pdh import PdhCounters
    from wslmcp.boundaries.procfs import ProcSource
    from wslmcp.boundaries.shell_transport import Confinement, ShellTransport
    from wslmcp.boundaries.windows_home import WindowsHome
    from wslmcp.boundaries.windows_processes import WindowsProcesses
    from wslmcp.boundaries.wsl_exe import WslExe
    from wslmcp.boundaries.wslc_cli import WslcCli

WSL_EXE_VARIABLE = "WSLMCP_WSL_EXE"


def environment() -> Mapping[str, str]:
    """The process environment: read here, and handed down as a value from here."""
    return os.environ


def _environ(environ: Mapping[str, str] | None) -> Mapping[str, str]:
    return environment() if environ is None else environ


def wsl_exe_path(environ: Mapping[str, str]) -> str:
    return environ.get(WSL_EXE_VARIABLE, "wsl.exe")


def _real_transports(environ: Mapping[str, str]) -> TransportChooser:
    """``auto``: local when this process already runs inside ``distro`` or no wsl.exe is reachable,
    wsl.exe otherwise. ``WSLMCP_FILES_IN_PROCESS=off`` keeps the local transport's file tools on
    their scripts (a diagnosis aid: the two paths give the same answers)."""
    in_process = environ.get("WSLMCP_FILES_IN_PROCESS", "").strip().lower() not in ("off", "0", "false", "no")

    def choose(
        choice: str, distro: str, user: str | None, confinement: Confinement | None = None
    ) -> ShellTransport:
        from wslmcp.boundaries.shell_transport import LocalTransport, WslExeTransport
        from wslmcp.boundaries.wsl_exe import WslExeCli

        executable = wsl_exe_path(environ)
        if choice == "auto":
            inside = environ.get("WSL_DISTRO_NAME", "")
            if inside and inside.casefold() == distro.casefold():
                choice = "local"
            else:
                choice = "wsl.exe" if shutil.which(executable, path=environ.get("PATH")) else "local"
        if choice == "local":
            return LocalTransport(user, confinement=confinement, in_process_files=in_process)
        return WslExeTransport(WslExeCli(executable, kill_on_overflow=True), distro, user, confinement)

    return choose


class _RealMcpLauncher:
    """The launcher for a server's transport: streamable HTTP for a ``url``, else its stdio; each
    built (its module imported) at the first query that needs it, so a run that launches nothing
    (``--no-query``, a diff, another server) pays for neither."""

    def __init__(self) -> None:
        self._stdio: Once[McpLauncher] = Once(_stdio_launcher)

    def query(self, spec: ServerSpec, timeout_s: float) -> ServerAnswer:
        if spec.url is not None:
            from wslmcp.boundaries.mcp_http import HttpMcpLauncher

            return HttpMcpLauncher().query(spec, timeout_s)
        return self._stdio.get().query(spec, timeout_s)


def _stdio_launcher() -> McpLauncher:
    from wslmcp.boundaries.mcp_stdio import StdioMcpLauncher

    return StdioMcpLauncher()


def append_only_file(path: str) -> AuditLogFile:
    from wslmcp.boundaries.audit_log import AppendOnlyFile

    return AppendOnlyFile(path)


def _procfs(root: str) -> ProcSource:
    from wslmcp.boundaries.procfs import LocalProcSource

    return LocalProcSource(root)


def _wsl_exe(executable: str) -> WslExe:
    from wslmcp.boundaries.wsl_exe import WslExeCli

    return WslExeCli(executable)


def _local_files(state: str) -> LocalFiles:
    from wslmcp.boundaries.local_files import OsLocalFiles

    return OsLocalFiles(state)


def _distro_homes(wsl_exe: WslExe) -> DistroHomes:
    from wslmcp.boundaries.distro_homes import WslDistroHomes

    return WslDistroHomes(wsl_exe)


def real_wslc(environ: Mapping[str, str] | None = None) -> WslcCli:
    """wslc.exe as found on this host (built at first use by ``real``; a recording wraps it)."""
    from wslmcp.boundaries.wslc_cli import WslcCli, find_wslc

    return WslcCli(find_wslc(_environ(environ), windows=sys.platform == "win32"))


def _windows_home(environ: Mapping[str, str]) -> WindowsHome:
    from wslmcp.boundaries.windows_home import InteropWindowsHome

    return InteropWindowsHome(environ)


def _mcp_sessions() -> McpSessions:
    from wslmcp.boundaries.mcp_session import ForkedMcpSessions

    return ForkedMcpSessions()


def _docker_api(environ: Mapping[str, str], windows: bool) -> DockerApi:
    """The Engine at the endpoint the docker CLI would use; one it cannot speak answers every
    request with the reason (``DockerUnavailable``)."""
    from pathlib import Path

    from wslmcp.boundaries.docker_engine import EngineApi
    from wslmcp.boundaries.docker_host import RefusedEndpoint, UnsupportedDockerHost, resolve_endpoint

    try:
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
    wsl_exe = OnDemandWslExe(lambda: _wsl_exe(wsl_exe_path(env)))
    shell_state = os.path.join(state_dir(env), "shell")
    return Boundaries(
        clock=SystemClock(),
        procfs=OnDemandProcSource(lambda: _procfs(proc_root)),
        wsl_exe=wsl_exe,
        client_files=LocalClientFiles(),
        local_files=OnDemandLocalFiles(lambda: _local_files(shell_state)),
        mcp_launcher=_RealMcpLauncher(),
        shell_transport=_real_transports(env),
        tokens=RandomTokens(),
        host_facts=None,
        audit_log=append_only_file,
        pdh=pdh,
        windows_processes=windows_processes,
        docker_api=OnDemandDockerApi(lambda: _docker_api(env, windows)),
        wslc=OnDemandWslc(lambda: real_wslc(env)),
        windows_home=OnDemandWindowsHome(lambda: _windows_home(env)),
        distro_homes=OnDemandDistroHomes(lambda: _distro_homes(wsl_exe)),
        mcp_sessions=OnDemandMcpSessions(_mcp_sessions),
        config_files=LocalConfigFiles(),
    )


def real_host(environ: Mapping[str, str] | None = None, *, interactive: bool = False) -> Host:
    """This machine's configuration."""
    env = _environ(environ)
    windows = sys.platform == "win32"
    cwd = os.getcwd()
    return Host(
        platform="windows" if windows else "linux",
        distro=env.get("WSL_DISTRO_NAME") or None,
        wsl_reachable=windows or shutil.which(wsl_exe_path(env), path=env.get("PATH")) is not None,
        home=os.path.expanduser("~"),
        project=cwd,
        cwd=cwd,
        shell_env=env,
        interactive=interactive,
        real_time=True,
        cache_dir=cache_dir(env),
    )
