"""A ``wslc.exe`` stand-in on PATH: a real executable that answers from a scenario's recorded
``exchanges.wslc`` (the twin's own records), in recorded order per args (the last repeats); a record
with ``timed_out`` hangs until killed; unrecorded args exit 1 with wslc-like stderr. Each call's argv
and WSL_UTF8 are logged as JSON lines."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

SCRIPT = r"""#!PYTHON
import hashlib, json, os, sys, time
root = os.environ["WSLC_STANDIN_SCENARIO"]
args = sys.argv[1:]
with open(os.path.join(root, "calls.jsonl"), "a") as log:
    log.write(json.dumps({"args": args, "utf8": os.environ.get("WSL_UTF8")}) + "\n")
items = json.load(open(os.path.join(root, "scenario.json")))["exchanges"]["wslc"]
matches = [i for i in items if i["args"] == args]
if not matches:
    sys.stderr.write("wslc.exe stand-in: unknown command: " + " ".join(args) + "\n")
    sys.exit(1)
state = os.path.join(root, "served-" + hashlib.sha256("\0".join(args).encode()).hexdigest()[:16])
n = int(open(state).read()) if os.path.exists(state) else 0
open(state, "w").write(str(n + 1))
item = matches[min(n, len(matches) - 1)]
if item.get("timed_out"):
    time.sleep(300)
for stream, out in (("stdout", sys.stdout), ("stderr", sys.stderr)):
    if stream in item:
        out.buffer.write(open(os.path.join(root, item[stream]), "rb").read())
        out.flush()
sys.exit(item.get("exit_code", 0))
"""


def make_wslc_standin(scenario_dir: Path, bin_dir: Path) -> Path:
    """Put ``wslc.exe`` answering from ``scenario_dir`` into ``bin_dir``; returns its path.
    Callers set ``WSLC_STANDIN_SCENARIO`` (``standin_env``) and PATH."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    exe = bin_dir / "wslc.exe"
    exe.write_text(SCRIPT.replace("PYTHON", sys.executable, 1))
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    return exe


def standin_env(scenario_dir: Path, bin_dir: Path) -> dict[str, str]:
    return {"WSLC_STANDIN_SCENARIO": str(scenario_dir), "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}


def calls(scenario_dir: Path) -> list[dict[str, object]]:
    log = scenario_dir / "calls.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
