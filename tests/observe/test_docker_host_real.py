"""End to end on Linux: `wslmcp observe` over real stdio with ``DOCKER_HOST=unix://…`` pointing at
the Engine stand-in (real adapter, real socket): containers, their children, docker's CPU and
memory, resource IDs that differ between two servers, and null plus a warning for each fault."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from tests.observe.engine_answers import cid, item, listing, stats, stats_item, top, top_item
from tests.standins.engine import engine_in_thread
from wslmcp.observe.procstat import count_cpus

pytestmark = pytest.mark.skipif(not Path("/proc/stat").is_file(), reason="needs a real Linux /proc")
S = 1_000_000_000
CPUS = count_cpus(Path("/proc/stat").read_bytes()) if Path("/proc/stat").is_file() else 1


def good() -> list[dict[str, Any]]:
    return [
        item("/containers/json", listing("web", "db")),
        # the first collection's baseline, then its closing sample: web used 1 of the daemon's 8
        # CPUs over 8 s of system time = 1 core; db nothing
        stats_item(0, stats("web", 0, (9 * S, 100 * S), (8 * S, 92 * S))),
        stats_item(0, stats("web", 0, (10 * S, 108 * S), (9 * S, 100 * S))),
        stats_item(1, stats("db", 1, (S, 100 * S), (S, 92 * S), v1=True)),
        stats_item(1, stats("db", 1, (S, 108 * S), (S, 100 * S), v1=True)),
        top_item(0, top((100, 1, 4096, "00:00:09", "nginx", "nginx: worker process  --x"))),
        top_item(1, top((200, 1, 8192, "00:00:01", "postgres", "postgres -D /data"))),
    ]


@pytest.fixture
def sock_dir() -> Iterator[Path]:
    import tempfile

    with tempfile.TemporaryDirectory(dir="/tmp") as tmp:  # short path: unix sockets allow ~108 bytes
        yield Path(tmp)


def params(url: str) -> StdioServerParameters:
    env = {**os.environ, "DOCKER_HOST": url}
    args = ["-m", "wslmcp", "observe", "--no-wslc", "--interval-ms", "200"]
    return StdioServerParameters(command=sys.executable, args=args, env=env)


async def call(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    res = await client.call_tool(tool, args)
    assert res.is_error is not True, res.structured_content
    return dict(res.structured_content or {})


async def test_containers_children_cpu_and_memory_through_docker_host(sock_dir: Path) -> None:
    with engine_in_thread(sock_dir / "e.sock", good()) as engine:
        async with Client(params(engine.url), read_timeout_seconds=30) as client:
            summary = await call(client, "get_system_summary", {"max_age_ms": 0})
            sid = summary["snapshot"]["snapshot_id"]
            docker = summary["data"]["environments"]["docker"]
            assert docker["cpu_percent"] == pytest.approx(100.0 / CPUS)  # one core on this host's scale
            assert docker["memory_bytes"] == 2 * (40 << 20)  # v2 and v1: usage minus inactive file
            rows = (await call(client, "list_resources", {"snapshot_id": sid, "resource_kind": "container"}))[
                "data"
            ]
            assert [r["usage"]["name"] for r in rows] == ["web", "db"]
            assert rows[0]["usage"]["id"] == cid(0) and rows[0]["cores_used"] == pytest.approx(1.0)
            kids = (
                await call(
                    client, "list_children", {"snapshot_id": sid, "resource_id": rows[0]["resource_id"]}
                )
            )["data"]
            assert [k["usage"]["args"] for k in kids] == ["nginx: worker process  --x"]
            assert kids[0]["usage"]["id"] == f"{cid(0)}:100" and kids[0]["parent_ids"] == [
                rows[0]["resource_id"]
            ]
            async with Client(params(engine.url), read_timeout_seconds=30) as other:
                theirs = await call(other, "list_resources", {"max_age_ms": 0, "resource_kind": "container"})
            assert not {r["resource_id"] for r in rows} & {r["resource_id"] for r in theirs["data"]}


@pytest.mark.parametrize(
    ("answers", "reason"),
    [
        ([item("/containers/json", {"message": "Internal Server Error"}, status=500)], "HTTP 500"),
        ([{"path": "/containers/json", "error": "timeout", "message": "hang"}], "did not answer"),
        ([{"path": "/containers/json", "error": "bad_answer", "message": "garbage"}], "cannot be used"),
    ],
)
async def test_each_fault_is_null_plus_a_warning_and_the_rest_stays_valid(
    sock_dir: Path, answers: list[dict[str, Any]], reason: str
) -> None:
    with engine_in_thread(sock_dir / "e.sock", answers) as engine:
        async with Client(params(engine.url), read_timeout_seconds=60) as client:
            summary = await call(client, "get_system_summary", {"max_age_ms": 0})
    data, warnings = summary["data"], summary["snapshot"]["warnings"]
    assert data["environments"]["docker"] is None and data["environments"]["wsl"] is not None
    assert data["cpu_overlap_unresolved"] is True
    assert any(w.startswith("Docker:") and reason in w for w in warnings), warnings


async def test_no_daemon_is_absent_not_zero(sock_dir: Path) -> None:
    async with Client(params(f"unix://{sock_dir}/nothing.sock"), read_timeout_seconds=30) as client:
        summary = await call(client, "get_system_summary", {"max_age_ms": 0})
    assert summary["data"]["environments"]["docker"] is None
    assert summary["data"]["cpu_overlap_unresolved"] is False
    assert any("no Docker daemon" in w for w in summary["snapshot"]["warnings"])
