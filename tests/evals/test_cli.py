"""``wslmcp eval`` end to end over real stdio: exit codes, --json, --junit, --baseline, diff, suites,
--no-replay, --jobs, --strict-replay and the judge plug-in."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from wslmcp.evals.rubric import REGISTRY

REPO = Path(__file__).resolve().parents[2]
OBS = REPO / "scenarios" / "eval-slow-build"
SHELL = REPO / "scenarios" / "eval-shell"
TRACES = OBS / "eval" / "traces"


def wslmcp(*args: str | Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "wslmcp", "eval", *map(str, args)],
        capture_output=True,
        text=True,
        input=stdin,
        timeout=300,
        cwd=REPO,
    )


def report(path: Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    assert doc["schema"] == "wslmcp-eval-report/1"
    return doc


def test_checks_lists_exactly_the_registry_with_rules_and_patterns() -> None:
    done = wslmcp("checks", "--json")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert [c["id"] for c in doc["checks"]] == list(REGISTRY)
    assert all(c["rule"] and c["applies"] for c in doc["checks"])
    assert "NEGATION" in doc["patterns"] and "Ubuntu" in doc["distros"]
    human = wslmcp("checks").stdout
    assert all(cid in human for cid in REGISTRY)


def test_extract_writes_wslmcp_trace_and_it_grades_the_same(tmp_path: Path) -> None:
    out = tmp_path / "t.jsonl"
    assert wslmcp("extract", TRACES / "t04-most-cpu-per-core.jsonl", "--out", out).returncode == 0
    header = json.loads(out.read_text(encoding="utf-8").splitlines()[0])
    assert header["schema"] == "wslmcp-trace/1" and header["source"]["format"] == "claude-code"
    for trace in (TRACES / "t04-most-cpu-per-core.jsonl", out):
        done = wslmcp("run", trace, "--scenario", OBS, "--case", "most-cpu", "--no-replay", "--json", "-")
        assert done.returncode == 1
        failing = [c["id"] for c in json.loads(done.stdout)["traces"][0]["checks"] if c["status"] == "fail"]
        assert failing == ["answer.cpu_scale"]
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n", encoding="utf-8")
    assert wslmcp("extract", bad).returncode == 3


def test_exit_0_with_json_and_junit_over_a_replayed_good_trace(tmp_path: Path) -> None:
    done = wslmcp(
        "run", TRACES / "t14-busiest-inspect-good.jsonl", "--scenario", OBS, "--case", "busiest-inspect",
        "--json", tmp_path / "r.json", "--junit", tmp_path / "j.xml", "-v",
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "t14-busiest-inspect-good" in done.stdout and "1 trace: 1 passed" in done.stdout
    assert "resource_id: bound (call 1 data[0].resource_id)" in done.stdout
    doc = report(tmp_path / "r.json")
    trace = doc["traces"][0]
    assert (trace["verdict"], trace["case"], trace["intent_source"], trace["source_format"]) == (
        "pass", "busiest-inspect", "declared", "claude-code",
    )  # fmt: skip
    assert trace["calls"][1]["bindings"][0]["state"] == "bound"
    assert next(c for c in trace["checks"] if c["id"] == "replay.no_drift")["status"] == "pass"
    suite = ET.parse(tmp_path / "j.xml").getroot()
    cases = suite.findall("testcase")
    assert len(cases) == len(REGISTRY) and {c.get("name") for c in cases} == set(REGISTRY)
    assert suite.get("failures") == "0" and cases[0].find("system-out") is not None


def test_exit_1_on_a_failing_trace_and_junit_failures(tmp_path: Path) -> None:
    done = wslmcp(
        "run", TRACES / "t15-busiest-old-id-new-snapshot.jsonl", "--scenario", OBS, "--case", "busiest-inspect",
        "--junit", tmp_path / "j.xml",
    )  # fmt: skip
    assert done.returncode == 1
    assert "ids.resource_with_own_snapshot" in done.stdout and "FAIL" in done.stdout
    failures = [
        c.get("name") for c in ET.parse(tmp_path / "j.xml").getroot() if c.find("failure") is not None
    ]
    assert sorted(failures) == sorted(
        [
            "snapshot.preserved",
            "snapshot.no_mixing",
            "ids.resource_with_own_snapshot",
            "intent.required_calls",
        ]
    )


def test_usage_errors_exit_2() -> None:
    for args in (
        ("run", TRACES / "t01-most-cpu-good.jsonl"),  # no --scenario, no --no-replay
        ("run", TRACES / "t01-most-cpu-good.jsonl", "--no-replay", "--severity", "nope=warn"),
        ("run", TRACES / "t01-most-cpu-good.jsonl", "--no-replay", "--server", "x=db"),
        ("run", "missing.jsonl", "--no-replay"),
        ("frobnicate",),
    ):
        done = wslmcp(*args)
        assert done.returncode == 2, args
        assert done.stderr.count("\n") == 1 and done.stdout == ""


def test_harness_errors_exit_3_with_the_file_and_cause(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_text("{}\n", encoding="utf-8")
    done = wslmcp(
        "run", garbage, TRACES / "t01-most-cpu-good.jsonl", "--no-replay", "--json", tmp_path / "r.json"
    )
    assert done.returncode == 3
    assert "garbage.jsonl" in done.stderr and "no version marker" in done.stderr
    verdicts = [t["verdict"] for t in report(tmp_path / "r.json")["traces"]]
    assert verdicts == ["error", "pass"]
    cases = tmp_path / "cases.json"
    cases.write_text(
        json.dumps({"schema": "wslmcp-eval-cases/1", "cases": {"x": {"bogus": 1}}}), encoding="utf-8"
    )
    done = wslmcp("run", TRACES / "t01-most-cpu-good.jsonl", "--no-replay", "--cases", cases, "--case", "x")
    assert done.returncode == 3 and "cases.x.bogus" in done.stderr
    scenario = tmp_path / "broken"
    scenario.mkdir()
    (scenario / "scenario.json").write_text("{}", encoding="utf-8")
    assert wslmcp("run", TRACES / "t01-most-cpu-good.jsonl", "--scenario", scenario).returncode == 3


def test_unreplayable_calls_are_reported_exit_4_and_strict_replay_exits_3(tmp_path: Path) -> None:
    trace = SHELL / "eval" / "traces" / "s04-shell-unrecorded.jsonl"
    done = wslmcp("run", trace, "--scenario", SHELL, "--case", "shell-cleanup", "--json", tmp_path / "r.json")
    assert done.returncode == 4, done.stdout
    got = report(tmp_path / "r.json")["traces"][0]
    assert got["unreplayable"] == [2] and got["calls"][1]["unreplayable"].startswith("replay miss: wsl_exe")
    assert "unreplayable" in done.stdout
    strict = wslmcp("run", trace, "--scenario", SHELL, "--case", "shell-cleanup", "--strict-replay")
    assert strict.returncode == 3 and "call 2 is unreplayable" in strict.stderr


def _copy(src: str, dest: Path) -> Path:
    shutil.copyfile(TRACES / f"{src}.jsonl", dest)
    return dest


def test_baseline_regression_improvement_and_diff(tmp_path: Path) -> None:
    trace = tmp_path / "session.jsonl"
    run = ("run", trace, "--scenario", OBS, "--case", "most-cpu", "--no-replay")
    _copy("t04-most-cpu-per-core", trace)
    assert wslmcp(*run, "--json", tmp_path / "bad.json").returncode == 1
    # a known-bad session kept in the suite does not go red against its own baseline
    assert wslmcp(*run, "--baseline", tmp_path / "bad.json").returncode == 0
    _copy("t01-most-cpu-good", trace)
    improved = wslmcp(*run, "--baseline", tmp_path / "bad.json", "--json", tmp_path / "good.json")
    assert improved.returncode == 0 and "improved    session  answer.cpu_scale" in improved.stdout
    assert report(tmp_path / "good.json")["baseline"]["improved"] == [
        {"trace": "session", "check": "answer.cpu_scale"}
    ]
    _copy("t04-most-cpu-per-core", trace)
    regressed = wslmcp(*run, "--baseline", tmp_path / "good.json")
    assert regressed.returncode == 1 and "REGRESSION  session  answer.cpu_scale" in regressed.stdout
    diff = wslmcp("diff", tmp_path / "good.json", tmp_path / "bad.json", "--json")
    assert diff.returncode == 1
    assert [(r["trace"], r["check"]) for r in json.loads(diff.stdout)["regressions"]] == [
        ("session", "answer.cpu_scale")
    ]
    assert wslmcp("diff", tmp_path / "bad.json", tmp_path / "good.json").returncode == 0
    assert wslmcp("diff", tmp_path / "bad.json", tmp_path / "nothing.json").returncode == 3


def test_no_replay_jobs_and_input_order_over_a_directory(tmp_path: Path) -> None:
    done = wslmcp("run", TRACES, "--no-replay", "--jobs", "3", "--json", "-")
    assert done.returncode == 1
    doc = json.loads(done.stdout)
    ids = [t["id"] for t in doc["traces"]]
    assert ids == sorted(p.stem for p in TRACES.glob("*.jsonl"))
    assert all(t["intent_source"] == "inferred" for t in doc["traces"])
    drift = {
        t["id"]: next(c for c in t["checks"] if c["id"] == "replay.no_drift")["status"] for t in doc["traces"]
    }
    assert set(drift.values()) == {"skip"}
    assert doc["summary"]["traces"] == len(ids)


def test_a_suite_names_a_case_per_run(tmp_path: Path) -> None:
    suite = tmp_path / "suite.json"
    suite.write_text(
        json.dumps(
            {
                "schema": "wslmcp-eval-suite/1",
                "cases": str(OBS / "eval" / "cases.json"),
                "runs": [
                    {
                        "id": "good",
                        "trace": str(TRACES / "t05-most-memory-good.jsonl"),
                        "scenario": str(OBS),
                        "case": "most-memory",
                    },
                    {
                        "id": "bad",
                        "trace": str(TRACES / "t06-most-memory-units-leak.jsonl"),
                        "scenario": str(OBS),
                        "case": "most-memory",
                    },
                ],
            }
        ),
        encoding="utf-8",
    )
    done = wslmcp("run", "--suite", suite, "--jobs", "2", "--json", "-")
    assert done.returncode == 1
    doc = json.loads(done.stdout)
    assert [(t["id"], t["verdict"]) for t in doc["traces"]] == [("good", "pass"), ("bad", "fail")]
    assert doc["summary"]["by_case"] == {"most-memory": {"traces": 2, "passed": 1}}


JUDGES = {
    "pass": "import json,sys; r=json.load(sys.stdin); print(json.dumps({'schema':'wslmcp-eval-judge-response/1','items':[{'id':i['id'],'status':'pass','reason':'ok'} for i in r['rubric']]}))",
    "fail": "import json,sys; r=json.load(sys.stdin); print(json.dumps({'schema':'wslmcp-eval-judge-response/1','items':[{'id':i['id'],'status':'fail','reason':'mixed up'} for i in r['rubric']]}))",
    "slow": "import time; time.sleep(30)",
    "garbage": "print('I think it is fine')",
}


@pytest.mark.parametrize("kind", sorted(JUDGES))
def test_the_judge_plug_in(tmp_path: Path, kind: str) -> None:
    script = tmp_path / "judge.py"
    script.write_text(JUDGES[kind], encoding="utf-8")
    args = [
        "run",
        TRACES / "t23-slow-build-good.jsonl",
        "--scenario",
        OBS,
        "--case",
        "slow-build",
        "--no-replay",
    ]
    args += ["--judge", f"{sys.executable} {script}", "--judge-timeout", "2", "--json", "-"]
    done = wslmcp(*args)
    item = next(
        c for c in json.loads(done.stdout)["traces"][0]["checks"] if c["id"] == "judge.facts_vs_hypotheses"
    )
    expected = {"pass": "pass", "fail": "fail", "slow": "skip", "garbage": "skip"}[kind]
    assert (item["status"], item["severity"]) == (expected, "warn")
    assert done.returncode == 0  # the judge never gates by default
    if kind == "fail":
        assert wslmcp(*args, "--judge-gates").returncode == 1


def test_without_a_case_the_intent_is_read_from_the_graded_question_a_follow_up_included(
    tmp_path: Path,
) -> None:
    from tests.evals.transcripts import cc_result, cc_text, cc_use, cc_user, write_jsonl

    listing = json.dumps({"snapshot": {"snapshot_id": "s-1"}, "data": []})
    rows = [
        cc_user("Which process is using the most CPU right now?"),
        cc_use(
            "m1", "u1", "mcp__wsl-observe__list_resources", {"max_age_ms": 0, "sort_by": "cpu", "limit": 1}
        ),
        cc_result("u1", listing),
        cc_text("m1", "Nothing is busy."),
        cc_user("What is running underneath it?"),
        cc_use("m2", "u2", "mcp__wsl-observe__list_children", {"snapshot_id": "s-1", "resource_id": "r-1"}),
        cc_result("u2", listing),
        cc_text("m2", "Nothing runs underneath it."),
    ]
    trace = write_jsonl(tmp_path / "followup.jsonl", rows)
    checks = {}
    for n in ("1", "2"):
        done = wslmcp("run", trace, "--no-replay", "--investigation", n, "--json", "-")
        checks[n] = {c["id"]: c["status"] for c in json.loads(done.stdout)["traces"][0]["checks"]}
    assert checks["2"]["snapshot.fresh_start"] == "skip"  # a follow-up carries the snapshot on
    assert checks["2"]["intent.sort_matches_question"] == "skip"  # nothing about sorting was asked
    assert checks["1"]["snapshot.fresh_start"] == "pass"
    assert checks["1"]["intent.sort_matches_question"] == "pass"


def test_a_case_without_a_cases_file_or_unknown_says_what_would_do(tmp_path: Path) -> None:
    trace = TRACES / "t01-most-cpu-good.jsonl"
    alone = wslmcp("run", trace, "--no-replay", "--case", "most-cpu")
    assert alone.returncode == 2 and alone.stdout == ""
    assert alone.stderr == (
        "wslmcp eval: error: --case most-cpu needs a cases file: pass --cases FILE "
        "(no --scenario DIR was given) (see --help)\n"
    )
    unknown = wslmcp("run", trace, "--scenario", OBS, "--case", "nope", "--no-replay")
    assert unknown.returncode == 3 and "(no cases file)" not in unknown.stderr
    assert "expected one of the cases it holds (" in unknown.stderr and "most-cpu" in unknown.stderr
    assert unknown.stderr.rstrip().endswith('got "nope"')
