"""Baselines as documented: a new trace that fails is a regression (exit 1, listed as new), a trace
missing from the run is reported as one, ``wslmcp eval baseline write`` writes the baseline, and the
CI example in docs/eval.md runs as written in a fresh clone's layout."""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path

from tests.conftest import REPO, SCENARIOS
from tests.replay.loop import wslmcp

TRACES = SCENARIOS / "eval-slow-build" / "eval" / "traces"
GOOD, BAD = TRACES / "t01-most-cpu-good.jsonl", TRACES / "t04-most-cpu-per-core.jsonl"


def _traces(folder: Path, *sources: Path) -> Path:
    folder.mkdir(exist_ok=True)
    for old in folder.glob("*.jsonl"):
        old.unlink()
    for source in sources:
        shutil.copyfile(source, folder / source.name)
    return folder


def test_a_new_failing_trace_and_a_missing_one_are_regressions(tmp_path: Path) -> None:
    folder = tmp_path / "traces"
    run = ("eval", "run", str(folder), "--scenario", str(SCENARIOS / "eval-slow-build"), "--case", "most-cpu",
           "--no-replay")  # fmt: skip
    _traces(folder, GOOD)
    base = tmp_path / "baseline.json"
    written = wslmcp("eval", "baseline", "write", "--out", str(base), *run[2:])
    assert written.returncode == 0, written.stderr
    assert f"wrote {base}: the baseline of 1 traces (1 pass, 0 fail)" in written.stdout
    assert wslmcp(*run, "--baseline", str(base)).returncode == 0
    _traces(folder, GOOD, BAD)  # a new session that fails
    grown = wslmcp(*run, "--baseline", str(base), "--json", str(tmp_path / "r.json"))
    assert grown.returncode == 1, grown.stdout
    assert "REGRESSION  t04-most-cpu-per-core  answer.cpu_scale  (new trace)" in grown.stdout
    assert "new trace   t04-most-cpu-per-core" in grown.stdout
    compared = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["baseline"]
    assert compared["new_traces"] == ["t04-most-cpu-per-core"]
    assert [(r["trace"], r["check"], r.get("new")) for r in compared["regressions"]] == [
        ("t04-most-cpu-per-core", "answer.cpu_scale", True)
    ]
    _traces(folder, BAD)  # the known-good session left the run
    written = wslmcp("eval", "baseline", "write", "--out", str(base), *run[2:])
    assert written.returncode == 0  # a failing session may be kept in a baseline
    _traces(folder, GOOD)
    gone = wslmcp(*run, "--baseline", str(base))
    assert gone.returncode == 1
    assert "missing     t04-most-cpu-per-core  REGRESSION" in gone.stdout
    assert "1 regression(s), 0 improved, 1 new, 1 missing" in gone.stdout


def test_baseline_write_writes_nothing_when_a_trace_cannot_be_graded(tmp_path: Path) -> None:
    shell = SCENARIOS / "eval-shell"
    unrecorded = shell / "eval" / "traces" / "s04-shell-unrecorded.jsonl"
    out = tmp_path / "baseline.json"
    done = wslmcp("eval", "baseline", "write", "--out", str(out), str(unrecorded), "--scenario", str(shell))
    assert done.returncode == 4 and "not written: a trace is unreplayable" in done.stderr
    assert not out.exists() and list(tmp_path.iterdir()) == []


def ci_example() -> list[str]:
    """The CI command docs/eval.md shows, as words."""
    text = (REPO / "docs" / "eval.md").read_text(encoding="utf-8")
    block = re.search(r"```sh\n(wslmcp eval run --suite .*?)```", text, re.DOTALL)
    assert block, "docs/eval.md shows no CI command"
    return shlex.split(block.group(1).replace("\\\n", " "))


def test_the_ci_example_runs_as_written_in_a_fresh_clone(tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    clone.mkdir()
    shutil.copytree(SCENARIOS, clone / "scenarios")  # what the repository holds, nothing a run wrote
    words = ci_example()
    assert words[:2] == ["wslmcp", "eval"]
    done = wslmcp(*words[1:], cwd=clone)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    assert "0 regression(s)" in done.stdout
    report = json.loads((clone / "eval-report.json").read_text(encoding="utf-8"))
    assert report["summary"]["traces"] == len(json.loads((SCENARIOS / "eval-suite.json").read_text())["runs"])
    assert (clone / "eval-junit.xml").is_file()


def test_the_suite_holds_every_bundled_session_that_replays() -> None:
    suite = json.loads((SCENARIOS / "eval-suite.json").read_text(encoding="utf-8"))
    listed = {(Path(r["scenario"]).name, Path(r["trace"]).name, r["case"]) for r in suite["runs"]}
    bundled = set()
    for manifest in SCENARIOS.glob("*/scenario.json"):
        section = json.loads(manifest.read_text(encoding="utf-8")).get("eval", {})
        for entry in section.get("traces", []):
            if entry["expect"]["verdict"] != "unreplayable":
                bundled.add((manifest.parent.name, Path(entry["trace"]).name, entry["case"]))
    assert listed == bundled
