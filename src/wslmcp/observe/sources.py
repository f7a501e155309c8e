"""What the collector reads from, as the domain sees it. Wiring hands in adapters behind these.

``SampleReader``  one distro's /proc sample (local /proc, or a distro read through wsl.exe in one call)
``DistroLister``  the names of the running WSL distributions
``HostProbe``     host-level facts stated by a scenario (``boundaries/host_facts.py``)
``HostSources``   the Windows side (process tables, PDH counters) and the container engines
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass
from typing import Protocol

from wslmcp.boundaries.docker_api import DockerApi
from wslmcp.boundaries.pdh import PdhCounters
from wslmcp.boundaries.procfs import ProcSample, ProcSource
from wslmcp.boundaries.windows_processes import WindowsProcesses
from wslmcp.boundaries.wslc import Wslc


class SampleReader(Protocol):
    """One distro's /proc sample (``procfs.ProcSource``'s contract, ``light_for`` included)."""

    async def read(self, light_for: Collection[int] = ()) -> ProcSample: ...


class DistroLister(Protocol):
    async def running(self) -> list[str]: ...


class ThreadedReader:
    """A blocking ``ProcSource`` read off the event loop, so pinned reads never wait behind it."""

    def __init__(self, source: ProcSource) -> None:
        self._source = source

    async def read(self, light_for: Collection[int] = ()) -> ProcSample:
        return await asyncio.to_thread(self._source.read_sample, light_for)


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

    async def read(self, light_for: Collection[int] = ()) -> ProcSample:
        return await self._remote(await self.name()).read(light_for)


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
