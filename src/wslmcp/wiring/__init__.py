"""Wiring: the one composition root. It chooses real adapters or a scenario's recorded twins, and
reads the host's configuration from this machine or from the scenario.

Entry points call ``wire``, then hand what it built to an area's ``build``; nothing below them
learns which kind it holds. Wiring imports no server area: what differs between a real run and a
replay is decided here, as a value handed down (the clock, the run tokens, the shell transport,
the host's platform and environment).

``wiring.real``       this machine: real adapters (those many runs never touch built on demand,
                      typed per port: ``wiring.on_demand``) and ``real_host``; the one reader of
                      the process environment (``environment``)
``wiring.replay``     a scenario: its twins, its host, its clock (imported only to replay)
``wiring.recording``  this machine with the recorders wrapped around it (``wslmcp scenario record``)
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from wslmcp.boundaries.bundle import Boundaries, Host
from wslmcp.wiring.real import cache_dir, environment, real, real_host, real_wslc, state_dir

__all__ = [
    "Boundaries", "Host", "Wired", "cache_dir", "environment", "real", "real_host", "real_wslc", "state_dir",
    "wire",
]  # fmt: skip


@dataclass(frozen=True)
class Wired:
    boundaries: Boundaries
    host: Host


def wire(
    replay_dir: str | os.PathLike[str] | None,
    environ: Mapping[str, str] | None = None,
    *,
    interactive: bool = False,
) -> Wired:
    """What an entry point runs on: the scenario at ``replay_dir`` when given, else this machine.
    Raises ``ScenarioError`` for an invalid scenario."""
    if replay_dir is not None:
        from wslmcp.wiring.replay import replaying  # the twins and the scenario format: a replay's only

        return replaying(os.fspath(replay_dir), environ)
    return Wired(real(environ), real_host(environ, interactive=interactive))
