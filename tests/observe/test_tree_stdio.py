"""On this machine over real stdio: the process tree (a parent the test starts and the children it
runs), every process row's numeric CPU while processes start at every moment of the collection
window, and where processes work (no Windows drive here)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

pytestmark = pytest.mark.skipif(not Path("/proc/stat").is_file(), reason="needs a real Linux /proc")

ARGS = [
    "-m",
    "wslmcp",
    "observe",
    "--no-docker",
    "--no-wslc",
    "--interval-ms",
    "1000",
    "--history-minutes",
    "0",
]


def children_of(pid: int) -> list[int]:
    """The PIDs whose parent is ``pid`` (read from /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_bytes()
            except OSError:
                continue
            if int(stat[stat.rfind(b")") + 2 :].split()[1]) == pid:
                found.append(int(entry))
    return found


def body(result: Any) -> dict[str, Any]:
    assert result.is_error is not True, result.structured_content
    assert json.loads(result.content[0].text) == result.structured_content
    return dict(result.structured_content)


async def test_list_children_of_a_process_lists_what_it_runs(tmp_path: Path) -> None:
    parent = tmp_path / "wslmcpparent"
    parent.symlink_to("/bin/sh")
    proc = subprocess.Popen([str(parent), "-c", "sleep 30 & sleep 31 & wait"], cwd=tmp_path)
    try:
        async with Client(
            StdioServerParameters(command=sys.executable, args=ARGS), read_timeout_seconds=60
        ) as client:
            async with asyncio.timeout(60):  # until both children are running (a hang guard)
                while True:
                    found = body(
                        await client.call_tool(
                            "list_resources", {"max_age_ms": 0, "name_contains": "wslmcpparent"}
                        )
                    )
                    sid, rows = found["snapshot"]["snapshot_id"], found["data"]
                    kids = body(
                        await client.call_tool(
                            "list_children", {"snapshot_id": sid, "resource_id": rows[0]["resource_id"]}
                        )
                    )
                    if len(kids["data"]) == 2:
                        break
            assert rows[0]["usage"]["pid"] == proc.pid and rows[0]["usage"]["cwd_on_windows_drive"] is False
            assert {k["usage"]["name"] for k in kids["data"]} == {"sleep"}
            assert all(k["parent_ids"][-1] == rows[0]["resource_id"] for k in kids["data"])
            assert all(k["usage"]["ppid"] == proc.pid for k in kids["data"])
    finally:
        orphans = children_of(proc.pid)
        proc.kill()
        proc.wait()
        for pid in orphans:  # the sleeps the shell started, by their PIDs
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


async def test_every_process_row_has_a_cpu_figure_while_processes_start_throughout_the_window() -> None:
    """A spawner starts a short process every few milliseconds for the whole collection (1 s
    window): born before the opening sample, during the window, just before the closing read."""
    stop = threading.Event()
    started: list[subprocess.Popen[bytes]] = []

    def spawn() -> None:
        while not stop.is_set():
            started.append(subprocess.Popen(["sleep", "0.4"]))
            stop.wait(0.02)

    spawner = threading.Thread(target=spawn, daemon=True)
    try:
        async with Client(
            StdioServerParameters(command=sys.executable, args=ARGS), read_timeout_seconds=60
        ) as client:
            spawner.start()
            listed = body(
                await client.call_tool(
                    "list_resources", {"max_age_ms": 0, "limit": 1000, "environment": "wsl"}
                )
            )
            stop.set()
        rows = [r for r in listed["data"] if r["usage"]["kind"] in ("process", "infra")]
        sleeps = [r for r in rows if r["usage"]["name"] == "sleep"]
        assert len(sleeps) >= 5  # processes of every age were in the closing sample
        assert all(isinstance(r["usage"]["cpu_percent"], int | float) for r in rows), [
            r["usage"] for r in rows if not isinstance(r["usage"]["cpu_percent"], int | float)
        ]
        assert all(isinstance(r["cores_used"], int | float) for r in rows)
    finally:
        stop.set()
        spawner.join(10)
        for p in started:
            p.kill()
            p.wait()
