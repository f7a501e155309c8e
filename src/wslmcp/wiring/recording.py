"""What ``wslmcp scenario record`` runs on: this machine's adapters wrapped in the recorders beside
their twins (``fakes/``), so what passes lands in a scenario in the format the twins replay."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from wslmcp.boundaries.bundle import Boundaries
from wslmcp.boundaries.clock import AdvancingClock, Clock
from wslmcp.boundaries.local_exchanges import LocalWslExe
from wslmcp.boundaries.wsl_exe import WslExe, WslExeCli
from wslmcp.fakes.clock import PacedClock
from wslmcp.fakes.docker_api import RecordingDockerApi
from wslmcp.fakes.pdh import RecordingPdhCounters
from wslmcp.fakes.procfs import RecordingProcSource
from wslmcp.fakes.tokens import CountingTokens
from wslmcp.fakes.windows_processes import RecordingWindowsProcesses
from wslmcp.fakes.wsl_exe import RecordingWslExe
from wslmcp.fakes.wslc import RecordingWslc
from wslmcp.scenario.recorder import ScenarioWriter
from wslmcp.wiring import Wired
from wslmcp.wiring.real import real, real_host, real_wslc, wsl_exe_path
from wslmcp.wiring.replay import recorded_transports


def paced_clock(start_wall: float) -> AdvancingClock:
    """The clock of a recording of live calls: virtual time from 0 at ``start_wall`` whose sleeps
    also take real time (``wslmcp.fakes.clock.PacedClock``), as a replay of it will see time."""
    return PacedClock(0.0, start_wall)


def recording(
    writer: ScenarioWriter,
    environ: Mapping[str, str] | None = None,
    *,
    keep_cmdlines: bool = False,
    clock: Clock | None = None,
) -> Boundaries:
    """The real host with every boundary that ``wslmcp scenario record`` samples wrapped in its
    recorder, so what passes lands in ``writer``'s scenario in the format the twins replay; on
    ``clock`` when given (a recording of live calls: ``paced_clock``)."""
    b = real(environ)
    return replace(
        b,
        clock=clock or b.clock,
        procfs=RecordingProcSource(b.procfs, writer),
        wsl_exe=RecordingWslExe(b.wsl_exe, writer),
        pdh=None if b.pdh is None else RecordingPdhCounters(b.pdh, writer),
        windows_processes=None
        if b.windows_processes is None
        else RecordingWindowsProcesses(b.windows_processes, writer, keep_cmdlines=keep_cmdlines),
        docker_api=None if b.docker_api is None else RecordingDockerApi(b.docker_api, writer),
        wslc=RecordingWslc(real_wslc(environ), writer),
    )


@dataclass(frozen=True)
class Recording(Wired):
    """A recording's boundaries and host, with the clock the recorder moves on between calls."""

    clock: AdvancingClock


def recording_shell(
    writer: ScenarioWriter,
    environ: Mapping[str, str],
    start_wall: float,
    kind: str = "wsl.exe",
    local_user: str | None = None,
) -> Recording:
    """What ``wslmcp scenario record --area shell`` runs on: the transport ``kind`` with every run
    written by ``writer`` as a wsl.exe exchange (the real wsl.exe, ``WSLMCP_WSL_EXE`` on Linux a
    stand-in; or this machine's bash as ``local_user``, ``boundaries.local_exchanges``); the run
    tokens and the clock a replay of the recording will have (a counter; virtual time from 0 at
    ``start_wall``, moved on by the calls' ``advance_s`` and by every sleep by what it asked for: a
    background process is waited for in real time), so the replay asks exactly what was recorded.
    The server's environment is ``environ``."""
    clock = PacedClock(0.0, start_wall)
    host = replace(real_host(environ), shell_env=dict(environ))
    inner: WslExe = (
        LocalWslExe(host.home) if kind == "local" else WslExeCli(wsl_exe_path(environ), kill_on_overflow=True)
    )
    wsl_exe = RecordingWslExe(inner, writer)
    boundaries = replace(
        real(environ),
        clock=clock,
        wsl_exe=wsl_exe,
        shell_transport=recorded_transports(wsl_exe, kind, local_user),
        tokens=CountingTokens(),
    )
    return Recording(boundaries, host, clock)
