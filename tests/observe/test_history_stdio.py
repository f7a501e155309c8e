"""History end to end on this machine: `wslmcp observe` over real stdio, sampling the real /proc in
the background, while the test starts real CPU burners, a memory ballast and short-lived processes
that end before the question is asked. Each runs under a name of its own (a symlink to the
interpreter: the kernel's comm is the name it was started by). Nothing here times anything: the
test waits, with a hang guard, until the server has sampled what it is asked about."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

pytestmark = pytest.mark.skipif(not Path("/proc/stat").is_file(), reason="needs a real Linux /proc")

ARGS = ["-m", "wslmcp", "observe", "--no-docker", "--no-wslc", "--history-interval-ms", "500"]
BURN = "import sys, time\nend = time.time() + float(sys.argv[1])\nwhile time.time() < end: pass\n"
HOLD = "import sys, time\nb = bytearray(int(sys.argv[1]) << 20)\nb[::4096] = b'x' * len(b[::4096])\ntime.sleep(120)\n"
BALLAST_MIB = 256


@contextmanager
def named(
    tmp_path: Path, name: str, code: str, *args: str, stdout: int | None = None
) -> Iterator[subprocess.Popen[bytes]]:
    """A Python process whose kernel name is ``name`` (started through a symlink so named)."""
    link = tmp_path / name
    if not link.exists():
        link.symlink_to(os.path.realpath(sys.executable))
    proc = subprocess.Popen([str(link), "-c", code, *args], stdout=stdout)
    try:
        yield proc
    finally:
        proc.kill()
        proc.wait()


def body(result: Any) -> dict[str, Any]:
    assert result.is_error is not True, result.structured_content
    assert json.loads(result.content[0].text) == result.structured_content
    return dict(result.structured_content)


async def until(client: Client, args: dict[str, Any], found: Any, guard_s: float = 60.0) -> dict[str, Any]:
    """Ask get_history until ``found(answer)`` (a hang guard, not a timing assertion)."""
    async with asyncio.timeout(guard_s):
        while True:
            got = body(await client.call_tool("get_history", args))
            if found(got):
                return got
            await asyncio.sleep(0.5)


def entry(got: dict[str, Any], name: str) -> dict[str, Any] | None:
    return next((e for e in got["top"] if e["name"] == name), None)


async def test_burners_ballast_and_ended_processes_are_in_the_history(tmp_path: Path) -> None:
    params = StdioServerParameters(command=sys.executable, args=ARGS)
    async with Client(params, read_timeout_seconds=60) as client:
        with named(tmp_path, "wslmcpburn", BURN, "2.5") as burner:
            await asyncio.to_thread(burner.wait)  # it ends before the question
        for _ in range(3):  # short-lived processes, each one gone before the question
            with named(tmp_path, "wslmcpshort", BURN, "1.2") as short:
                await asyncio.to_thread(short.wait)
        with named(tmp_path, "wslmcpballast", HOLD, str(BALLAST_MIB)) as ballast:
            by_cpu = await until(
                client,
                {"window_s": 120, "top": 50},
                lambda g: all(
                    (e := entry(g, name)) is not None and not e["alive"]
                    for name in ("wslmcpburn", "wslmcpshort")
                ),  # sampled after they ended
            )
            burn = entry(by_cpu, "wslmcpburn")
            assert burn is not None and burn["cpu_seconds"] > 0 and burn["alive"] is False
            assert burn["kind"] == "application" and burn["environment"] == "wsl"
            assert burn["last_seen_s_ago"] >= 0 and burn["first_seen_s_ago"] >= burn["last_seen_s_ago"]
            short = entry(by_cpu, "wslmcpshort")
            assert short is not None and short["alive"] is False
            by_memory = await until(
                client,
                {"by": "memory", "resource_kind": "process", "top": 50},
                lambda g: (
                    (e := entry(g, "wslmcpballast")) is not None
                    and e["peak_memory_bytes"] >= BALLAST_MIB << 20
                ),
            )
            held = entry(by_memory, "wslmcpballast")
            assert held is not None and held["alive"] is True and held["pid"] == ballast.pid
            inspected = body(
                await client.call_tool(
                    "inspect_resource",
                    {"snapshot_id": by_memory["snapshot_id"], "resource_id": held["resource_id"]},
                )
            )
            assert inspected["data"]["usage"]["pid"] == ballast.pid
        history = by_cpu["history"]
        assert (
            history["samples"] > 0
            and history["interval_ms"] == 500
            and history["before_server_start"] is True
        )
        assert by_cpu["usage"]["wsl"]["cpu_percent"]["max"] > 0
        assert len(json.dumps(body(await client.call_tool("get_history", {})), separators=(",", ":"))) < 3000


SPAWN = (
    "import os, resource, subprocess, sys, time\n"
    "for _ in range(int(sys.argv[2])):\n"
    "    subprocess.run([sys.argv[1], '-c', sys.argv[3], '0.05'], check=True)\n"
    "used = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "print(used.ru_utime + used.ru_stime, flush=True)\n"
    "time.sleep(120)\n"
)


async def test_children_too_short_lived_to_sample_are_charged_to_their_parent(tmp_path: Path) -> None:
    """A parent (wslmcpspawner) runs many children (wslmcpchild) one after another, each living far
    less than the 500 ms interval: most begin and end between two samples. What the history shows
    of them, as the children themselves or as the parent's exited children, adds up to the CPU the
    parent's own accounting says its children used, without counting any of it twice."""
    link = tmp_path / "wslmcpchild"
    link.symlink_to(os.path.realpath(sys.executable))
    params = StdioServerParameters(command=sys.executable, args=ARGS)
    async with Client(params, read_timeout_seconds=60) as client:
        with named(
            tmp_path, "wslmcpspawner", SPAWN, str(link), "30", BURN, stdout=subprocess.PIPE
        ) as spawner:
            assert spawner.stdout is not None
            used = float(await asyncio.to_thread(spawner.stdout.readline))  # its children's CPU seconds

            def seen(got: dict[str, Any]) -> float:
                return sum(
                    e["cpu_seconds"]
                    for e in got["top"]
                    if e["name"] == "wslmcpchild"
                    or (e["name"] == "wslmcpspawner" and e["kind"] == "exited_children")
                )

            got = await until(client, {"window_s": 120, "top": 50}, lambda g: seen(g) >= 0.9 * used)
            assert seen(got) <= used * 1.1 + 0.2, (used, got["top"])
            children = [
                e for e in got["top"] if e["name"] == "wslmcpspawner" and e["kind"] == "exited_children"
            ]
            assert [e["alive"] for e in children] == [False]  # they ended; the spawner itself still runs
            by_process = body(
                await client.call_tool(
                    "get_history", {"window_s": 120, "top": 50, "resource_kind": "process"}
                )
            )
            assert any(
                e["kind"] == "exited_children" and e.get("pid") == spawner.pid for e in by_process["top"]
            )


