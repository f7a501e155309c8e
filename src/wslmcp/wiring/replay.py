"""A scenario: its recorded twins (``fakes/``), the host it states and the clock a replay moves on.

Imported only when something replays (``wire(DIR)``, the replay layer), so a real run loads neither
the twins nor the scenario format.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from wslmcp.boundaries.bundle import Boundaries, Host, TransportChooser
from wslmcp.boundaries.clock import AdvancingClock
from wslmcp.boundaries.local_exchanges import LocalThroughWslExe
from wslmcp.boundaries.mcp_session import ForkedMcpSessions, McpSessions, ReplayTarget
from wslmcp.boundaries.shell_transport import Confinement, ShellTransport, WslExeTransport
from wslmcp.boundaries.wsl_exe import WslExe
from wslmcp.fakes.client_files import FakeClientFiles
from wslmcp.fakes.clock import FakeClock
from wslmcp.fakes.distro_homes import StatedDistroHomes
from wslmcp.fakes.docker_api import FakeDockerApi
from wslmcp.fakes.host_facts import StatedHost
from wslmcp.fakes.local_files import FakeLocalFiles
from wslmcp.fakes.mcp_launcher import FakeMcpLauncher
from wslmcp.fakes.mcp_session import FakeMcpSessions
from wslmcp.fakes.pdh import FakePdhCounters
from wslmcp.fakes.procfs import FakeProcSource
from wslmcp.fakes.tokens import CountingTokens
from wslmcp.fakes.windows_home import StatedWindowsHome
from wslmcp.fakes.windows_processes import FakeWindowsProcesses
from wslmcp.fakes.wsl_exe import FakeWslExe
from wslmcp.fakes.wslc import FakeWslc
from wslmcp.scenario.loader import Scenario
from wslmcp.scenario.sections import read_section, session_calls, shell_env, shell_transport
from wslmcp.wiring import Wired
from wslmcp.wiring.real import append_only_file


@dataclass(frozen=True)
class Replay(Wired):
    """A scenario's twins and host, with its clock as one the replay layer may move on."""

    clock: AdvancingClock
    scenario: Scenario


def _scenario(scenario: Scenario | str | Path) -> Scenario:
    return scenario if isinstance(scenario, Scenario) else Scenario.load(scenario)


def recorded_transports(
    wsl_exe: WslExe, kind: str = "wsl.exe", local_user: str | None = None
) -> TransportChooser:
    """A replay (and a recording) runs through the recorded wsl.exe exchanges, whatever the choice
    was, as the transport ``kind`` that was recorded (the local one as ``local_user`` ran it)."""

    def choose(
        choice: str, distro: str, user: str | None, confinement: Confinement | None = None
    ) -> ShellTransport:
        if kind == "local":
            return LocalThroughWslExe(wsl_exe, distro, user, local_user, confinement)
        return WslExeTransport(wsl_exe, distro, user, confinement)

    return choose


def replay(scenario: Scenario | str | Path) -> Boundaries:
    """A scenario's recorded twins, on a virtual clock that starts at the scenario's t=0."""
    return replaying(scenario).boundaries


def replay_host(scenario: Scenario | str | Path, environ: Mapping[str, str] | None = None) -> Host:
    """The host as the scenario states it. ``environ`` is what the scenario's ``shell.env`` is laid
    over (the process environment for ``wslmcp shell --replay``; nothing for the replay layer)."""
    sc = _scenario(scenario)
    section = read_section(sc)
    stated_project = sc.section("profile").get("project")
    project = str(stated_project) if isinstance(stated_project, str) else os.getcwd()
    return Host(
        platform=section.platform,
        distro=section.distro,
        wsl_reachable=section.wsl_interop,
        home=str(sc.section("home").get("path", "")),
        project=project,
        cwd=project,
        shell_env={**({} if environ is None else environ), **shell_env(sc)},  # (SHELL_ENV_BEFORE)
        interactive=False,
        real_time=False,
        observe_args=section.args,
        first_request_s=None if section.first_request_ms is None else section.first_request_ms / 1000,
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
        shell_transport=recorded_transports(wsl_exe, *shell_transport(sc)),
        tokens=tokens,
        host_facts=StatedHost(stated) if stated is not None else None,
        audit_log=append_only_file,  # a replay asked for an audit log writes it, as the real server does
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
        return FakeMcpSessions.load(sc.file(recorded))
    return ForkedMcpSessions()


def replay_target(scenario: Scenario | str | Path) -> ReplayTarget:
    """What ``wslmcp eval`` replays against. Raises ``ScenarioError`` for an invalid scenario."""
    sc = _scenario(scenario)
    section = read_section(sc)
    return ReplayTarget(str(sc.root), sc.name, section.args, section.distro, session_calls(sc))
