"""A person who can say yes: a guard refusal a person may overrule becomes a question to the person
behind the client (MCP elicitation, through the ``Ask`` port the server hands each call).

What is asked: every refusal whose rule is not ``NEVER_ASKED`` (the catastrophes, the operator's deny
patterns, hidden paths and what the guard cannot read are never asked), whichever tool met it:
``wsl_exec``, ``wsl_start``, ``wsl_send_input``, the file tools' paths. A request with one refusal
never asked is refused whole, and the refusal shown is that one. A request to run outside the
sandbox (``unsandboxed: true``) is a refusal of its own rule, ``unsandboxed``, asked every time.

One call, one question: the message names the tool, the request, each rule and its reason. Accept
runs the call once (still in the sandbox, unless the question was to leave it): the call runs again
from the start with those refusals excused, which is safe because a refusal comes before anything
runs. ``always`` approves each (rule, program) of the question for the rest of the session (a file
tool's path counts the tool as its program); later calls are not asked, a different program is.
Decline or cancel refuses, and nothing runs. Every question and answer, and every refusal no one
could be asked about, goes to the audit log and the log.

``WSL_APPROVALS=never`` asks no one: every refusal is final, as before approvals existed.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field, replace

from wslmcp.arguments import quoted
from wslmcp.catalogue import Answer, AnswerLater, Ask, HandOver, Question
from wslmcp.shell.audit import asked
from wslmcp.shell.config import ApprovalMode
from wslmcp.shell.errors import Refused
from wslmcp.shell.guard import Access, Decision, Guard
from wslmcp.shell.guard.policy import askable
from wslmcp.shell.log import Log

PERSISTENCE = "persistence"
"""The rule of a change to what runs later; approved, the sandbox keeps it (``Confine`` "kept")."""
MASS_DELETE = "mass_delete"
"""The rule of a deletion across a home or a writable root: asked each time, never remembered (a yes
to one filter is no yes to the next: ``*.pyc`` today, ``*.py`` later; nothing inside the writable
roots stops it but the guard, and it cannot be undone)."""
UNSANDBOXED = "unsandboxed"
"""The rule of a request to run one command outside the sandbox: always asked, never remembered."""
MAX_QUESTIONS = 3
"""Questions one call may ask (each accepted one excuses at least one refusal, so this is a bound)."""
_SETTINGS = {
    "sudo": "WSL_ALLOW_SUDO=true",
    "windows.interop": "WSL_ALLOW_WINDOWS=true",
    "windows.mnt_write": "WSL_ALLOW_WINDOWS=true",
    "readonly.write": "WSL_READONLY=false",
    "readonly.redirect": "WSL_READONLY=false",
    "allow_commands": "WSL_ALLOW_COMMANDS (with the program)",
    "allowed_paths": "WSL_ALLOWED_PATHS (with the path)",
    UNSANDBOXED: "WSL_SANDBOX=off",
}
"""The setting a person would change to allow what a rule refused, where there is one."""

Key = tuple[str, str, str]  # (rule, program, the offending part)


def _rememberable(refusal: Decision, sandboxed: bool) -> bool:
    """Whether ``always`` may cover ``refusal`` for the session: never a run outside the sandbox or a
    mass deletion, and under the sandbox never a change to what runs later (kept only for a command
    the person saw: the sandbox's after-command check puts back such a change made by any other)."""
    return refusal.rule not in (UNSANDBOXED, MASS_DELETE) and not (sandboxed and refusal.rule == PERSISTENCE)


def setting_for(rule: str | None) -> str | None:
    return _SETTINGS.get(rule or "")


@dataclass
class _Call:
    """The call in progress: its tool, who to ask, what was approved for it, how often it asked."""

    tool: str
    ask: Ask | None
    excused: set[Key] = field(default_factory=set)
    questions: int = 0
    keeps: bool = False  # a person approved, in this call, a change to what runs later: kept


_CALL: ContextVar[_Call | None] = ContextVar("wslmcp_approval_call", default=None)
_ASK: ContextVar[Ask | None] = ContextVar("wslmcp_ask", default=None)


def _program(decision: Decision, tool: str) -> str:
    return decision.program or tool


def _key(decision: Decision, tool: str) -> Key:
    return (decision.rule or "", _program(decision, tool), decision.segment or "")


def _reason(decision: Decision) -> str:
    return (decision.reason or "").removesuffix("; nothing was run")


class Approvals:
    """The session's approvals (``always``) and the questions of each call."""

    def __init__(self, mode: ApprovalMode, log: Log) -> None:
        self.mode = mode
        self.log = log
        self.always: set[tuple[str, str]] = set()

    @contextlib.contextmanager
    def asking(self, ask: Ask | None) -> Iterator[None]:
        """``ask`` is who to ask during the calls made inside (the server sets it per call)."""
        token = _ASK.set(ask)
        try:
            yield
        finally:
            _ASK.reset(token)

    @contextlib.contextmanager
    def call(self, tool: str) -> Iterator[None]:
        """One tool call: what a person approves inside it holds until it ends."""
        token = _CALL.set(_Call(tool, _ASK.get()))
        try:
            yield
        finally:
            _CALL.reset(token)

    def keeps(self) -> bool:
        """Whether a person approved, answering for the call in progress (never through ``always``),
        a change to what runs later (rule ``persistence``): the sandbox's after-command check then
        leaves the command's changes in place (they saw the whole command)."""
        call = _CALL.get()
        return call is not None and call.keeps

    def excused(self, decision: Decision) -> bool:
        """Every refusal of ``decision`` was approved: for this call, or for the session (``always``)."""
        call = _CALL.get()
        if call is None or decision.allowed or not decision.askable:
            return False
        return all(self._approved(r, call) for r in decision.refusals)

    def _approved(self, refusal: Decision, call: _Call) -> bool:
        if _key(refusal, call.tool) in call.excused:
            return True
        return (
            refusal.rule != UNSANDBOXED and (refusal.rule or "", _program(refusal, call.tool)) in self.always
        )

    def leaving(self, command: str, sandboxed: bool) -> Decision | None:
        """The refusal a request to run ``command`` outside the sandbox is, until a person approves
        it for this call (None: approved, or there is no sandbox to leave)."""
        if not sandboxed:
            return None
        decision = Decision.reject(
            UNSANDBOXED,
            command,
            "unsandboxed: true runs this command outside the sandbox, where it can write anywhere the user "
            "can, read hidden credentials and use sudo; a person must approve it; nothing was run",
        )
        call = _CALL.get()
        return None if call is not None and _key(decision, call.tool) in call.excused else decision

    async def settle(self, refused: Refused, *, sandboxed: bool) -> Refused | None:
        """Put ``refused`` to a person: None when approved (run the call again), else the refusal to
        answer with, saying why no one said yes. ``sandboxed``: what runs is confined."""
        call = _CALL.get()
        decision = refused.decision
        if call is None:
            return refused
        never = next((r for r in decision.refusals if not askable(r.rule)), None)
        if never is not None:
            return refused if never is decision else Refused(never, refused.action)
        if self.mode == "never":  # every refusal is final, and says so as before approvals existed
            asked(self._record(decision.refusals, call.tool, None, answer="not asked: WSL_APPROVALS=never"))
            return refused
        if call.ask is None:
            return self._unasked(refused, call, "this client does not support MCP elicitation")
        if call.questions >= MAX_QUESTIONS:
            return self._unasked(refused, call, f"this call already asked {MAX_QUESTIONS} questions")
        call.questions += 1
        question = self.question(refused, call.tool, sandboxed)
        try:
            answer = await call.ask(question)
        except HandOver:  # the door: the SDK's session asks, and records, when it runs the call again
            raise
        except AnswerLater:  # 2026-07-28: the client asks, then calls again with the answer
            asked(
                self._record(
                    refused.decision.refusals, call.tool, question, answer="pending (input_required)"
                )
            )
            raise
        return self._answered(refused, call, question, answer, sandboxed)

    def question(self, refused: Refused, tool: str, sandboxed: bool) -> Question:
        """One short message: the tool, the request, each rule and why; and the ``always`` field."""
        refusals = refused.decision.refusals
        leaving = any(r.rule == UNSANDBOXED for r in refusals)
        rules = [r for r in refusals if r.rule != UNSANDBOXED]
        where = "OUTSIDE the sandbox" if leaving else "once, still in the sandbox" if sandboxed else "once"
        lines = [f"Allow {tool} to do this {where}?", quoted(refused.action, 300)]
        lines += [f"Refused by {r.rule}: {quoted(_reason(r), 200)}" for r in rules]
        if leaving:
            lines.append(
                "Outside the sandbox it can write anywhere you can, read your credentials and use sudo."
            )
        pairs = sorted({f"{r.rule} for {_program(r, tool)}" for r in rules if _rememberable(r, sandboxed)})
        return Question("\n".join(lines), f"Always allow {', '.join(pairs)} this session" if pairs else None)

    def _answered(
        self, refused: Refused, call: _Call, question: Question, answer: Answer, sandboxed: bool
    ) -> Refused | None:
        refusals = refused.decision.refusals
        record = self._record(refusals, call.tool, question, answer=answer.action)
        if answer.always and answer.action == "accept" and question.always is not None:
            record["always"] = True
        if answer.failed is not None:
            record["failed"] = answer.failed
        asked(record)
        self.log.info(
            "asked a person",
            tool=call.tool,
            rules=record["rules"],
            answer=answer.action,
            always=answer.always,
        )
        if answer.action != "accept":
            said = (
                "declined"
                if answer.action == "decline"
                else f"dismissed the question ({answer.failed or 'cancel'})"
            )
            return refused.noted(f"A person was asked and {said}. Do not ask again for the same thing.")
        call.excused.update(_key(r, call.tool) for r in refusals)
        call.keeps = call.keeps or any(r.rule == PERSISTENCE for r in refusals)
        if record.get("always"):
            self.always.update(
                (r.rule or "", _program(r, call.tool)) for r in refusals if _rememberable(r, sandboxed)
            )
        return None

    def _unasked(self, refused: Refused, call: _Call, why: str) -> Refused:
        refusals = refused.decision.refusals
        asked(self._record(refusals, call.tool, None, answer=f"not asked: {why}"))
        ways = ["approve it when a client with MCP elicitation asks"]
        settings = sorted({s for r in refusals if (s := setting_for(r.rule)) is not None})
        if settings:
            ways.append(f"set {' and '.join(settings)} for this server")
        return refused.noted(f"No person was asked ({why}); a person can allow it: {', or '.join(ways)}.")

    def _record(
        self, refusals: tuple[Decision, ...], tool: str, question: Question | None, *, answer: str
    ) -> dict[str, object]:
        """An audit record: the question (None: no one was asked), its rules and programs, the answer."""
        return {
            "question": question.message if question is not None else None,
            "rules": [r.rule for r in refusals],
            "programs": sorted({_program(r, tool) for r in refusals}),
            "answer": answer,
        }

    def noted_always(self, decision: Decision) -> None:
        """A refusal let through by an earlier ``always``: into the audit log, as an answer."""
        call = _CALL.get()
        tool = call.tool if call is not None else ""
        if call is not None and not all(_key(r, tool) in call.excused for r in decision.refusals):
            asked(self._record(decision.refusals, tool, None, answer="accept (always, earlier)"))


class ApprovingGuard(Guard):
    """The guard the service and the file tools hold: the inner guard's refusal, unless a person
    approved every part of it (``Approvals.excused``), in which case the request is allowed."""

    def __init__(self, inner: Guard, approvals: Approvals) -> None:
        super().__init__(inner.policy)
        self.inner = inner
        self.approvals = approvals

    def _passed(self, decision: Decision) -> Decision:
        if decision.allowed or not self.approvals.excused(decision):
            return decision
        self.approvals.noted_always(decision)
        return Decision.allow()

    def check_command(self, command: str, cwd: str | None = None) -> Decision:
        return self._passed(self.inner.check_command(command, cwd))

    def check_cwd(self, path: str) -> Decision:
        return self._passed(self.inner.check_cwd(path))

    def check_path(self, path: str, access: Access) -> Decision:
        return self._passed(self.inner.check_path(path, access))

    def check_local_path(self, path: str, access: Access) -> Decision:
        return self._passed(self.inner.check_local_path(path, access))


def joined(decision: Decision, leaving: Decision | None) -> Decision:
    """A command's refusal and its request to leave the sandbox, as one refusal (one question)."""
    if leaving is None:
        return decision
    if decision.allowed:
        return leaving
    return replace(decision, others=(*decision.others, leaving))
