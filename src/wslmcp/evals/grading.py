"""Grading one trace end to end: read it, pick its case, replay it (unless ``--no-replay``), run the
rubric (and the judge), and shape its entry of the ``wslmcp-eval-report/1`` report.

A harness error (unreadable trace, invalid scenario, a server that does not start or crashes,
``--strict-replay`` with an unreplayable call) gives the trace verdict ``error`` with a one-line
message naming the file and the cause; it never stops the other traces. A call the scenario cannot
answer (a replay miss) gives the verdict ``unreplayable``: the scenario, not the agent, falls short.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wslmcp.boundaries.client_files import ClientFiles
from wslmcp.boundaries.mcp_session import McpSessions, ReplayTarget, SessionError
from wslmcp.evals import extract, judge
from wslmcp.evals.cases import Case, infer
from wslmcp.evals.replay import ReplayOutcome, replay
from wslmcp.evals.rubric import CheckResult, grade
from wslmcp.evals.session import Session, final_answer, server_kinds
from wslmcp.evals.trace import Message, TraceError


@dataclass(frozen=True)
class Options:
    no_replay: bool = False
    strict_replay: bool = False
    strict_intent: bool = False
    investigation: int | None = None
    severities: Mapping[str, str] = field(default_factory=dict)
    servers: Mapping[str, str] = field(default_factory=dict)
    judge: str | None = None
    judge_gates: bool = False
    judge_timeout: float = 60.0
    server_logs: bool = False  # the replaying servers' logs go to stderr (``-v``)


@dataclass(frozen=True)
class Job:
    id: str
    trace: Path
    target: ReplayTarget | None  # None: graded without replay
    case: Case | None
    target_error: str | None = None  # the scenario could not be used: a harness error


@dataclass
class Harness:
    files: ClientFiles
    sessions: McpSessions
    runner: judge.Runner | None = None


def observe_tools() -> tuple[str, ...]:
    from wslmcp.observe.tools import TOOL_NAMES

    return TOOL_NAMES


def shell_tools() -> tuple[str, ...]:
    from wslmcp.shell.tools import TOOLS

    return tuple(t.name for t in TOOLS)


def _error(job: Job, message: str, fmt: str | None = None) -> dict[str, Any]:
    return {
        "id": job.id,
        "path": str(job.trace),
        "source_format": fmt,
        "session_id": None,
        "scenario": job.target.name if job.target else None,
        "case": job.case.id if job.case and job.case.source == "declared" else None,
        "intent_source": None,
        "verdict": "error",
        "error": message,
        "calls": [],
        "checks": [],
        "answer": {"text": "", "sentences_flagged": []},
    }


def _inferred(session: Session) -> Case:
    """The intent read from the question of the investigation graded; a question after an earlier one
    may be a follow-up."""
    index = session.target_index
    prompts = [
        [e.text for e in inv if isinstance(e, Message) and e.role == "user"] for inv in session.investigations
    ]
    question = prompts[index][-1] if prompts and prompts[index] else ""
    return infer(question, earlier=any(prompts[:index]))


async def grade_job(harness: Harness, job: Job, options: Options) -> dict[str, Any]:
    try:
        trace = extract.read(harness.files, str(job.trace), tuple(options.servers))
    except TraceError as exc:
        return _error(job, str(exc))
    if job.target_error is not None:
        return _error(job, f"{job.trace}: {job.target_error}", trace.source.get("format"))
    info = job.target
    kinds = server_kinds(trace, options.servers, shell_tools())
    session = Session(
        trace,
        kinds,
        job.case or infer(""),
        strict_intent=options.strict_intent,
        distro=info.distro if info else None,
    )
    if options.investigation is not None:
        session.target = options.investigation - 1
    if job.case is None:
        session.case = _inferred(session)
    outcome: ReplayOutcome | None = None
    if info is not None and not options.no_replay:
        try:
            outcome = await replay(harness.sessions, session, info, job.case, log=options.server_logs)
        except SessionError as exc:
            return _error(job, f"{job.trace}: {exc}", trace.source.get("format"))
        session.tools, session.replayed = outcome.tools, outcome.replayed
        session.unreplayable, session.drift, session.oracle_top = (
            outcome.unreplayable,
            outcome.drift,
            outcome.oracle_top,
        )
    else:
        catalogue = {"observe": set(observe_tools()), "shell": set(shell_tools())}
        session.tools = {alias: catalogue[k] for alias, k in kinds.items() if k in catalogue}
    checks = [_check_json(r) for r in grade(session, options.severities)]
    if options.judge and harness.runner is not None:
        checks += await judge.judge(
            harness.runner,
            options.judge,
            _judge_request(job, session, checks),
            options.judge_timeout,
            options.judge_gates,
        )
    report = _report(job, session, outcome, checks)
    if options.strict_replay and session.unreplayable:
        n, message = next(iter(sorted(session.unreplayable.items())))
        report["verdict"], report["error"] = "error", f"{job.trace}: call {n} is unreplayable ({message})"
    return report


def _check_json(r: CheckResult) -> dict[str, Any]:
    return {
        "id": r.id,
        "status": r.status,
        "severity": r.severity,
        "message": r.message,
        "evidence": r.evidence,
        "sentences": r.sentences,
    }


def _judge_request(job: Job, session: Session, checks: list[dict[str, Any]]) -> dict[str, Any]:
    facts = [
        {
            "call": c.n,
            "tool": c.tool,
            "structured": session.result(c).structured,
            "text": session.result(c).text[:4000],
        }
        for c in session.calls_in(session.case_events)
        if c.server is not None
    ]
    case = session.case
    return {
        "schema": judge.REQUEST,
        "trace": job.id,
        "question": session.trace.question,
        "answer": final_answer(session.case_events),
        "case": {"id": case.id, "title": case.title, "question": case.question},
        "facts": facts,
        "checks": [{"id": c["id"], "status": c["status"]} for c in checks],
        "rubric": judge.rubric_of(case.judge),
    }


def _short(result: Any) -> dict[str, Any]:
    short = {"status": result.status, "code": result.code}
    if result.status in ("tool_error", "jsonrpc_error", "client_error"):
        error = result.error or (result.structured or {}).get("error")
        message = error.get("message") if isinstance(error, dict) else None
        short["message"] = str(message) if message is not None else result.text
    return short


def _report(
    job: Job, session: Session, outcome: ReplayOutcome | None, checks: list[dict[str, Any]]
) -> dict[str, Any]:
    calls = []
    for call in session.trace.calls:
        entry: dict[str, Any] = {
            "n": call.n,
            "server": call.server,
            "kind": session.kind(call) if call.server is not None else "builtin",
            "tool": call.tool,
            "arguments": call.arguments,
            "recorded": _short(call.result),
        }
        if outcome is not None and call.n in outcome.sent:
            entry["replayed_arguments"] = outcome.sent[call.n]
            entry["bindings"] = outcome.bindings.get(call.n, [])
            entry["replayed"] = _short(outcome.replayed[call.n]) if call.n in outcome.replayed else None
        if outcome is not None and call.n in outcome.unreplayable:
            entry["unreplayable"] = outcome.unreplayable[call.n]
        calls.append(entry)
    gating = any(c["status"] == "fail" and c["severity"] == "error" for c in checks)
    verdict = "unreplayable" if session.unreplayable else "fail" if gating else "pass"
    flagged = [
        {"check": c["id"], "sentence": s}
        for c in checks
        if c["status"] == "fail"
        for s in c.get("sentences", [])
    ]
    return {
        "id": job.id,
        "path": str(job.trace),
        "source_format": session.trace.source.get("format"),
        "session_id": session.trace.source.get("session_id"),
        "scenario": job.target.name if job.target else None,
        "case": session.case.id if session.case.source == "declared" else None,
        "intent_source": session.case.source,
        "verdict": verdict,
        "error": None,
        "unreplayable": sorted(session.unreplayable),
        "calls": calls,
        "checks": checks,
        "answer": {"text": final_answer(session.case_events), "sentences_flagged": flagged},
    }
