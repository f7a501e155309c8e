"""Recording a Windows host's side into a scenario: what ``wslmcp scenario record --windows
--docker --wslc`` samples, through boundaries that wiring has wrapped in recorders
(``wiring.recording``), so every answer lands in the scenario in the format its twin replays.

Each sample (on a fixed schedule, like /proc recording): the primary /proc (local; or on Windows
the primary distribution and every other running one through wsl.exe, as the server reads them);
with ``windows`` one
PDH sample and one Windows process table; with ``docker`` the Engine's container list, then every
container's ``stats?stream=false`` and ``top`` (the requests the observe server makes), all at
once; with ``wslc`` ``container list`` and ``container stats``. A source that fails is recorded
as it failed (an Engine error, a wslc exit code) and the recording goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from pathlib import Path

from wslmcp.boundaries.bundle import Boundaries
from wslmcp.boundaries.docker_api import TOP_PS_ARGS, DockerApi, DockerError
from wslmcp.boundaries.pdh import PdhUnavailable
from wslmcp.boundaries.procfs import ProcUnavailable
from wslmcp.boundaries.procfs_wsl import WslDistroLister, WslProcSource, default_distro
from wslmcp.boundaries.windows_processes import WindowsUnavailable
from wslmcp.boundaries.wslc import LIST_ARGS, STATS_ARGS, Wslc
from wslmcp.scenario.recorder import ScenarioWriter

DOCKER_TIMEOUT_S = 5.0
WSLC_TIMEOUT_S = 10.0


class NothingToRecord(ValueError):
    """A source was asked for that this host does not have."""


@dataclass(frozen=True)
class Sources:
    """What to record. ``through_wsl_exe``: the primary /proc is a distro read through wsl.exe
    (``distro``, None = WSL's default), as the observe server reads it on Windows; its exchanges
    are recorded in ``exchanges.wsl_exe``. Otherwise the local /proc is the primary."""

    windows: bool = False
    docker: bool = False
    wslc: bool = False
    through_wsl_exe: bool = False
    distro: str | None = None


async def _docker(api: DockerApi) -> None:
    try:
        listing = await api.get("/containers/json", timeout_s=DOCKER_TIMEOUT_S)
    except DockerError:
        return
    ids = (
        [c["Id"] for c in listing.body if isinstance(c, dict) and isinstance(c.get("Id"), str)]
        if (listing.status == 200 and isinstance(listing.body, list))
        else []
    )
    calls = []
    for cid in ids:
        calls.append(api.get(f"/containers/{cid}/stats", {"stream": "false"}, timeout_s=DOCKER_TIMEOUT_S))
        calls.append(api.get(f"/containers/{cid}/top", {"ps_args": TOP_PS_ARGS}, timeout_s=DOCKER_TIMEOUT_S))
    await asyncio.gather(*calls, return_exceptions=True)


async def _wslc(wslc: Wslc) -> None:
    with contextlib.suppress(FileNotFoundError):
        await wslc.run(LIST_ARGS, timeout_s=WSLC_TIMEOUT_S)
        await wslc.run(STATS_ARGS, timeout_s=WSLC_TIMEOUT_S)


async def _primary_name(b: Boundaries, requested: str | None) -> str:
    """As the observe server on Windows chooses it: ``--distro``, else WSL's default, else the
    first running distribution (the same wsl.exe calls, so they are recorded for its replay)."""
    name = requested or await default_distro(b.wsl_exe)
    if not name:
        running = await WslDistroLister(b.wsl_exe).running()
        name = running[0] if running else None
    if not name:
        raise NothingToRecord("no WSL distribution is available; install one or pass --distro NAME")
    return name


async def _distros(b: Boundaries, primary: str) -> None:
    """The primary and every other running distribution, read as the server reads them."""
    try:
        names = await WslDistroLister(b.wsl_exe).running()
    except ProcUnavailable:  # recorded as it failed; the server then samples the primary alone
        names = []
    others = [n for n in dict.fromkeys(names) if n.casefold() != primary.casefold()]
    await asyncio.gather(*(WslProcSource(b.wsl_exe, n).read() for n in [primary, *others]))


def observe_section(
    sources: Sources, interval_ms: int, primary: str | None = None, local_distro: str | None = None
) -> dict[str, object]:
    """How the observe server is started on this scenario's replay: every option what was recorded
    needs (its interval; no collector for a source that was not recorded), and the host it ran on
    (``local_distro``: the distribution a Linux recording ran in, when it ran in WSL)."""
    args = ["--interval-ms", str(interval_ms), *(["--distro", primary] if sources.distro and primary else [])]
    args += [*([] if sources.docker else ["--no-docker"]), *([] if sources.wslc else ["--no-wslc"])]
    section: dict[str, object] = {"args": args}
    if sources.through_wsl_exe:
        section.update(platform="windows", wsl_interop=True)
    else:  # only this host's /proc was read: no other distribution is in the recording
        section.update(platform="linux", wsl_interop=False)
        if local_distro:
            section["distro"] = local_distro
    return section


async def record_host(
    b: Boundaries,
    writer: ScenarioWriter,
    sources: Sources,
    duration_s: float,
    interval_ms: int,
    *,
    local_distro: str | None = None,
) -> Path:
    """Sample for ``duration_s`` every ``interval_ms`` (at least two samples, each stamped with its
    scheduled time), then commit the scenario; on any failure nothing is left behind."""
    try:
        if sources.windows and (b.pdh is None or b.windows_processes is None):
            raise NothingToRecord("--windows needs a Windows host (PDH and the Windows process table)")
        primary = await _primary_name(b, sources.distro) if sources.through_wsl_exe else None
        start = b.clock.monotonic()
        first = writer.now_ms()
        for i in range(max(2, int(duration_s * 1000 // interval_ms) + 1)):
            if i:
                await b.clock.sleep(start + i * interval_ms / 1000 - b.clock.monotonic())
            writer.schedule(first + i * interval_ms)
            if primary is not None:
                await _distros(b, primary)
            else:
                b.procfs.read_sample()
            if sources.windows and b.pdh is not None and b.windows_processes is not None:
                with contextlib.suppress(PdhUnavailable):
                    b.pdh.collect()
                with contextlib.suppress(WindowsUnavailable):
                    b.windows_processes.read()
            side = []
            if sources.docker and b.docker_api is not None:
                side.append(_docker(b.docker_api))
            if sources.wslc and b.wslc is not None:
                side.append(_wslc(b.wslc))
            await asyncio.gather(*side)
        writer.manifest["observe"] = observe_section(sources, interval_ms, primary, local_distro)
        if primary is None:
            writer.expect({"kind": "procfs-replay"})
        return writer.commit()
    except BaseException:
        writer.abort()
        raise
    finally:
        if b.pdh is not None:
            b.pdh.close()
