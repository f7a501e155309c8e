"""Observe under load over real stdio: pinned-read latency (``list_resources`` on one snapshot_id,
no collection) p50/p99 for one request at a time (the baseline), 300 pipelined requests on one
server, and 300 pipelined requests on each of 8 servers at once. Latency is from the write of the
burst to each answer's arrival, so a pipelined request also waits for those ahead of it.

Numbers are printed with ratios against the baseline run in the same process; nothing is asserted.
"""

from __future__ import annotations

import statistics
import sys
import threading
import time

from tests.faults.rig import Server

ARGS = [
    sys.executable,
    "-m",
    "wslmcp",
    "observe",
    "--wsl-only",
    "--no-docker",
    "--no-wslc",
    "--interval-ms",
    "100",
]
PIPELINED, SERVERS, SEQUENTIAL = 300, 8, 50


def _pinned(server: Server, request_id: object, snapshot: str) -> dict[str, object]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": "list_resources", "arguments": {"snapshot_id": snapshot, "limit": 50}},
    }


def _started() -> tuple[Server, str]:
    server = Server(ARGS)
    server.handshake()
    server.send(
        {
            "jsonrpc": "2.0",
            "id": "first",
            "method": "tools/call",
            "params": {"name": "list_resources", "arguments": {"max_age_ms": 0}},
        }
    )
    snapshot = server.wait_for("first", timeout=60)["result"]["structuredContent"]["snapshot"]["snapshot_id"]
    return server, str(snapshot)


def _quantiles(latencies: list[float]) -> tuple[float, float]:
    ordered = sorted(latencies)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def sequential(server: Server, snapshot: str) -> list[float]:
    out = []
    for i in range(SEQUENTIAL):
        server.send(_pinned(server, f"seq-{i}", snapshot))
        started = time.perf_counter()
        server.wait_for(f"seq-{i}")
        out.append(server.arrival(f"seq-{i}") - started)
    return out


def pipelined(server: Server, snapshot: str, tag: str) -> list[float]:
    ids = [f"{tag}-{i}" for i in range(PIPELINED)]
    burst = b"\n".join(Server.encode(_pinned(server, rid, snapshot)) for rid in ids)
    started = time.perf_counter()
    server.send_line(burst)
    for rid in ids:
        server.wait_for(rid, timeout=120)
    return [server.arrival(rid) - started for rid in ids]


def main() -> None:
    servers = [_started() for _ in range(SERVERS)]
    try:
        base = _quantiles(sequential(*servers[0]))
        one = _quantiles(pipelined(*servers[0], "one"))
        results: list[list[float]] = [[] for _ in servers]

        def run(k: int) -> None:
            results[k] = pipelined(*servers[k], f"many{k}")

        threads = [threading.Thread(target=run, args=(k,)) for k in range(SERVERS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        many = _quantiles([x for r in results for x in r])
        errors = sum(1 for s, _ in servers for m in s.lines if isinstance(m, dict) and "error" in m)
    finally:
        for server, _ in servers:
            server.close()
    print(
        f"pinned read, one at a time ({SEQUENTIAL}):    p50 {base[0] * 1000:7.2f} ms  p99 {base[1] * 1000:7.2f} ms  (baseline)"
    )
    print(
        f"{PIPELINED} pipelined, one server:          p50 {one[0] * 1000:7.2f} ms  p99 {one[1] * 1000:7.2f} ms  "
        f"(p50 x{one[0] / base[0]:.1f}, p99 x{one[1] / base[1]:.1f} of baseline)"
    )
    print(
        f"{PIPELINED} pipelined x {SERVERS} servers at once: p50 {many[0] * 1000:7.2f} ms  p99 {many[1] * 1000:7.2f} ms  "
        f"(p50 x{many[0] / base[0]:.1f}, p99 x{many[1] / base[1]:.1f} of baseline); error answers: {errors}"
    )


if __name__ == "__main__":
    main()
