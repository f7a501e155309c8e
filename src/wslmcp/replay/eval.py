"""Replay check ``eval-traces``: grade a scenario's bundled agent sessions (its ``eval`` section) over
real stdio against the scenario itself, and compare each verdict and set of failing checks with the
expectation stored beside the trace. The eval table goes into the check's report.

Manifest section::

    "eval": {"cases": "eval/cases.json",
             "traces": [{"trace": "eval/traces/t01.jsonl", "case": "most-cpu",
                         "expect": {"verdict": "pass", "failing": []}}]}
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from wslmcp import wiring
from wslmcp.evals import report_human, report_json
from wslmcp.evals.assembly import build
from wslmcp.evals.cases import load_cases
from wslmcp.evals.grading import Job, Options
from wslmcp.scenario.checks import CheckResult
from wslmcp.scenario.loader import Scenario
from wslmcp.wiring.replay import replay_target, replaying
from wslmcp.wording import counted

KIND = "eval-traces"
JOBS = 4


def _section(scenario: Scenario) -> tuple[Path | None, list[Mapping[str, Any]]]:
    section = scenario.section("eval")
    traces = section.get("traces")
    if not isinstance(traces, list) or not traces:
        raise ValueError("eval.traces must be a non-empty list")
    for i, entry in enumerate(traces):
        if not isinstance(entry, dict) or not isinstance(entry.get("trace"), str):
            raise ValueError(f"eval.traces[{i}] needs a 'trace' path")
        expect = entry.get("expect")
        if not isinstance(expect, dict) or expect.get("verdict") not in report_json.VERDICTS:
            raise ValueError(f"eval.traces[{i}].expect needs a verdict ({', '.join(report_json.VERDICTS)})")
    cases = section.get("cases")
    return (scenario.file(cases) if isinstance(cases, str) else None), traces


async def _grade(scenario: Scenario, jobs: list[Job]) -> list[dict[str, Any]]:
    run = replaying(scenario)
    # the bundled traces are repository files, not the scenario's fixture home
    boundaries = replace(run.boundaries, client_files=wiring.real().client_files)
    grader = build(boundaries, run.host, Options())
    limit = asyncio.Semaphore(JOBS)

    async def one(job: Job) -> dict[str, Any]:
        async with limit:
            return await grader.grade(job)

    try:
        return list(await asyncio.gather(*(one(j) for j in jobs)))
    finally:
        grader.close()


def check(scenario: Scenario, spec: Mapping[str, Any]) -> CheckResult:

    cases_file, entries = _section(scenario)
    cases = load_cases(cases_file) if cases_file else {}
    jobs = []
    for entry in entries:
        path = scenario.file(entry["trace"])
        case = entry.get("case")
        if case is not None and case not in cases:
            return CheckResult(KIND, False, f"{entry['trace']}: unknown case {case!r}")
        jobs.append(Job(path.stem, path, replay_target(scenario), cases[case] if case else None))
    reports = asyncio.run(_grade(scenario, jobs))
    wrong = []
    for entry, report in zip(entries, reports, strict=True):
        expect = entry["expect"]
        failing = sorted(c["id"] for c in report["checks"] if c["status"] == "fail")
        want = sorted(expect.get("failing", []))
        if report["verdict"] != expect["verdict"] or failing != want:
            wrong.append(
                f"{report['id']}: {report['verdict']} failing {failing or '[]'}, expected {expect['verdict']} {want}"
            )
    table = report_human.table(reports, report_json.summary(reports))
    if wrong:
        return CheckResult(KIND, False, "; ".join(wrong), table)
    graded = report_json.summary(reports)
    note = (
        "Every verdict below is the one expected: a FAIL grades a bundled session that makes the "
        "mistakes its checks must catch."
    )
    return CheckResult(
        KIND,
        True,
        f"{counted(len(reports), 'agent session')} graded as expected "
        f"({graded['passed']} pass, {graded['failed']} fail"
        + (f", {graded['unreplayable']} unreplayable)" if graded["unreplayable"] else ")"),
        f"{note}\n{table}",
    )
