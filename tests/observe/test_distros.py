"""Additional distributions through a real `wsl.exe` stand-in on PATH: the real wiring, the real
wsl.exe adapter, the real sample script on this machine's /proc. One wsl.exe call per distro and
sample, never one per file."""

from __future__ import annotations

import dataclasses
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from tests.observe.standin import make_standin
from wslmcp import wiring
from wslmcp.boundaries.bundle import Boundaries, Host
from wslmcp.fakes.clock import FakeClock
from wslmcp.observe.assembly import build
from wslmcp.observe.options import Options

pytestmark = pytest.mark.skipif(
    not Path("/proc/stat").is_file(), reason="the stand-in reads a real Linux /proc"
)


def windows_host() -> tuple[Boundaries, Host]:
    """This machine's real boundaries on a virtual clock, as a server running on Windows sees it."""
    boundaries = dataclasses.replace(wiring.real(), clock=FakeClock(0.0))
    return boundaries, dataclasses.replace(wiring.real_host(), platform="windows")


async def test_additional_distro_is_sampled_over_stdio_in_one_call_per_sample(tmp_path: Path) -> None:
    standin = make_standin(tmp_path, ["Ubuntu", "Debian"])
    env = {**os.environ, **standin.env(), "WSL_DISTRO_NAME": "Ubuntu"}
    # the collection's own calls (the history sampler, off here, would add one per distro and sample)
    args = [
        "-m",
        "wslmcp",
        "observe",
        "--no-docker",
        "--no-wslc",
        "--interval-ms",
        "100",
        "--history-minutes",
        "0",
    ]
    params = StdioServerParameters(command=sys.executable, args=args, env=env)
    async with Client(params, read_timeout_seconds=30) as client:
        res = await client.call_tool("list_resources", {"max_age_ms": 0, "limit": 1000})
        body: dict[str, Any] = dict(res.structured_content or {})
    rows = body["data"]
    assert {r["usage"].get("source") for r in rows} == {None, "Debian"}  # Ubuntu itself is the local primary
    debian = [r for r in rows if r["usage"].get("source") == "Debian"]
    assert all(r["usage"]["environment"] == "wsl" for r in debian) and debian
    calls = standin.calls()
    assert calls.count("-d Debian --exec sh -s") == 2  # two samples, one call each
    assert calls.count("--list --running --quiet") == 2
    assert len(calls) == 4
    assert body["snapshot"]["cpu_scope"] == "wsl_visible"
    assert any("Windows host collection is not available" in w for w in body["snapshot"]["warnings"])


async def test_windows_native_primary_is_the_default_distro_and_not_listed_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    standin = make_standin(tmp_path, ["Ubuntu", "Debian"])
    for key, value in standin.env(default="Ubuntu").items():
        monkeypatch.setenv(key, value)
    boundaries, host = windows_host()
    service = build(boundaries, host, Options(interval_ms=100, docker=False, wslc=False))
    snap = await service.latest(0)
    sources = {e.json["usage"].get("source") for e in snap.catalog.entries}
    assert sources == {None, "Debian"}
    calls = standin.calls()
    assert calls.count("-d Ubuntu --exec sh -s") == 2 and calls.count("-d Debian --exec sh -s") == 2
    assert sum(c.startswith("--exec sh -c") for c in calls) == 1  # the default is looked up once
    cpus = sum(
        1 for line in Path("/proc/stat").read_text().splitlines() if line[:3] == "cpu" and line[3].isdigit()
    )
    assert snap.summary["host_logical_cpu_count"] == cpus  # counted from the primary's /proc/stat via wsl.exe


async def test_windows_native_with_distro_uses_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    standin = make_standin(tmp_path, ["Ubuntu", "Debian"])
    for key, value in standin.env().items():
        monkeypatch.setenv(key, value)
    boundaries, host = windows_host()
    options = Options(interval_ms=100, wsl_only=True, distro="Debian")
    snap = await build(boundaries, host, options).latest(0)
    assert {e.json["usage"].get("source") for e in snap.catalog.entries} == {None}
    assert standin.calls() == ["-d Debian --exec sh -s"] * 2  # --wsl-only: no listing, no other distro
