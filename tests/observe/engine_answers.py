"""Engine API answers in the shapes dockerd 20.10 (cgroup v1) and 29 (cgroup v2) send, for the
recorded twin (``wslmcp.fakes.docker_api``) to serve in tests and hand-written scenarios."""

from __future__ import annotations

from typing import Any

HEX = "0123456789abcdef"


def cid(n: int) -> str:
    return (HEX[n % 16] * 4 + "c0ffee" + str(n)).ljust(64, "0")[:64]


def listing(*names: str) -> list[dict[str, Any]]:
    return [
        {
            "Id": cid(i),
            "Names": [f"/{n}"],
            "Image": "local/busybox:1",
            "Command": f"/bin/{n} --serve",
            "Created": 1_794_990_000,
            "State": "running",
            "Status": "Up 2 hours",
        }
        for i, n in enumerate(names)
    ]


def cpu_stats(usage_ns: int, system_ns: int, online: int = 8) -> dict[str, Any]:
    return {
        "cpu_usage": {
            "total_usage": usage_ns,
            "usage_in_kernelmode": usage_ns // 10,
            "usage_in_usermode": usage_ns - usage_ns // 10,
        },
        "system_cpu_usage": system_ns,
        "online_cpus": online,
        "throttling_data": {"periods": 0, "throttled_periods": 0, "throttled_time": 0},
    }


def stats(
    name: str,
    n: int,
    cpu: tuple[int, int],
    pre: tuple[int, int] | None,
    *,
    online: int = 8,
    usage: int = 50 << 20,
    inactive: int = 10 << 20,
    v1: bool = False,
) -> dict[str, Any]:
    mem_stats: dict[str, int] = (
        {"total_inactive_file": inactive, "inactive_file": inactive, "cache": inactive * 2}
        if v1
        else {"inactive_file": inactive, "active_file": 1 << 20, "anon": usage - inactive}
    )
    return {
        "name": f"/{name}",
        "id": cid(n),
        "read": "2026-12-01T09:00:03.000000000Z",
        "preread": "2026-12-01T09:00:02.000000000Z" if pre else "0001-01-01T00:00:00Z",
        "pids_stats": {"current": 3, "limit": 18446744073709551615},
        "num_procs": 0,
        "cpu_stats": cpu_stats(*cpu, online=online),
        "precpu_stats": cpu_stats(*pre, online=online)
        if pre
        else {
            "cpu_usage": {"total_usage": 0, "usage_in_kernelmode": 0, "usage_in_usermode": 0},
            "throttling_data": {"periods": 0, "throttled_periods": 0, "throttled_time": 0},
        },
        "memory_stats": {"usage": usage, "stats": mem_stats, "limit": 16 << 30},
        "networks": {
            "eth0": {
                "rx_bytes": 1,
                "rx_packets": 1,
                "rx_errors": 0,
                "rx_dropped": 0,
                "tx_bytes": 1,
                "tx_packets": 1,
                "tx_errors": 0,
                "tx_dropped": 0,
            }
        },
    }


def top(*procs: tuple[int, int, int, str, str, str]) -> dict[str, Any]:
    """``-eo pid,ppid,rss,time,comm,args`` rows: (pid, ppid, rss KiB, TIME, comm, args)."""
    return {
        "Titles": ["PID", "PPID", "RSS", "TIME", "COMMAND", "COMMAND"],
        "Processes": [[str(p), str(pp), str(rss), t, comm, args] for p, pp, rss, t, comm, args in procs],
    }


def item(
    path: str, body: Any, *, query: dict[str, str] | None = None, status: int = 200, duration_ms: int = 5
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "path": path,
        "status": status,
        "api_version": "1.41",
        "json": body,
        "duration_ms": duration_ms,
    }
    if query:
        out["query"] = query
    return out


def stats_item(n: int, body: Any, status: int = 200, duration_ms: int = 5) -> dict[str, Any]:
    return item(
        f"/containers/{cid(n)}/stats", body, query={"stream": "false"}, status=status, duration_ms=duration_ms
    )


def top_item(n: int, body: Any, status: int = 200) -> dict[str, Any]:
    from wslmcp.observe.docker import TOP_ARGS

    return item(f"/containers/{cid(n)}/top", body, query={"ps_args": TOP_ARGS}, status=status)
