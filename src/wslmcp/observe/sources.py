"""What the collector reads from, as the domain sees it. Wiring hands in adapters behind these.

``SampleReader``  one distro's /proc sample (local /proc, or a distro read through wsl.exe in one call)
``DistroLister``  the names of the running WSL distributions
``HostProbe``     host-level facts stated by a part-1 scenario (logical CPUs, breakdown, memory)
``HostSources``   the Windows side (process tables, PDH counters) and the container engines
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from wslmcp.boundaries.docker_api import DockerApi
from wslmcp.boundaries.pdh import PdhCounters
from wslmcp.boundaries.procfs import ProcSample, ProcSource
from wslmcp.boundaries.windows_processes import WindowsProcesses
from wslmcp.boundaries.wslc import Wslc
from wslmcp.observe.model import HostMemory


class SampleReader(Protocol):
    async def read(self) -> ProcSample: ...


class DistroLister(Protocol):
    async def running(self) -> list[str]: ...


@dataclass(frozen=True)
class HostFacts:
    logical_cpus: int
    cpu_breakdown: Mapping[str, float] | None
    memory: HostMemory | None


class HostProbe(Protocol):
    async def read(self) -> HostFacts | None: ...


class ThreadedReader:
    """A blocking ``ProcSource`` read off the event loop, so pinned reads never wait behind it."""

    def __init__(self, source: ProcSource) -> None:
        self._source = source

    async def read(self) -> ProcSample:
        return await asyncio.to_thread(self._source.read_sample)


class StaticHost:
    """Host facts that do not change during a run (a scenario's stated host)."""

    def __init__(self, facts: HostFacts) -> None:
        self._facts = facts

    async def read(self) -> HostFacts | None:
        return self._facts


class WindowsPrimary:
    """The primary distribution of a server running on Windows: ``--distro NAME``, else WSL's default
    distribution, else the first running one; read through wsl.exe. Chosen once, on first use."""

    def __init__(
        self,
        requested: str | None,
        default_name: Callable[[], Awaitable[str | None]],
        lister: DistroLister,
        remote: Callable[[str], SampleReader],
    ) -> None:
        self._default_name, self._lister, self._remote = default_name, lister, remote
        self._name: str | None = requested

    async def name(self) -> str:
        if self._name is None:
            name = await self._default_name()
            if not name:
                running = await self._lister.running()
                name = running[0] if running else None
            if not name:
                raise LookupError("no WSL distribution is available; install one or pass --distro NAME")
            self._name = name
        return self._name

    async def read(self) -> ProcSample:
        return await self._remote(await self.name()).read()


@dataclass(frozen=True)
class HostSources:
    """The Windows-side and container boundaries a collector reads (any may be absent).

    ``windows_missing`` says why there is no Windows side when ``windows`` is None (a server inside
    WSL reads no Windows processes): it becomes the snapshot's warning.
    """

    windows: WindowsProcesses | None = None
    pdh: PdhCounters | None = None
    docker: DockerApi | None = None
    wslc: Wslc | None = None
    windows_missing: str | None = None
