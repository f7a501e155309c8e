"""Real adapters built at their first use, one class per port.

Many runs never touch most boundaries: the profiler reads no /proc and asks no Docker daemon, the
observe server launches no MCP server. Wiring hands those runs an adapter of the port's own shape
whose first call builds the real one (importing its module then) and passes every call on. Each
class below implements its port's Protocol method by method, and each is given a builder typed to
return that port, so mypy checks both sides: the stand-in against the port, the real adapter
against the port it is built for. A ``close`` before any use builds nothing.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Generic, TypeVar

if TYPE_CHECKING:
    from wslmcp.boundaries.distro_homes import DistroHomes
    from wslmcp.boundaries.docker_api import ApiAnswer, DockerApi, DockerEndpoint
    from wslmcp.boundaries.local_files import LocalFiles, LocalPartial, LocalSource
    from wslmcp.boundaries.mcp_session import McpSession, McpSessions, SessionSpec
    from wslmcp.boundaries.process import Exchange
    from wslmcp.boundaries.procfs import ProcSample, ProcSource
    from wslmcp.boundaries.windows_home import WindowsHome
    from wslmcp.boundaries.wsl_exe import WslCall, WslExe
    from wslmcp.boundaries.wslc import Wslc, WslcOutput

T = TypeVar("T")


class Once(Generic[T]):
    """``build()``'s result, built at the first ``get()`` and only once, whichever thread asks."""

    def __init__(self, build: Callable[[], T]) -> None:
        self._build = build
        self._lock = threading.Lock()
        self._built: list[T] = []

    def get(self) -> T:
        if not self._built:
            with self._lock:
                if not self._built:
                    self._built.append(self._build())
        return self._built[0]

    @property
    def built(self) -> T | None:
        """The adapter when it has been built, else None (nothing is built to ask)."""
        return self._built[0] if self._built else None


class OnDemandProcSource:
    def __init__(self, build: Callable[[], ProcSource]) -> None:
        self._adapter = Once(build)

    def read_sample(self, light_for: Collection[int] = ()) -> ProcSample:
        return self._adapter.get().read_sample(light_for)


class OnDemandWslExe:
    def __init__(self, build: Callable[[], WslExe]) -> None:
        self._adapter = Once(build)

    async def run(self, call: WslCall) -> Exchange:
        return await self._adapter.get().run(call)


class OnDemandLocalFiles:
    def __init__(self, build: Callable[[], LocalFiles]) -> None:
        self._adapter = Once(build)

    def resolve(self, path: str) -> str:
        return self._adapter.get().resolve(path)

    def real(self, path: str) -> str:
        return self._adapter.get().real(path)

    def open_source(self, path: str) -> LocalSource:
        return self._adapter.get().open_source(path)

    def partial(self, dest: str) -> LocalPartial:
        return self._adapter.get().partial(dest)

    def track(self, where: str, path: str) -> None:
        self._adapter.get().track(where, path)

    def untrack(self, where: str, path: str) -> None:
        self._adapter.get().untrack(where, path)

    def reclaim(self) -> list[tuple[str, str]]:
        return self._adapter.get().reclaim()

    def close(self) -> None:
        if (built := self._adapter.built) is not None:
            built.close()


class OnDemandDockerApi:
    def __init__(self, build: Callable[[], DockerApi]) -> None:
        self._adapter = Once(build)

    @property
    def endpoint(self) -> DockerEndpoint:
        return self._adapter.get().endpoint

    async def get(self, path: str, query: Mapping[str, str] | None = None, *, timeout_s: float) -> ApiAnswer:
        return await self._adapter.get().get(path, query, timeout_s=timeout_s)


class OnDemandDistroHomes:
    def __init__(self, build: Callable[[], DistroHomes]) -> None:
        self._adapter = Once(build)

    def find(self) -> list[str]:
        return self._adapter.get().find()


class OnDemandWslc:
    def __init__(self, build: Callable[[], Wslc]) -> None:
        self._adapter = Once(build)

    async def run(self, args: Sequence[str], *, timeout_s: float | None = None) -> WslcOutput:
        return await self._adapter.get().run(args, timeout_s=timeout_s)


class OnDemandWindowsHome:
    def __init__(self, build: Callable[[], WindowsHome]) -> None:
        self._adapter = Once(build)

    def find(self) -> str | None:
        return self._adapter.get().find()


class OnDemandMcpSessions:
    def __init__(self, build: Callable[[], McpSessions]) -> None:
        self._adapter = Once(build)

    def open(self, spec: SessionSpec) -> contextlib.AbstractAsyncContextManager[McpSession]:
        return self._adapter.get().open(spec)

    def close(self) -> None:
        if (built := self._adapter.built) is not None:
            built.close()
