"""Guard screening speed on the corpus: commands per second and per-command latency (p50/p99/max).

Baseline, measured in the same process: ``shlex.split`` of the same commands, the cost of merely
tokenising them with the standard library. Target from the issue: p99 <= 1 ms per command.
"""

from __future__ import annotations

import contextlib
import shlex
import statistics
import time

from tests.guard.corpus import load
from wslmcp.shell.guard import Guard

ROUNDS = 20
TARGET_P99_MS = 1.0


def _percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    cases = [c for c in load() if c.check == "command"]
    guards = {id(c): Guard(c.policy) for c in cases}
    for c in cases:  # warm up imports and caches
        guards[id(c)].check_command(c.text, c.cwd)

    latencies: list[float] = []
    started = time.perf_counter()
    for _ in range(ROUNDS):
        for c in cases:
            t0 = time.perf_counter_ns()
            guards[id(c)].check_command(c.text, c.cwd)
            latencies.append((time.perf_counter_ns() - t0) / 1e6)
    guard_s = time.perf_counter() - started

    started = time.perf_counter()
    for _ in range(ROUNDS):
        for c in cases:
            with contextlib.suppress(ValueError):
                shlex.split(c.text)
    baseline_s = time.perf_counter() - started

    n = len(cases) * ROUNDS
    p99 = _percentile(latencies, 0.99)
    print(f"   corpus commands          {len(cases)} x {ROUNDS} rounds")
    print(f"   guard throughput         {n / guard_s:,.0f} commands/s")
    print(
        f"   latency p50 / p99 / max  {statistics.median(latencies):.3f} / {p99:.3f} / {max(latencies):.3f} ms"
    )
    print(f"   p99 target               <= {TARGET_P99_MS} ms: {'met' if p99 <= TARGET_P99_MS else 'MISSED'}")
    print(
        f"   baseline shlex.split     {n / baseline_s:,.0f} commands/s (guard costs {guard_s / baseline_s:.1f}x)"
    )


if __name__ == "__main__":
    main()
