"""Commands that succeed print no traceback, run after run (the shell's shutdown sweep under replay
and the stdin thread were two sources of one, in about half the runs); a reader that stops early
ends a listing quietly; the human tables keep one row per line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from wslmcp.evals.report_human import table
from wslmcp.wording import counted, one_line

ROOT = Path(__file__).resolve().parents[2]
EVAL_SHELL = ROOT / "scenarios" / "eval-shell"
RUNS = 2


def _wslmcp(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "wslmcp", *args], capture_output=True, text=True, timeout=300, cwd=ROOT
    )


@pytest.mark.parametrize(
    "args",
    [
        ["scenario", "replay", str(EVAL_SHELL)],
        [
            "eval",
            "run",
            *map(str, sorted((EVAL_SHELL / "eval" / "traces").glob("*.jsonl"))),
            "--scenario",
            str(EVAL_SHELL),
        ],
    ],
    ids=["scenario-replay", "eval-run"],
)
def test_a_successful_command_prints_no_traceback_run_after_run(args: list[str]) -> None:
    for _ in range(RUNS):
        done = _wslmcp(*args)
        # eval run: 1 when a graded session fails, 4 when one is unreplayable (s04 is)
        assert done.returncode in (0, 1, 4), done.stderr
        assert "Traceback" not in done.stderr and done.stderr == "", done.stderr
        for line in done.stdout.splitlines():
            assert "\ufffd" not in line


def test_a_listing_cut_short_by_its_reader_ends_quietly() -> None:
    done = subprocess.run(
        f"{sys.executable} -m wslmcp scenario list scenarios | head -1; exit ${{PIPESTATUS[0]}}",
        shell=True,
        executable="/bin/bash",
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert done.returncode == 0
    assert done.stderr == ""
    assert len(done.stdout.splitlines()) == 1


def test_counts_and_one_line_cells() -> None:
    assert (counted(1, "trace"), counted(0, "trace"), counted(2, "process", "processes")) == (
        "1 trace",
        "0 traces",
        "2 processes",
    )
    assert one_line("a\nb\t c") == "a b c"
    cut = one_line("word " * 100, 50)
    assert len(cut) <= 50 and cut.endswith("word…")


def test_eval_table_columns_fit_the_longest_trace_and_case() -> None:
    def trace(name: str, case: str) -> dict[str, object]:
        return {"id": name, "case": case, "verdict": "pass", "checks": [], "calls": []}

    traces = [trace("t1", "busy-last-five-minutes-and-then-some"), trace("t" * 45, "c")]
    summary = {"traces": 2, "passed": 2, "failed": 0, "errors": 0}
    header, *rows, _ = table(traces, summary).splitlines()
    at = header.index("VERDICT")
    assert all(row[at:].startswith("pass") and row[at - 1] == " " for row in rows), rows
