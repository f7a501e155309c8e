"""Shell server benchmarks (local transport, real bash), each against a baseline in the same run:

1. one wsl_exec of `true` over stdio vs a raw `bash -lc true` spawn (target: <= 1.3x + 5 ms);
2. 32 concurrent wsl_exec calls over stdio vs 32 concurrent raw spawns;
3. 64 MiB wsl_upload / wsl_download throughput vs a local file copy, with peak RSS growth;
4. a 31 MB long output through wsl_exec (head and tail kept) vs a raw spawn reading it whole.
"""

from __future__ import annotations

import asyncio
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from mcp import Client, StdioServerParameters

from tests.shell.conftest import build

ROUNDS = 60
SIZE = 64 * 1024 * 1024


async def _raw_spawn() -> float:
    started = time.perf_counter()
    proc = await asyncio.create_subprocess_exec(
        "bash", "-lc", "true", stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE
    )
    await proc.communicate()
    return time.perf_counter() - started


def _p99(seconds: list[float]) -> float:
    return statistics.quantiles(seconds, n=100, method="inclusive")[98] * 1000


async def _latency_and_concurrency() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WSL_")}
    env.update(WSL_DISTRO="Ubuntu", WSLMCP_SHELL_TRANSPORT="local", WSL_MCP_LOG_LEVEL="silent")
    params = StdioServerParameters(command=sys.executable, args=["-m", "wslmcp", "shell"], env=env)
    async with Client(params) as client:
        for _ in range(3):
            await client.call_tool("wsl_exec", {"command": "true"})
            await _raw_spawn()
        tool, raw = [], []
        for _ in range(ROUNDS):  # interleaved, so machine load hits both alike
            started = time.perf_counter()
            result = await client.call_tool("wsl_exec", {"command": "true"})
            tool.append(time.perf_counter() - started)
            assert not result.is_error
            raw.append(await _raw_spawn())
        t, r = statistics.median(tool) * 1000, statistics.median(raw) * 1000
        target = 1.3 * r + 5
        print(
            f"   sequential wsl_exec `true` over stdio: p50 {t:.1f} ms, p99 {_p99(tool):.1f} ms   "
            f"raw `bash -lc true`: p50 {r:.1f} ms, p99 {_p99(raw):.1f} ms ({ROUNDS} rounds, interleaved)"
        )
        print(
            f"   ratio {t / r:.2f}x; target <= 1.3x + 5 ms = {target:.1f} ms -> {'MET' if t <= target else 'MISSED'}"
        )

        started = time.perf_counter()
        results = await asyncio.gather(
            *(client.call_tool("wsl_exec", {"command": "true"}) for _ in range(32))
        )
        tool_wall = time.perf_counter() - started
        assert not any(r.is_error for r in results)
        started = time.perf_counter()
        await asyncio.gather(*(_raw_spawn() for _ in range(32)))
        raw_wall = time.perf_counter() - started
        print(
            f"   32 concurrent wsl_exec: {tool_wall * 1000:.0f} ms wall   32 concurrent raw spawns: "
            f"{raw_wall * 1000:.0f} ms   ratio {tool_wall / raw_wall:.2f}x"
        )


def _rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def _transfers(tmp: Path) -> None:
    src = tmp / "src.bin"
    with open(src, "wb") as f:
        for _ in range(SIZE // (1 << 20)):
            f.write(os.urandom(1 << 20))
    started = time.perf_counter()
    shutil.copyfile(src, tmp / "baseline.bin")
    copy_s = time.perf_counter() - started
    b = build()
    rss_before = _rss_mib()
    started = time.perf_counter()
    up = await b.service.upload(str(src), str(tmp / "remote.bin"))
    up_s = time.perf_counter() - started
    assert not up.is_error, up.text
    started = time.perf_counter()
    down = await b.service.download(str(tmp / "remote.bin"), str(tmp / "back.bin"))
    down_s = time.perf_counter() - started
    assert not down.is_error, down.text
    assert (tmp / "back.bin").stat().st_size == SIZE
    mib = SIZE / (1 << 20)
    print(f"   local copy baseline: {mib / copy_s:.0f} MiB/s")
    print(
        f"   wsl_upload 64 MiB:   {mib / up_s:.0f} MiB/s ({up_s:.2f} s, {copy_s and up_s / copy_s:.1f}x the copy)"
    )
    print(
        f"   wsl_download 64 MiB: {mib / down_s:.0f} MiB/s ({down_s:.2f} s, {down_s / copy_s:.1f}x the copy)"
    )
    print(
        f"   peak RSS growth during both transfers: {_rss_mib() - rss_before:.0f} MiB (file: {mib:.0f} MiB)"
    )


LONG = "seq 1 4000000"  # 31 MB of lines: long output, kept head and tail


async def _long_output(tmp: Path) -> None:
    """wsl_exec of a command writing 31 MB (its head and tail kept, every line counted) vs the same
    command's output read whole by a raw spawn; peak RSS growth while it runs."""
    b = build()
    started = time.perf_counter()
    proc = await asyncio.create_subprocess_exec("bash", "-lc", LONG, stdout=asyncio.subprocess.PIPE)
    raw, _ = await proc.communicate()
    raw_s = time.perf_counter() - started
    rss_before = _rss_mib()
    started = time.perf_counter()
    ran = await b.service.exec(LONG, cwd=str(tmp))
    tool_s = time.perf_counter() - started
    assert not ran.is_error and ran.structured["exitCode"] == 0, ran.text[:300]
    print(
        f"   wsl_exec `{LONG}` ({len(raw) >> 20} MiB, head and tail kept): {tool_s * 1000:.0f} ms   "
        f"raw spawn reading it whole: {raw_s * 1000:.0f} ms ({tool_s / raw_s:.1f}x); "
        f"peak RSS growth {_rss_mib() - rss_before:.0f} MiB"
    )


def main() -> None:
    asyncio.run(_latency_and_concurrency())
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(_transfers(Path(tmp)))
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(_long_output(Path(tmp)))


if __name__ == "__main__":
    main()
