"""Querying configured servers: our bounded concurrent pool vs mcp-top 0.5.0's one-after-another.

The querying cost is isolated on both sides, in this one process:

* mcp-top: its whole run minus its ``--no-query`` run on the same home (both in-process ``main``);
* wslmcp: ``discover`` + ``query_all`` over the real launcher (the mcp SDK client), at the default
  pool size and, as an internal baseline, with a pool of one.

Homes: eight servers that each take 1 s before answering (target: ours <= 0.25x mcp-top's) and two
fast servers (target <= 1.2x). Servers are ``tests/servers/stdio_server.py`` (stdlib, 5 tools).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import tempfile
import time
from pathlib import Path

from tests.profile.homes import stdio_servers_home as _home


def _mcp_top(home: Path, *extra: str) -> float:
    from mcp_top.cli import main

    args = ["--home", str(home), "--project", str(home), "--json", "--timeout", "30", *extra]
    started = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        code = main(args)
    if code != 0:
        raise RuntimeError(f"mcp-top exited {code}")
    return time.perf_counter() - started


def _ours(home: Path, concurrency: int) -> float:
    from wslmcp.boundaries.client_files import LocalClientFiles
    from wslmcp.boundaries.mcp_stdio import SdkMcpLauncher
    from wslmcp.profile.configs import discover
    from wslmcp.profile.querying import query_all

    started = time.perf_counter()
    servers = discover(LocalClientFiles(), str(home), str(home), "all").servers()
    results = asyncio.run(query_all(SdkMcpLauncher(), servers, 30.0, concurrency=concurrency))
    elapsed = time.perf_counter() - started
    if not all(r.ok for r in results.values()):
        raise RuntimeError(f"a query failed: {[r.error for r in results.values() if not r.ok]}")
    return elapsed


def _case(label: str, home: Path, target: float, repeat: int) -> None:
    _ours(home, 8)  # warm-up: imports
    _mcp_top(home, "--no-query")
    # interleaved, so all three see the same load on a shared machine
    runs = [
        (_mcp_top(home) - _mcp_top(home, "--no-query"), _ours(home, 8), _ours(home, 1)) for _ in range(repeat)
    ]
    theirs, ours, serial = (min(r[i] for r in runs) for i in range(3))
    ratio = ours / theirs
    verdict = "ok" if ratio <= target else "MISSED"
    print(
        f"   {label}: querying wslmcp {ours * 1000:.0f} ms (pool 8), mcp-top {theirs * 1000:.0f} ms, ratio {ratio:.2f} "
        f"(target <= {target}) {verdict}"
    )
    print(
        f"   {label}: wslmcp with a pool of 1: {serial * 1000:.0f} ms "
        f"(concurrency saves {(serial - ours) * 1000:.0f} ms)"
    )


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        _case("8 servers x 1 s", _home(base, 8, 1.0), 0.25, repeat=1)
        _case("2 fast servers", _home(base, 2, 0.0), 1.2, repeat=3)


if __name__ == "__main__":
    main()
