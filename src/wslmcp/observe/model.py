"""What one collection observed, before the snapshot store gives it IDs.

WSL processes, Windows processes and applications, Docker and WSLC containers and their processes,
and the VM host rows are all ``Observed`` rows (with ``parents`` naming the rows they were
*observed* to belong to), beside the environment observations. Nothing here assumes only WSL exists.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from wslmcp.boundaries.host_facts import BREAKDOWN_KEYS, HostMemory
from wslmcp.observe.pressure import Pressure

Environment = Literal["windows", "wsl", "wslc", "docker"]
Kind = Literal["process", "application", "container", "infra", "host"]
ENVIRONMENTS: tuple[Environment, ...] = ("windows", "wsl", "wslc", "docker")
KINDS: tuple[Kind, ...] = ("process", "application", "container", "infra", "host")
CpuScope = Literal["windows_host", "wsl_visible"]


@dataclass(frozen=True, slots=True)
class Identity:
    """Who a row is. ``start_id`` (Linux starttime ticks) separates a process from a later one
    that reuses its PID; rows without one (containers, applications) are weak identities."""

    environment: Environment
    kind: Kind
    source: str | None
    native_id: str
    start_id: int | None = None


@dataclass(frozen=True, slots=True)
class Observed:
    identity: Identity
    name: str
    pid: int | None
    ppid: int | None
    args: str | None
    cpu_percent: float | None  # host-wide scale; None when no rate could be measured (new process)
    cpu_time_seconds: float | None
    memory_bytes: int | None
    parents: tuple[Identity, ...] = ()
    # a WSL process whose working directory is on a Windows drive (9P/drvfs); None: not known
    cwd_on_windows_drive: bool | None = None
    # CPU seconds used inside the window (the rate times the part of it the row lived); not shown
    cpu_seconds_used: float | None = None
    # CPU seconds of children that began and ended inside the window, unseen by any sample, that this
    # process waited for (its children counter's growth less what the samples saw of them); not shown
    exited_children_cpu_s: float | None = None

    def usage(self) -> dict[str, Any]:
        """The ``usage`` object: absent optional fields are omitted, ``pid`` is always present."""
        ident = self.identity
        out: dict[str, Any] = {"environment": ident.environment}
        if ident.source is not None:
            out["source"] = ident.source
        out["kind"] = ident.kind
        out["id"] = ident.native_id
        out["pid"] = self.pid
        if self.ppid is not None:
            out["ppid"] = self.ppid
        out["name"] = self.name
        if self.args is not None:
            out["args"] = self.args
        out["cpu_percent"] = self.cpu_percent
        if self.cpu_time_seconds is not None:
            out["cpu_time_seconds"] = self.cpu_time_seconds
        out["memory_bytes"] = self.memory_bytes
        if self.cwd_on_windows_drive is not None:
            out["cwd_on_windows_drive"] = self.cwd_on_windows_drive
        return out


@dataclass(frozen=True, slots=True)
class EnvObservation:
    cpu_percent: float | None
    memory_bytes: int | None

    def to_json(self) -> dict[str, Any] | None:
        if self.cpu_percent is None and self.memory_bytes is None:
            return None
        return {"cpu_percent": self.cpu_percent, "memory_bytes": self.memory_bytes}


@dataclass(frozen=True, slots=True)
class Summary:
    host_logical_cpu_count: int
    cpu_breakdown: Mapping[str, float] | None
    cpu_overlap_unresolved: bool
    host_memory: HostMemory | None
    environments: Mapping[Environment, EnvObservation | None]
    pressure: Pressure | None = None

    def to_json(self) -> dict[str, Any]:
        breakdown = (
            {k: float(self.cpu_breakdown[k]) for k in BREAKDOWN_KEYS}
            if self.cpu_breakdown is not None
            else None
        )
        envs = {}
        for env in ENVIRONMENTS:
            obs = self.environments.get(env)
            envs[env] = obs.to_json() if obs is not None else None
        out = {
            "host_logical_cpu_count": self.host_logical_cpu_count,
            "host_cpu_percent": breakdown["total"] if breakdown is not None else None,
            "cpu_breakdown": breakdown,
            "cpu_overlap_unresolved": self.cpu_overlap_unresolved,
            "host_memory": self.host_memory.to_json() if self.host_memory is not None else None,
            "environments": envs,
        }
        if self.pressure is not None:
            out["pressure"] = self.pressure.to_json()
        return out


@dataclass(frozen=True)
class Observation:
    """One finished collection: rows (grouped by the projection that produced them), summary,
    warnings, the CPU averaging window and when it completed."""

    projections: tuple[tuple[Observed, ...], ...]
    summary: Summary
    warnings: tuple[str, ...]
    sample_window_ms: int | None
    completed_monotonic: float
    completed_wall: float


def cores_used(cpu_percent: float | None, host_cpus: int) -> float | None:
    if cpu_percent is None or host_cpus <= 0:
        return None
    value = cpu_percent * host_cpus / 100.0
    return value if math.isfinite(value) and value >= 0 else None
