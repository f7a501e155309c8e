"""How long ``make test``'s pytest run takes, and where the time goes: the whole suite once, in a
subprocess, then its slowest directories and files (from a JUnit report: setup, call and teardown
of every test). The target is the whole run under 4 minutes on a 2-core machine."""

from __future__ import annotations

import collections
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

TARGET_S = 240.0
SHOWN = 10


def _times(report: Path) -> dict[str, float]:
    """Seconds per test file (``tests/dir/test_x.py``)."""
    per_file: dict[str, float] = collections.Counter()
    for case in ET.parse(report).getroot().iter("testcase"):
        module = case.get("classname", "").split(".")
        name = "/".join(p for p in module if not p[:1].isupper()) + ".py"
        per_file[name] += float(case.get("time", "0"))
    return per_file


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-test-time-") as tmp:
        report = Path(tmp) / "junit.xml"
        argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={report}"]
        started = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, text=True)
        wall = time.perf_counter() - started
        if not report.exists():
            print(f"   pytest wrote no report (exit {done.returncode}):\n{done.stdout[-2000:]}")
            return
        per_file = _times(report)
    per_dir: dict[str, float] = collections.Counter()
    for name, seconds in per_file.items():
        per_dir[name.rsplit("/", 1)[0]] += seconds
    verdict = "ok" if wall < TARGET_S else "MISSED"
    print(
        f"   make test's pytest: {wall:.0f} s wall (target < {TARGET_S:.0f} s) {verdict}; exit {done.returncode}"
    )
    print("   slowest directories (seconds of setup + call + teardown):")
    for name, seconds in sorted(per_dir.items(), key=lambda kv: -kv[1])[:SHOWN]:
        print(f"     {seconds:7.1f}  {name}")
    print("   slowest files:")
    for name, seconds in sorted(per_file.items(), key=lambda kv: -kv[1])[:SHOWN]:
        print(f"     {seconds:7.1f}  {name}")
