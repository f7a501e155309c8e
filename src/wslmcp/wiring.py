"""Wiring: the one place that chooses real adapters or a scenario's recorded fakes.

Everything below the CLI receives a ``Boundaries`` and never learns which kind it holds.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from wslmcp.boundaries.client_files import ClientFiles, LocalClientFiles
from wslmcp.boundaries.clock import Clock, SystemClock
from wslmcp.boundaries.procfs import LocalProcSource, ProcSource
from wslmcp.boundaries.wsl_exe import WslExe, WslExeCli
from wslmcp.scenario.loader import Scenario


@dataclass
class Boundaries:
    clock: Clock
    procfs: ProcSource
    wsl_exe: WslExe
    client_files: ClientFiles
    scenario: Scenario | None = None

    @property
    def replaying(self) -> bool:
        return self.scenario is not None


def real(proc_root: str = "/proc") -> Boundaries:
    """The real host."""
    return Boundaries(
        clock=SystemClock(),
        procfs=LocalProcSource(proc_root),
        wsl_exe=WslExeCli(os.environ.get("WSLMCP_WSL_EXE", "wsl.exe")),
        client_files=LocalClientFiles(),
    )


def replay(scenario_dir: str | Path) -> Boundaries:
    """A scenario's recorded twins, on a virtual clock that starts at the scenario's t=0."""
    from fakes.client_files import FakeClientFiles
    from fakes.clock import FakeClock
    from fakes.procfs import FakeProcSource
    from fakes.wsl_exe import FakeWslExe

    scenario = Scenario.load(scenario_dir)
    clock = FakeClock(0.0, scenario.start_wall)
    client_files: ClientFiles = (
        FakeClientFiles(scenario) if "home" in scenario.manifest else LocalClientFiles()
    )
    return Boundaries(
        clock=clock,
        procfs=FakeProcSource(scenario, clock),
        wsl_exe=FakeWslExe(scenario),
        client_files=client_files,
        scenario=scenario,
    )
