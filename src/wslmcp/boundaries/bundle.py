"""What wiring hands every area: the boundaries (one field each) and the host's configuration.

``wslmcp.wiring`` builds both, from this machine or from a scenario; an area's ``assembly`` takes
them and never learns which. Nothing here chooses: these are the shapes of what was chosen.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from wslmcp.boundaries.audit_log import AuditLogFile
    from wslmcp.boundaries.client_files import ClientFiles
    from wslmcp.boundaries.clock import Clock
    from wslmcp.boundaries.config_files import ConfigFiles
    from wslmcp.boundaries.distro_homes import DistroHomes
    from wslmcp.boundaries.docker_api import DockerApi
    from wslmcp.boundaries.host_facts import HostProbe
    from wslmcp.boundaries.local_files import LocalFiles
    from wslmcp.boundaries.mcp_launcher import McpLauncher
    from wslmcp.boundaries.mcp_session import McpSessions
    from wslmcp.boundaries.pdh import PdhCounters
    from wslmcp.boundaries.procfs import ProcSource
    from wslmcp.boundaries.shell_transport import Confinement, ShellTransport
    from wslmcp.boundaries.tokens import TokenSource
    from wslmcp.boundaries.windows_home import WindowsHome
    from wslmcp.boundaries.windows_processes import WindowsProcesses
    from wslmcp.boundaries.wsl_exe import WslExe
    from wslmcp.boundaries.wslc import Wslc


class TransportChooser(Protocol):
    """The shell server's transport for ``distro`` and ``user``, running every script in
    ``confinement`` when one is given. ``choice`` is WSLMCP_SHELL_TRANSPORT (``wsl.exe``, ``local``
    or ``auto``); a replay always answers with its recorded wsl.exe."""

    def __call__(
        self, choice: str, distro: str, user: str | None, confinement: Confinement | None = None
    ) -> ShellTransport: ...


@dataclass(frozen=True)
class Boundaries:
    clock: Clock
    procfs: ProcSource
    wsl_exe: WslExe
    client_files: ClientFiles
    local_files: LocalFiles
    mcp_launcher: McpLauncher
    shell_transport: TransportChooser
    tokens: TokenSource
    host_facts: HostProbe | None
    #: opens the audit log file ``WSL_AUDIT_LOG`` names (the shell's ``audit_of``)
    audit_log: Callable[[str], AuditLogFile]
    # The Windows side: None where this host (or the scenario's) has no such source: PDH and the
    # Windows process table exist only on Windows (or when recorded there); the Docker Engine and
    # wslc.exe are always wired, and say themselves when they are absent.
    pdh: PdhCounters | None = None
    windows_processes: WindowsProcesses | None = None
    docker_api: DockerApi | None = None
    wslc: Wslc | None = None
    #: Inside a WSL distro: where the Windows side's home is (the profiler's other side).
    windows_home: WindowsHome | None = None
    #: On Windows: the running distros' homes (the profiler's other side).
    distro_homes: DistroHomes | None = None
    #: sessions with replaying wslmcp servers (``wslmcp eval``); a replay holds no recorded ones
    mcp_sessions: McpSessions | None = None
    #: the client configuration files ``wslmcp install`` writes (None: a replay writes none)
    config_files: ConfigFiles | None = None


@dataclass(frozen=True)
class Host:
    """The host's configuration, read once by wiring (from this machine, or as a scenario states it).

    ``platform``       ``"linux"`` (plain Linux, or inside a WSL distro) or ``"windows"``
    ``distro``         the WSL distribution this process runs in (WSL_DISTRO_NAME), or ``None``
    ``wsl_reachable``  whether wsl.exe can be run (other distributions can be listed and read)
    ``home``           the user's home directory; ``project`` the project directory; ``cwd`` the
                       directory the command was started in
    ``shell_env``      the environment the shell server's ``WSL_*`` configuration is read from
    ``interactive``    whether progress may be drawn on stderr (a terminal, not a replay)
    ``real_time``      whether the clock is this machine's, so background work may wait on it (a
                       replay's virtual clock only moves when the replay moves it)
    ``cache_dir``      where derived data may be kept between runs (the profiler's token ranks),
                       or ``None`` (a replay keeps nothing)
    ``observe_args``   the observe server's startup options a scenario states (``observe.args``),
                       applied under the command line's own
    ``first_request_s`` a replay's virtual seconds from the server's start to its first request, as
                       its scenario states them (observe's history of that time); ``None``: real
                       time, or a scenario that states none (it keeps no history)
    """

    platform: str
    distro: str | None
    wsl_reachable: bool
    home: str
    project: str
    cwd: str
    shell_env: Mapping[str, str]
    interactive: bool = False
    real_time: bool = False
    cache_dir: str | None = None
    observe_args: tuple[str, ...] = ()
    first_request_s: float | None = None

    @property
    def windows_native(self) -> bool:
        """The server runs on Windows itself (a distro's /proc is read through wsl.exe)."""
        return self.platform == "windows"
