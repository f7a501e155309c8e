"""Querying configured servers: our bounded concurrent pool vs mcp-top 0.5.0's one-after-another.

The querying cost is isolated on both sides, in this one process:

* mcp-top: its whole run minus its ``--no-query`` run on the same home (both in-process ``main``);
* wslmcp: ``discover`` + ``query_all`` over the real launcher (our own JSON-RPC client), at the default
  pool size and, as an internal baseline, with a pool of one.

Homes: eight servers that each take 1 s before answering (target: ours <= 0.25x mcp-top's) and two
fast servers (target <= 1.2x). Servers are ``tests/servers/stdio_server.py`` (stdlib, 5 tools).

Then whole runs in fresh processes, side by side (issue 13): ``python -m wslmcp profile --json``
against mcp-top's own command on the same homes, interpreter start and imports included (targets:
two fast servers <= 1.0x, eight 1-second servers <= 0.15x), both with bytecode as when installed.
"""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from tests.bench import installed_env
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
    from wslmcp.boundaries.mcp_stdio import StdioMcpLauncher
    from wslmcp.profile.configs import discover
    from wslmcp.profile.querying import query_all

    started = time.perf_counter()
    servers = discover(LocalClientFiles(), str(home), str(home), "all").servers()
    results = query_all(StdioMcpLauncher(), servers, 30.0, concurrency=concurrency)
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


_MCP_TOP = "import sys; from mcp_top.cli import main; sys.exit(main(sys.argv[1:]))"


def _fresh(argv: list[str], home: Path, env: dict[str, str]) -> float:
    """One whole run's wall time. Waited for with a blocking ``wait()``: a wait with a timeout
    polls, up to 50 ms apart, which would round every run up to its next poll."""
    args = ["--home", str(home), "--project", str(home), "--json", "--timeout", "30"]
    started = time.perf_counter()
    proc = subprocess.Popen([*argv, *args], stdout=subprocess.DEVNULL, env=env)
    guard = threading.Timer(120, proc.kill)
    guard.start()
    try:
        code = proc.wait()
    finally:
        guard.cancel()
    elapsed = time.perf_counter() - started
    if code != 0:
        raise RuntimeError(f"{argv[-1]} exited {code}")
    return elapsed


def _fresh_case(label: str, home: Path, target: float, repeat: int) -> None:
    ours_argv = [sys.executable, "-m", "wslmcp", "profile"]
    theirs_argv = [sys.executable, "-c", _MCP_TOP]
    env = installed_env(home.parent / "pycache")
    env["WSLMCP_CACHE_DIR"] = str(home.parent / "wslmcp-cache")  # token ranks, as a second run has them
    _fresh(ours_argv, home, env)  # bytecode, and a warm page cache for both
    _fresh(theirs_argv, home, env)
    runs = [(_fresh(ours_argv, home, env), _fresh(theirs_argv, home, env)) for _ in range(repeat)]
    ours, theirs = (min(r[i] for r in runs) for i in range(2))
    ratio = ours / theirs
    verdict = "ok" if ratio <= target else "MISSED"
    print(
        f"   {label}: fresh process wslmcp profile {ours * 1000:.0f} ms, mcp-top {theirs * 1000:.0f} ms, "
        f"ratio {ratio:.2f} (target <= {target}) {verdict}"
    )


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        slow, fast = _home(base, 8, 1.0), _home(base, 2, 0.0)
        _case("8 servers x 1 s", slow, 0.25, repeat=1)
        _case("2 fast servers", fast, 1.2, repeat=3)
        _fresh_case("8 servers x 1 s", slow, 0.15, repeat=3)
        _fresh_case("2 fast servers", fast, 1.0, repeat=5)


if __name__ == "__main__":
    main()
