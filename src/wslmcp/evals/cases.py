"""Case files (``wslmcp-eval-cases/1``), suite files (``wslmcp-eval-suite/1``) and inferred intent.

Validation is strict: unknown keys are refused and every error names the file, the key and what
was expected (the scenario manifest's style). Without a case, intent is inferred from the question
with the fixed keyword rules in ``INFERENCE_RULES``; inferred intent never gates unless asked.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wslmcp.observe.model import ENVIRONMENTS, KINDS
from wslmcp.observe.tools import SORT_KEYS, SORT_ORDERS

CASES_SCHEMA = "wslmcp-eval-cases/1"
SUITE_SCHEMA = "wslmcp-eval-suite/1"
FILTERS = ("environment", "resource_kind", "name_contains")
INFERENCE_RULES = (
    ("most|highest|busiest|top ... cpu|processor (or no resource named)", "sort_by cpu, sort_order desc"),
    ("most|highest|biggest|top|largest ... memory|ram", "sort_by memory, sort_order desc"),
    ("top N", "limit N"),
    (
        "after an earlier question: it|its|that|this|them|those|underneath|beneath",
        "a follow-up: not fresh, keeps the snapshot",
    ),
    ("any other question", "fresh (the investigation starts with max_age_ms 0)"),
    ("wsl together with memory, or a wsl process", "environment wsl"),
    ("docker", "a list_resources with environment docker is required"),
    ("container", "list_resources with environment docker and with environment wslc are required"),
    ("no case and no rule", "mcp_only, fresh; nothing else is judged"),
)


class CaseError(ValueError):
    """An invalid case or suite file: file, key and expectation in one line."""

    def __init__(self, file: str, key: str, expected: str, got: object = None) -> None:
        shown = "" if got is None else f", got {json.dumps(got)[:80]}"
        super().__init__(f"{file}: {key or '(top level)'}: expected {expected}{shown}")


@dataclass(frozen=True)
class Intent:
    fresh: bool = True
    sort_by: str | None = None
    sort_order: str = "desc"
    limit: int | None = None
    environment: str | None = None
    resource_kind: str | None = None
    name_contains: str | None = None

    def filters(self) -> dict[str, str]:
        return {k: v for k in FILTERS if (v := getattr(self, k)) is not None}


@dataclass(frozen=True)
class Case:
    id: str
    source: str = "declared"  # "declared" | "inferred"
    title: str = ""
    question: str = ""
    server: str | None = None
    mcp_only: bool = True
    intent: Intent = field(default_factory=Intent)
    required_calls: tuple[tuple[str, Mapping[str, Any]], ...] = ()
    names_top: Mapping[str, Any] | None = None
    hedge_required: bool = False
    judge: tuple[Mapping[str, str], ...] = ()
    fresh_declared: bool = False

    def requested_filters(self) -> dict[str, set[Any]]:
        """Filter values the question asks for: the intent's and those its required calls name."""
        out: dict[str, set[Any]] = {k: {v} for k, v in self.intent.filters().items()}
        for _, where in self.required_calls:
            for key in FILTERS:
                if key in where:
                    out.setdefault(key, set()).add(where[key])
        if any(w.get("environment") in ("docker", "wslc") for _, w in self.required_calls):
            out.setdefault("resource_kind", set()).add("container")
        return out


_CASE_KEYS = {"title", "wsltop_case", "question", "server", "mcp_only", "intent", "required_calls", "answer"}
_INTENT_KEYS = {"fresh", "sort_by", "sort_order", "limit", *FILTERS}
_ANSWER_KEYS = {"names_top", "hedge_required", "judge"}


def _obj(file: str, value: object, key: str, allowed: set[str]) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise CaseError(file, key, "an object", value)
    unknown = sorted(set(value) - allowed)
    if unknown:
        raise CaseError(
            file, f"{key}.{unknown[0]}" if key else unknown[0], f"one of {', '.join(sorted(allowed))}"
        )
    return value


