"""The workbench tools (local transport, real bash, in process), each beside its baseline measured
in the same run, rounds interleaved so machine load hits both alike:

1. wsl_start of `echo` until its output is there (it returns on the exit right after) vs wsl_exec
   of the same command (target: <= 1.2x);
2. wsl_read_output with the output already there (target: p50 <= 5 ms);
3. wsl_edit_file of one line in a 10,000-line file beside wsl_read_file of that file: of a file the
   server read (or edited) before, and of one it did not (informational since reads and edits run in
   process on the local transport: a read is a fraction of a millisecond and an edit is mostly its
   text work, the diff and two SHA-256; the edit's target is now beside the MCP filesystem
   server's edit, in ``bench_peers``);
4. wsl_search over a 5,000-file tree vs a raw `rg -n` (or `grep -rn`) of the same pattern
   (target: <= 1.3x).
"""

from __future__ import annotations

import asyncio
import shutil
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from tests.shell.conftest import build
from wslmcp.boundaries.clock import SystemClock
from wslmcp.shell import results
from wslmcp.shell.edits import Edit

ROUNDS = 30
READS = 200


async def _timed(work: Callable[[], Awaitable[object]]) -> float:
    started = time.perf_counter()
    await work()
    return time.perf_counter() - started


def _line(name: str, got: list[float], base_name: str, base: list[float], target: float | None) -> None:
    g, b = statistics.median(got) * 1000, statistics.median(base) * 1000
    ratio = g / b
    print(f"   {name}: p50 {g:.1f} ms   {base_name}: p50 {b:.1f} ms   ({len(got)} rounds, interleaved)")
    if target is None:
        print(f"   ratio {ratio:.2f}x (no target here: see bench_peers)")
        return
    print(f"   ratio {ratio:.2f}x; target <= {target}x -> {'MET' if ratio <= target else 'MISSED'}")


async def _start_vs_exec(tmp: Path) -> None:
    b = build(clock=SystemClock())
    start, execs = [], []
    for i in range(ROUNDS + 3):
        s = await _timed(lambda: b.raw.start("echo hi", cwd=str(tmp), wait_ms=30_000))
        e = await _timed(lambda: b.raw.exec("echo hi", cwd=str(tmp)))
        if i >= 3:  # warm-up rounds are not counted
            start.append(s)
            execs.append(e)
        await b.raw.list_processes()  # each is read to its end by its start: listing forgets it
    await b.raw.shutdown()
    _line("wsl_start `echo hi` until its output", start, "wsl_exec `echo hi`", execs, 1.2)


async def _read_output(tmp: Path) -> None:
    b = build(clock=SystemClock())
    await b.raw.start("seq 1 3000", cwd=str(tmp), wait_ms=30_000)  # ~14 KB of output, ended
    reads = [await _timed(lambda: b.raw.read_output("Ubuntu#p1", offset=0)) for _ in range(READS)]
    await b.raw.shutdown()
    p50 = statistics.median(reads) * 1000
    print(
        f"   wsl_read_output of 14 KB already there: p50 {p50:.2f} ms, p99 "
        f"{statistics.quantiles(reads, n=100)[98] * 1000:.2f} ms ({READS} reads); target p50 <= 5 ms -> "
        f"{'MET' if p50 <= 5 else 'MISSED'}"
    )


async def _edit_vs_read(tmp: Path) -> None:
    text = "".join(f"value_{i} = {i}  # line {i}\n" for i in range(10_000))
    target = tmp / "big.py"
    target.write_text(text)
    unread = [tmp / f"unread-{i}.py" for i in range(ROUNDS + 3)]  # edited once each, never read
    for path in unread:
        path.write_text(text)
    b = build({"WSL_MAX_READ_BYTES": str(1 << 20)}, clock=SystemClock())  # the file is ~290 KB
    edits, cold, reads = [], [], []
    for i in range(ROUNDS + 3):
        old, new = ("value_5000 = 5000 ", "value_5000 = -5000 ")
        started = time.perf_counter()
        edited = await b.raw.edit_file(str(target), [Edit(old, new) if i % 2 == 0 else Edit(new, old)])
        e = time.perf_counter() - started
        assert isinstance(edited, results.Edited), edited
        started = time.perf_counter()
        edited = await b.raw.edit_file(str(unread[i]), [Edit(old, new)])
        c = time.perf_counter() - started
        assert isinstance(edited, results.Edited), edited
        started = time.perf_counter()
        read = await b.raw.read_file(str(target))
        r = time.perf_counter() - started
        assert isinstance(read, results.FileRead) and not read.result.truncated
        if i >= 3:
            edits.append(e)
            cold.append(c)
            reads.append(r)
    _line(
        "wsl_edit_file of one line in 10,000 lines, read before",
        edits,
        "wsl_read_file of the file",
        reads,
        None,
    )
    _line("the same edit of a file not read before", cold, "wsl_read_file of the file", reads, None)


def _tree(root: Path) -> None:
    for i in range(5000):
        d = root / f"d{i % 50}" / f"e{i % 7}"
        d.mkdir(parents=True, exist_ok=True)
        (d / f"f{i}.py").write_text(
            "".join(f"def func_{i}_{j}(x):\n    return x + {j}  # needle{j % 13}\n" for j in range(20))
        )


async def _search_vs_raw(tmp: Path) -> None:
    root = tmp / "tree"
    _tree(root)
    engine = ["rg", "-n"] if shutil.which("rg") else ["grep", "-rn"]
    b = build(clock=SystemClock())
    searches, raws = [], []

    async def raw() -> None:
        proc = await asyncio.create_subprocess_exec(
            *engine, "needle7", str(root), stdout=asyncio.subprocess.PIPE, stdin=asyncio.subprocess.DEVNULL
        )
        await proc.communicate()

    found = await b.raw.search("needle7", str(root), max_results=1000)
    assert isinstance(found, results.Searched) and len(found.matches) == 1000, found
    for i in range(ROUNDS + 3):
        s = await _timed(lambda: b.raw.search("needle7", str(root), max_results=1000))
        r = await _timed(raw)
        if i >= 3:
            searches.append(s)
            raws.append(r)
    _line(
        f"wsl_search over 5,000 files (the first 1000 of {found.found:,} matches)",
        searches,
        f"raw `{' '.join(engine)}`",
        raws,
        1.3,
    )


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="workbench-bench-") as tmp:
        for bench in (_start_vs_exec, _read_output, _edit_vs_read, _search_vs_raw):
            asyncio.run(bench(Path(tmp)))


if __name__ == "__main__":
    main()
