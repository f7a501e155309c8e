"""``wslmcp eval`` benchmarks over the 31 bundled observe and shell sessions (real CLI, real stdio):

1. ``--jobs 4`` with replay (target <= 10 s), beside the serial figure (``--jobs 1``);
2. ``--no-replay`` over the same traces (target <= 1 s).
Each figure is the wall time of one ``python -m wslmcp eval run`` process, start to exit.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCENARIOS = ("eval-slow-build", "eval-shell")
TRACES = 31


def _suite(folder: Path) -> Path:
    """One suite over the first 31 bundled sessions; the two scenarios' cases merged (ids differ)."""
    cases: dict[str, object] = {}
    runs = []
    for name in SCENARIOS:
        root = REPO / "scenarios" / name
        cases.update(json.loads((root / "eval" / "cases.json").read_text(encoding="utf-8"))["cases"])
        manifest = json.loads((root / "scenario.json").read_text(encoding="utf-8"))
        runs += [
            {"trace": str(root / t["trace"]), "scenario": str(root), "case": t["case"]}
            for t in manifest["eval"]["traces"]
        ]
    (folder / "cases.json").write_text(
        json.dumps({"schema": "wslmcp-eval-cases/1", "cases": cases}), encoding="utf-8"
    )
    suite = folder / "suite.json"
    doc = {"schema": "wslmcp-eval-suite/1", "cases": "cases.json", "runs": runs[:TRACES]}
    suite.write_text(json.dumps(doc), encoding="utf-8")
    return suite


def _timed(*args: str) -> tuple[float, dict[str, object]]:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "wslmcp", "eval", "run", *args, "--json", "-"],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    elapsed = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise RuntimeError(f"wslmcp eval exited {done.returncode}: {done.stderr[-500:]}")
    summary: dict[str, object] = json.loads(done.stdout)["summary"]
    return elapsed, summary


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        suite = _suite(Path(tmp))
        fast, summary = _timed("--suite", str(suite), "--no-replay")
        print(f"   --no-replay, {summary['traces']} traces:   {fast:6.2f} s   (target <= 1 s)")
        parallel, summary = _timed("--suite", str(suite), "--jobs", "4")
        print(f"   replay --jobs 4, {summary['traces']} traces: {parallel:6.2f} s   (target <= 10 s)")
        serial, _ = _timed("--suite", str(suite), "--jobs", "1")
        print(
            f"   replay serial, {summary['traces']} traces:   {serial:6.2f} s   (--jobs 4 is {serial / parallel:.1f}x faster)"
        )
        print(f"   ({summary['passed']} pass, {summary['failed']} fail, {summary['errors']} errors)")


if __name__ == "__main__":
    main()