def _enum(file: str, value: object, key: str, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise CaseError(file, key, f"one of {', '.join(allowed)}", value)
    return str(value)


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CaseError(str(path), "", f"a readable file ({exc.strerror})") from None
    except ValueError as exc:
        raise CaseError(str(path), "", f"JSON ({exc})") from None


def load_cases(path: Path) -> dict[str, Case]:
    file = str(path)
    doc = _obj(file, _read_json(path), "", {"schema", "cases"})
    if doc.get("schema") != CASES_SCHEMA:
        raise CaseError(file, "schema", repr(CASES_SCHEMA), doc.get("schema"))
    cases = doc.get("cases")
    if not isinstance(cases, dict) or not cases:
        raise CaseError(file, "cases", "a non-empty object of cases")
    return {str(cid): parse_case(file, str(cid), spec) for cid, spec in cases.items()}


def parse_case(file: str, cid: str, spec: object) -> Case:
    key = f"cases.{cid}"
    raw = _obj(file, spec, key, _CASE_KEYS)
    server = raw.get("server")
    if server is not None:
        _enum(file, server, f"{key}.server", ("observe", "shell"))
    mcp_only = raw.get("mcp_only", True)
    if not isinstance(mcp_only, bool):
        raise CaseError(file, f"{key}.mcp_only", "true or false", mcp_only)
    intent_raw = _obj(file, raw.get("intent", {}), f"{key}.intent", _INTENT_KEYS)
    intent = _intent(file, f"{key}.intent", intent_raw)
    required = []
    calls = raw.get("required_calls", [])
    if not isinstance(calls, list):
        raise CaseError(file, f"{key}.required_calls", "a list", calls)
    for i, entry in enumerate(calls):
        ekey = f"{key}.required_calls[{i}]"
        item = _obj(file, entry, ekey, {"tool", "where"})
        if not isinstance(item.get("tool"), str) or not item["tool"]:
            raise CaseError(file, f"{ekey}.tool", "a tool name", item.get("tool"))
        where = _obj(file, item.get("where", {}), f"{ekey}.where", set(item.get("where", {}) or {}))
        required.append((str(item["tool"]), dict(where)))
    answer = _obj(file, raw.get("answer", {}), f"{key}.answer", _ANSWER_KEYS)
    names_top = answer.get("names_top")
    if names_top is not None:
        top = _obj(file, names_top, f"{key}.answer.names_top", {"sort_by", "environment"})
        _enum(file, top.get("sort_by", "cpu"), f"{key}.answer.names_top.sort_by", SORT_KEYS)
        if "environment" in top:
            _enum(file, top["environment"], f"{key}.answer.names_top.environment", ENVIRONMENTS)
    hedge = answer.get("hedge_required", False)
    if not isinstance(hedge, bool):
        raise CaseError(file, f"{key}.answer.hedge_required", "true or false", hedge)
    judge = answer.get("judge", [])
    if not isinstance(judge, list) or not all(
        isinstance(j, dict) and isinstance(j.get("id"), str) and isinstance(j.get("text"), str) for j in judge
    ):
        raise CaseError(file, f"{key}.answer.judge", 'a list of {"id", "text"}', judge)
    return Case(
        id=cid,
        title=str(raw.get("title", "")),
        question=str(raw.get("question", "")),
        server=server,
        mcp_only=mcp_only,
        intent=intent,
        required_calls=tuple(required),
        names_top=names_top,
        hedge_required=hedge,
        judge=tuple(judge),
        fresh_declared="fresh" in intent_raw,
    )


def _intent(file: str, key: str, raw: Mapping[str, Any]) -> Intent:
    fresh = raw.get("fresh", True)
    if not isinstance(fresh, bool):
        raise CaseError(file, f"{key}.fresh", "true or false", fresh)
    sort_by = raw.get("sort_by")
    if sort_by is not None:
        _enum(file, sort_by, f"{key}.sort_by", SORT_KEYS)
    order = _enum(file, raw.get("sort_order", "desc"), f"{key}.sort_order", SORT_ORDERS)
    limit = raw.get("limit")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
        raise CaseError(file, f"{key}.limit", "an integer >= 0", limit)
    if "environment" in raw:
        _enum(file, raw["environment"], f"{key}.environment", ENVIRONMENTS)
    if "resource_kind" in raw:
        _enum(file, raw["resource_kind"], f"{key}.resource_kind", KINDS)
    if "name_contains" in raw and not isinstance(raw["name_contains"], str):
        raise CaseError(file, f"{key}.name_contains", "a string", raw["name_contains"])
    return Intent(
        fresh=fresh,
        sort_by=sort_by,
        sort_order=order,
        limit=limit,
        environment=raw.get("environment"),
        resource_kind=raw.get("resource_kind"),
        name_contains=raw.get("name_contains"),
    )


def infer(question: str, earlier: bool = False) -> Case:
    """The intent the fixed keyword rules read from a question (``INFERENCE_RULES``); ``earlier``:
    the session asked something before, so a question referring back is a follow-up."""
    q = question.lower()
    superlative = re.search(r"\b(?:most|highest|busiest|biggest|largest|top|heaviest)\b", q) is not None
    memory = re.search(r"\b(?:memory|ram)\b", q) is not None
    sort_by = None
    if superlative:
        sort_by = "memory" if memory else "cpu"
    top = re.search(r"\btop\s+(\d+)\b", q)
    required: list[tuple[str, Mapping[str, Any]]] = []
    if re.search(r"\bcontainers?\b", q):
        required = [
            ("list_resources", {"environment": "docker"}),
            ("list_resources", {"environment": "wslc"}),
        ]
    elif re.search(r"\bdocker\b", q):
        required = [("list_resources", {"environment": "docker"})]
    wsl_process = re.search(r"\bwsl\s+process(?:es)?\b", q) is not None
    environment = "wsl" if wsl_process or (memory and re.search(r"\bwsl\b", q)) else None
    follow_up = (
        earlier and re.search(r"\b(?:it|its|that|this|them|those|underneath|beneath)\b", q) is not None
    )
    intent = Intent(
        fresh=not follow_up,
        sort_by=sort_by,
        limit=int(top.group(1)) if top else None,
        environment=environment,
    )
    return Case(
        id="(inferred)",
        source="inferred",
        question=question,
        intent=intent,
        required_calls=tuple(required),
        fresh_declared=follow_up,
    )


@dataclass(frozen=True)
class Run:
    id: str
    trace: Path
    replay_dir: Path | None
    case: Case | None


def load_suite(path: Path) -> list[Run]:
    """A suite's runs, each with its case: from the suite's ``cases`` file, or without one from its
    scenario's ``eval/cases.json`` (as ``run --scenario DIR`` reads it)."""
    file = str(path)
    doc = _obj(file, _read_json(path), "", {"schema", "cases", "runs"})
    if doc.get("schema") != SUITE_SCHEMA:
        raise CaseError(file, "schema", repr(SUITE_SCHEMA), doc.get("schema"))
    base = path.parent
    shared: dict[str, Case] | None = None
    bundled: dict[Path | None, dict[str, Case]] = {}
    if "cases" in doc:
        if not isinstance(doc["cases"], str):
            raise CaseError(file, "cases", "a path to a cases file", doc["cases"])
        shared = load_cases(base / doc["cases"])
    runs_raw = doc.get("runs")
    if not isinstance(runs_raw, list) or not runs_raw:
        raise CaseError(file, "runs", "a non-empty list")
    runs: list[Run] = []
    for i, entry in enumerate(runs_raw):
        key = f"runs[{i}]"
        item = _obj(file, entry, key, {"id", "trace", "scenario", "case"})
        if not isinstance(item.get("trace"), str):
            raise CaseError(file, f"{key}.trace", "a path to a trace", item.get("trace"))
        for name in ("id", "scenario", "case"):
            if name in item and not isinstance(item[name], str):
                raise CaseError(file, f"{key}.{name}", "a string", item[name])
        replay_dir = base / item["scenario"] if "scenario" in item else None
        case = item.get("case")
        if shared is None and replay_dir not in bundled:
            bundled[replay_dir] = _scenario_cases(replay_dir)
        cases = shared if shared is not None else bundled[replay_dir]
        if case is not None and case not in cases:
            raise CaseError(
                file, f"{key}.case", f"one of the cases ({', '.join(sorted(cases)) or 'none'})", case
            )
        trace = base / item["trace"]
        runs.append(Run(str(item.get("id", trace.stem)), trace, replay_dir, cases[case] if case else None))
    return runs


def _scenario_cases(replay_dir: Path | None) -> dict[str, Case]:
    """The cases a scenario bundles (``eval/cases.json``), none without one."""
    cases = replay_dir / "eval" / "cases.json" if replay_dir is not None else None
    return load_cases(cases) if cases is not None and cases.is_file() else {}
