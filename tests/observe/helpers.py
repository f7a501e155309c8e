"""Test doubles for the observe boundaries (readers of hand-built /proc samples) and an in-process rig."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Collection, Sequence
from typing import Any

from tests.observe.scenario_factory import Kernel, Proc, sample_files
from wslmcp.boundaries.host_facts import HostProbe
from wslmcp.boundaries.procfs import ProcSample, ProcUnavailable
from wslmcp.fakes.clock import FakeClock
from wslmcp.observe.collector import Collector, CollectorConfig
from wslmcp.observe.service import ObserveService
from wslmcp.observe.store import SnapshotStore

KERNEL = Kernel(
    cpus=4,
    busy=[(1000 + 300 * i, 0, 100 + 30 * i, 0, 5) for i in range(50)],
    uptime=[100.0 + 3 * i for i in range(50)],
)


def procs(n: int = 5) -> list[Proc]:
    return [
        Proc(
            10 + i,
            f"p{i}".encode(),
            f"/bin/p{i}\0".encode(),
            1,
            100 + i,
            [(100 + 30 * k * i, 10) for k in range(50)],
            100 * (i + 1),
        )
        for i in range(n)
    ]


class ScriptedReader:
    """Serves the k-th hand-built sample on the k-th read; counts reads; can fail or block."""

    def __init__(self, processes: Sequence[Proc] | None = None, kernel: Kernel = KERNEL) -> None:
        self.processes = list(processes or procs())
        self.kernel = kernel
        self.reads = 0
        self.fail_next = False
        self.gate: asyncio.Event | None = None
        self.blocked = asyncio.Event()

    async def read(self, light_for: Collection[int] = ()) -> ProcSample:
        if self.gate is not None:
            self.blocked.set()
            await self.gate.wait()
        if self.fail_next:
            self.fail_next = False
            raise ProcUnavailable("cannot list /proc: gone")
        i = min(self.reads, len(self.kernel.busy) - 1)
        self.reads += 1
        return ProcSample.build(sample_files(self.processes, self.kernel, i), clk_tck=100, page_size=4096)


class ThreadBlockingReader(ScriptedReader):
    """Blocks in a worker thread (like a slow real /proc read) until released."""

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()
        self.entered = threading.Event()

    async def read(self, light_for: Collection[int] = ()) -> ProcSample:
        def blocking() -> None:
            self.entered.set()
            self.release.wait(30)

        if self.reads >= 2:
            await asyncio.to_thread(blocking)
        return await super().read()


def make_service(
    reader: Any,
    *,
    clock: FakeClock | None = None,
    interval_s: float = 3.0,
    wsl_only: bool = True,
    host: HostProbe | None = None,
    capacity: int = 4,
    retention_s: float = 60.0,
    remote: Callable[[str], Any] | None = None,
    lister: Any = None,
) -> tuple[ObserveService, FakeClock]:
    clock = clock or FakeClock(1000.0)
    config = CollectorConfig(
        interval_s=interval_s, wsl_only=wsl_only, docker=False, wslc=False, local_distro="Ubuntu"
    )
    collector = Collector(clock, config, reader, host=host, lister=lister, remote=remote)
    store = SnapshotStore(clock, "test", capacity=capacity, retention_s=retention_s)
    return ObserveService(store, collector), clock
