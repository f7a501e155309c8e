"""What the rubric reads: a trace with its server kinds, investigations, case and replay outcome.

Pure: the replay (``evals.replay``) fills ``replayed``/``tools``/``oracle_top``/``drift`` when it ran.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from wslmcp.evals.bindings import HISTORY_TOOLS, OBSERVE_TOOLS
from wslmcp.evals.cases import Case
from wslmcp.evals.trace import Call, Event, Message, Result, Trace
from wslmcp.observe.queries import DEFAULT_LIMIT

SHELL_PREFIX = "wsl_"
LISTING_DEFAULTS: Mapping[str, Any] = {"sort_by": "cpu", "sort_order": "desc", "limit": DEFAULT_LIMIT}


def server_kinds(trace: Trace, overrides: Mapping[str, str], shell_tools: tuple[str, ...]) -> dict[str, str]:
    """alias -> "observe" | "shell" from the tools its calls name; ``--server`` overrides win."""
    kinds: dict[str, str] = {}
    for call in trace.calls:
        if call.server is None or call.server in kinds:
            continue
        if call.tool in OBSERVE_TOOLS or call.tool in HISTORY_TOOLS:
            kinds[call.server] = "observe"
        elif call.tool in shell_tools:
            kinds[call.server] = "shell"
    kinds.update(overrides)
    return kinds


def investigations(events: list[Event]) -> list[list[Event]]:
    """Each user prompt starts one (prompts in a row join one); events before the first prompt form their own."""
    out: list[list[Event]] = [[]]
    for event in events:
        is_prompt = isinstance(event, Message) and event.role == "user"
        if is_prompt and any(not (isinstance(e, Message) and e.role == "user") for e in out[-1]):
            out.append([])
        out[-1].append(event)
    return [inv for inv in out if inv]


def final_answer(events: list[Event]) -> str:
    """The assistant texts after the investigation's last call, joined by a newline."""
    last = max((i for i, e in enumerate(events) if isinstance(e, Call)), default=-1)
    return "\n".join(e.text for e in events[last + 1 :] if isinstance(e, Message) and e.role == "assistant")


@dataclass
class Session:
    trace: Trace
    kinds: dict[str, str]
    case: Case
    target: int = -1  # the investigation the case applies to
    tools: dict[str, set[str]] = field(default_factory=dict)  # alias -> tools/list (or catalogue)
    replayed: dict[int, Result] = field(default_factory=dict)
    unreplayable: dict[int, str] = field(default_factory=dict)
    drift: list[dict[str, Any]] | None = None  # None: no replay
    oracle_top: list[str] | None = None  # names at the top of the oracle listing, when queried
    distro: str | None = None
    strict_intent: bool = False

    def __post_init__(self) -> None:
        self.investigations = investigations(self.trace.events)

    # ---- calls -------------------------------------------------------------------------------
    def kind(self, call: Call) -> str | None:
        return None if call.server is None else self.kinds.get(call.server)

    def is_observe(self, call: Call) -> bool:
        """A call of observe's snapshot tools (the snapshot discipline applies to these)."""
        return self.kind(call) == "observe" and call.tool in OBSERVE_TOOLS

    def is_history(self, call: Call) -> bool:
        """A call of observe's history tools (facts, but no snapshot selection)."""
        return self.kind(call) == "observe" and call.tool in HISTORY_TOOLS

    def is_shell(self, call: Call) -> bool:
        return self.kind(call) == "shell" and call.tool.startswith(SHELL_PREFIX)

    def result(self, call: Call) -> Result:
        """The recorded result; a hand-written trace without one uses the replayed one."""
        if call.result.status == "missing" and call.n in self.replayed:
            return self.replayed[call.n]
        return call.result

    def ok(self, call: Call) -> bool:
        return self.result(call).status == "ok"

    def calls_in(self, events: list[Event]) -> list[Call]:
        return [e for e in events if isinstance(e, Call)]

    @property
    def target_index(self) -> int:
        return self.target % len(self.investigations) if self.investigations else 0

    @property
    def case_events(self) -> list[Event]:
        return self.investigations[self.target_index] if self.investigations else []

    @property
    def seen_events(self) -> list[Event]:
        """The results the answer may draw on: the case's investigation, and for a follow-up (the case's
        intent is not fresh) every investigation before it, whose snapshot it carries on."""
        if self.case.intent.fresh:
            return self.case_events
        return [e for inv in self.investigations[: self.target_index + 1] for e in inv]

    def args(self, call: Call) -> dict[str, Any]:
        return dict(call.arguments) if isinstance(call.arguments, dict) else {}

    def effective(self, call: Call) -> dict[str, Any]:
        """Listing arguments with the server defaults applied."""
        return {**LISTING_DEFAULTS, **self.args(call)}

    def snapshot_of(self, call: Call) -> str | None:
        structured = self.result(call).structured
        snap = structured.get("snapshot") if structured else None
        sid = snap.get("snapshot_id") if isinstance(snap, dict) else None
        return sid if isinstance(sid, str) else None

    # ---- facts -------------------------------------------------------------------------------
    def resources(self, events: list[Event]) -> Iterator[tuple[Call, dict[str, Any]]]:
        """Every resource object (``resource_id`` + ``usage``) of the successful observe results."""
        for call in self.calls_in(events):
            if not self.is_observe(call) or not self.ok(call):
                continue
            data = (self.result(call).structured or {}).get("data")
            items = data if isinstance(data, list) else [data] if isinstance(data, dict) else []
            for item in items:
                if isinstance(item, dict) and isinstance(item.get("usage"), dict):
                    yield call, item

    def summaries(self, events: list[Event]) -> Iterator[dict[str, Any]]:
        for call in self.calls_in(events):
            if self.is_observe(call) and call.tool == "get_system_summary" and self.ok(call):
                data = (self.result(call).structured or {}).get("data")
                if isinstance(data, dict):
                    yield data

    def names(self, events: list[Event]) -> list[str]:
        seen: list[str] = []
        for _, item in self.resources(events):
            name = item["usage"].get("name")
            if isinstance(name, str) and name and name not in seen:
                seen.append(name)
        return sorted(seen, key=len, reverse=True)
