"""Records the history scenarios from this machine: ``wslmcp scenario record --area observe`` (the
product's recorder: this host's /proc every 10 s, command lines cut to argv[0], working directories
to their mount) while a workload runs, then the scenario's ``observe`` section: the server's
options, when its first request came (``first_request_ms``: the history before it is the point) and
the calls whose answers, produced by replaying the recording, become its expected files.

* ``history-build``: a C build (make -j2, gcc on generated sources) that finished before the first
  call; the history still shows it (what was busy during the last five minutes).
* ``history-ballast``: a process holding a large block of memory on a host with plenty left: the
  pressure figures and the history tell whether memory is the problem.
* ``history-idle``: nothing started by us (the machine's own processes only).

Run: ``.venv/bin/python -m tests.observe.record_history_scenarios [NAME ...]`` (rewrites them;
review the diff). The machine is shared, so whatever else runs is recorded too.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.observe.scenario_factory import ROOT, record_expected

INTERVAL_MS = 10_000  # few samples: each holds every process's files
# collections pair samples one interval apart, as recorded (a replay's samples are 5 s apart)
ARGS = [
    "--no-docker",
    "--no-wslc",
    "--interval-ms",
    str(INTERVAL_MS),
    "--history-interval-ms",
    str(INTERVAL_MS),
]


@dataclass
class Plan:
    name: str
    description: str
    duration_s: int
    workload: Callable[[Path], Iterator[None]]
    calls: list[dict[str, Any]] = field(default_factory=list)


@contextmanager
def build(work: Path) -> Iterator[None]:
    """Thirty-two generated C units compiled by ``make -j2`` at -O2 (the compiler is cc1; about
    40 s on two cores, so the build spans several samples); it must have finished when the recording
    ends (on a machine too busy for that, record again later)."""
    rng = random.Random(21)
    units = []
    for u in range(32):
        body = [f"int f{u}(int x) {{", "  int a = x, b = 1, c = 2;"]
        for _ in range(1200):
            body.append(
                f"  a = (a * {rng.randint(3, 99)} + b) ^ (c >> {rng.randint(1, 7)}); "
                f"b += a % {rng.randint(2, 50)}; c = c * 3 + (a & {rng.randint(1, 255)});"
            )
        body.append("  return a + b + c; }")
        (work / f"unit{u}.c").write_text("\n".join(body) + "\n")
        units.append(f"unit{u}.o")
    (work / "Makefile").write_text(
        "all: " + " ".join(units) + "\n%.o: %.c\n\tgcc -O2 -c $< -o $@\n", encoding="utf-8"
    )
    time.sleep(5)  # the first sample sees the machine before the build
    proc = subprocess.Popen(["make", "-j2", "-C", str(work)], stdout=subprocess.DEVNULL)
    try:
        yield
        if proc.poll() != 0:
            raise RuntimeError("the build had not finished when the recording ended: record again")
    finally:
        proc.kill()
        proc.wait()


BALLAST = "import time\nb = bytearray(3 << 30)\nb[::4096] = b'x' * len(b[::4096])\ntime.sleep(600)\n"


@contextmanager
def ballast(work: Path) -> Iterator[None]:
    """A process named ``ballast`` holding 3 GiB (every page touched) for the whole recording."""
    link = work / "ballast"
    link.symlink_to(os.path.realpath(sys.executable))
    proc = subprocess.Popen([str(link), "-c", BALLAST])
    try:
        yield
    finally:
        proc.kill()
        proc.wait()


@contextmanager
def idle(work: Path) -> Iterator[None]:
    yield


PLANS = {
    p.name: p
    for p in (
        Plan(
            "history-build",
            "a C build (make -j2, cc1) ran and finished before the first call; the history still shows it",
            80,
            build,
            [
                {"tool": "get_history", "arguments": {"window_s": 300}},
                {"tool": "get_history", "arguments": {"window_s": 300, "resource_kind": "process", "top": 5}},
                {
                    "tool": "get_metric_series",
                    "arguments": {"metric": "wsl.cpu_percent", "window_s": 180, "points": 18},
                },
                {"tool": "get_system_summary", "arguments": {"max_age_ms": 0}},
                {"tool": "list_resources", "arguments": {"snapshot_id": "{{snapshot:4}}", "limit": 3}},
                {"tool": "get_metric_series", "arguments": {"metric": "wsl.cpu"}},
            ],
        ),
        Plan(
            "history-ballast",
            "a process holds 3 GiB on a host with plenty of memory left: no swapping, no memory stalls",
            40,
            ballast,
            [
                {"tool": "get_system_summary", "arguments": {"max_age_ms": 0}},
                {"tool": "get_history", "arguments": {"by": "memory", "window_s": 120}},
                {"tool": "get_history", "arguments": {"by": "memory", "resource_kind": "process", "top": 3}},
                {
                    "tool": "inspect_resource",
                    "arguments": {"snapshot_id": "{{snapshot:3}}", "resource_id": "{{resource:3:0}}"},
                },
                {
                    "tool": "get_metric_series",
                    "arguments": {"metric": "memory.linux_available_bytes", "window_s": 60, "points": 12},
                },
                {
                    "tool": "get_metric_series",
                    "arguments": {
                        "metric": "memory.swap_in_bytes_per_s",
                        "window_s": 60,
                        "points": 12,
                        "agg": "max",
                    },
                },
            ],
        ),
        Plan(
            "history-idle",
            "nothing started by the recorder: the machine's own processes over 30 s",
            30,
            idle,
            [
                {"tool": "get_history", "arguments": {}},
                {
                    "tool": "get_metric_series",
                    "arguments": {"metric": "cpu.psi_some_avg10", "window_s": 60, "points": 6},
                },
                {"tool": "get_system_summary", "arguments": {"max_age_ms": 0}},
            ],
        ),
    )
}


def record(plan: Plan) -> Path:
    """Record into a new directory, then put it in place of the scenario (whose eval section, not the
    recorder's, is kept: ``tests.evals.record_traces`` re-records its traces)."""
    root = ROOT / plan.name
    with tempfile.TemporaryDirectory(prefix="wslmcp-history-") as work:
        new = Path(work) / plan.name
        with plan.workload(Path(work)):
            subprocess.run(
                [sys.executable, "-m", "wslmcp", "scenario", "record", "--area", "observe", "--out", str(new),
                 "--duration", str(plan.duration_s), "--interval-ms", str(INTERVAL_MS), "--name", plan.name,
                 "--description", plan.description],
                check=True,
            )  # fmt: skip
        manifest: dict[str, Any] = json.loads((new / "scenario.json").read_text(encoding="utf-8"))
        last = manifest["timeline"][-1]["t_ms"]
        calls = [
            dict(c, expected=f"expected/{i:02d}-{c['tool']}.json") for i, c in enumerate(plan.calls, start=1)
        ]
        manifest["hold_last_ms"] = 60_000
        manifest["recorder"] = (
            f"{manifest.get('recorder', '')}; observe section by tests/observe/record_history_scenarios.py"
        )
        # the first request one interval before the last sample: its collection pairs the last two
        manifest["observe"] = {
            "args": ARGS,
            "platform": "linux",
            "first_request_ms": last - INTERVAL_MS,
            "calls": calls,
        }
        manifest["expect"] = [{"kind": "procfs-replay"}, {"kind": "observe-tools"}]
        old = root / "scenario.json"
        evals = json.loads(old.read_text(encoding="utf-8")).get("eval") if old.exists() else None
        if evals is not None:
            manifest["eval"] = evals
            manifest["expect"].append({"kind": "eval-traces"})
            shutil.copytree(root / "eval", new / "eval")
        (new / "scenario.json").write_text(
            json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
        )
        shutil.rmtree(root, ignore_errors=True)
        shutil.move(new, root)
    record_expected(root)
    return root


def main(names: Mapping[str, Plan] | None = None) -> None:
    wanted = sys.argv[1:] or list(PLANS)
    for name in wanted:
        print(f"recorded {record(PLANS[name])}")


if __name__ == "__main__":
    main()
