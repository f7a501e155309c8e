"""Host-level facts as a boundary: logical CPUs, the host CPU partition breakdown, host memory.

Contract
--------
``HostProbe.read()``  the facts as they are now, or ``None`` when this host cannot tell (a server
                      not on Windows has no Windows collector). Numbers are plain: CPU percentages 0..100 of the whole
                      host, memory in bytes. It never raises for a missing fact; it leaves it ``None``.

On Windows the facts come from PDH and psutil (observe's Windows side). A scenario can state the
facts its host had (``observe.host``); ``wslmcp.fakes.host_facts.StatedHost`` serves them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

BREAKDOWN_KEYS = ("total", "windows", "virtual_machines", "other")


@dataclass(frozen=True, slots=True)
class HostMemory:
    total_bytes: int
    available_bytes: int

    def to_json(self) -> dict[str, Any] | None:
        used = (
            self.total_bytes - self.available_bytes
            if self.total_bytes > 0 and 0 <= self.available_bytes <= self.total_bytes
            else None
        )
        if used is None:
            return None
        return {"total_bytes": self.total_bytes, "available_bytes": self.available_bytes, "used_bytes": used}


@dataclass(frozen=True)
class HostFacts:
    logical_cpus: int
    cpu_breakdown: Mapping[str, float] | None
    memory: HostMemory | None


class HostProbe(Protocol):
    async def read(self) -> HostFacts | None: ...