async def test_a_metric_series_and_the_pressure_figures_of_this_machine() -> None:
    params = StdioServerParameters(command=sys.executable, args=ARGS)
    async with Client(params, read_timeout_seconds=60) as client:
        await until(client, {}, lambda g: g["history"]["samples"] >= 4)
        series = body(
            await client.call_tool(
                "get_metric_series", {"metric": "memory.linux_available_bytes", "window_s": 10, "points": 5}
            )
        )
        assert series["unit"] == "bytes" and len(series["values"]) == 5 and series["step_ms"] == 2000
        assert any(isinstance(v, int | float) and v > 0 for v in series["values"])
        summary = body(await client.call_tool("get_system_summary", {"max_age_ms": 0}))["data"]
        memory = summary["pressure"]["memory"]
        assert (
            memory["linux_available_bytes"] > 0
            and memory["linux_total_bytes"] >= memory["linux_available_bytes"]
        )
        psi = Path("/proc/pressure/memory").is_file()
        assert (memory["psi_some_avg10"] is not None) == psi
        assert summary["pressure"]["cpu"]["procs_blocked"] is not None
        assert memory["windows_committed_bytes"] is None  # no Windows side here, and a warning says so
        assert any("read only by a server running on Windows" in w for w in summary["pressure"]["warnings"])
        unknown = await client.call_tool("get_metric_series", {"metric": "host.cpu"})
        assert unknown.is_error is True and unknown.structured_content["error"]["code"] == "unknown_metric"


async def test_with_history_off_both_history_tools_say_so() -> None:
    params = StdioServerParameters(command=sys.executable, args=[*ARGS, "--history-minutes", "0"])
    async with Client(params, read_timeout_seconds=60) as client:
        history = body(await client.call_tool("get_history", {}))
        series = body(await client.call_tool("get_metric_series", {"metric": "wsl.cpu_percent", "points": 4}))
    off = "history is off (--history-minutes 0)"
    assert history["history"]["why_empty"] == off
    assert series["why_empty"] == off and series["values"] == [None] * 4
