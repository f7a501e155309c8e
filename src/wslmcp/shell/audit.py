"""The audit log: one JSON line per tool call that reaches the guard.

``WSL_AUDIT_LOG=PATH`` turns it on; ``WSL_AUDIT_REQUIRED=true`` refuses a tool call (nothing runs)
when the log cannot be written. A line holds:

``time`` (UTC, ISO 8601), ``tool``, ``session`` (or null), ``subjects`` (what the guard judged,
in order: ``{"command": …, "cwd": …}`` or ``{"path": …, "access": …}``, secrets redacted, each
text at most ``AUDIT_TEXT_CHARS`` characters and ``… (N more characters)``; a
background process read or stopped is ``{"process": …, "command": …}``),
``verdict`` (``allow`` or ``reject``) and ``rule`` (the first refusal's rule, else null),
``exit_code`` (when a command ran), ``duration_ms``, ``bytes_in`` (bytes the caller sent: a
command, a file's content, an upload's size is not known here and is null) and ``bytes_out``
(bytes of the reply); ``approval`` when a refusal was put to a person (``approvals``): one record
per question, ``{question, rules, programs, answer[, always][, failed]}`` (``question`` null and
``answer`` ``not asked: WHY`` when no one could be asked), and ``verdict`` is ``approved`` once a
person said yes. Never file contents,
never environment values.

How it hooks in: ``Audit.call(tool, arguments)`` wraps one tool call; ``AuditedGuard`` (what the
service and the file tools are given instead of the plain guard) notes every decision into the
call in progress, through a context variable, so a call that never reaches the guard writes no
line. Writes go through ``boundaries.audit_log.AuditLogFile``: append-only, one write per line.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import re
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import UTC, datetime

from wslmcp.arguments import quoted
from wslmcp.boundaries.audit_log import AuditLogFile
from wslmcp.boundaries.bundle import Boundaries
from wslmcp.boundaries.clock import Clock
from wslmcp.catalogue import HandOver
from wslmcp.shell.config import ShellConfig
from wslmcp.shell.guard import Access, Decision, Guard, Policy
from wslmcp.shell.replies import render
from wslmcp.shell.results import Noted, Ran, Refusal, Result

REDACTED = "***"
AUDIT_TEXT_CHARS = 4096  # of a command, path or directory; the rest is counted (``bytes_in`` has the size)

_SECRET_NAME = r"(?:[A-Za-z0-9_]*(?:pass(?:word|wd|phrase)?|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|auth|credential|session[_-]?key|client[_-]?secret))"
_REDACTIONS: tuple[tuple[re.Pattern[str], str], ...] = (
    # scheme://user:password@host
    (re.compile(r"(\b[a-z][a-z0-9+.-]*://[^\s/:@'\"]+:)[^\s@'\"]+(@)", re.I), r"\1" + REDACTED + r"\2"),
    # Authorization / X-Api-Key style headers
    (re.compile(r"((?:authorization|proxy-authorization|x-api-key|x-auth-token|cookie)\s*:\s*(?:bearer\s+|basic\s+|token\s+)?)[^\s'\"]+", re.I), r"\1" + REDACTED),
    # NAME=value and --name=value, ?name=value&…, "name": "value"
    (re.compile(r"(\b" + _SECRET_NAME + r"\s*[=:]\s*['\"]?)[^\s&'\";]+", re.I), r"\1" + REDACTED),
    # --password value, -p value for the tools that take a password that way
    (re.compile(r"(--?" + _SECRET_NAME + r"\s+['\"]?)[^\s'\"]+", re.I), r"\1" + REDACTED),
    (re.compile(r"(\b(?:mysql|mariadb|psql|sshpass|smbclient)\b[^|;&]*?\s-p)(\S+)"), r"\1" + REDACTED),
    (re.compile(r"(\b(?:curl|wget)\b[^|;&]*?\s(?:-u|--user)\s+['\"]?[^:\s'\"]+:)[^\s'\"]+"), r"\1" + REDACTED),
    # token shapes that are secret wherever they appear
    (re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{16,}|"
                r"sk-[A-Za-z0-9_-]{16,}|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,}|"
                r"eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})"), REDACTED),
)  # fmt: skip


def redact(text: str) -> str:
    """``text`` with passwords, tokens and keys replaced by ``***`` (arguments, URLs, headers)."""
    for pattern, replacement in _REDACTIONS:
        text = pattern.sub(replacement, text)
    return text


class AuditUnavailable(Exception):
    """The audit log is required and cannot be written; the tool call must not run."""

    def __init__(self, path: str, cause: OSError) -> None:
        super().__init__(
            f"the audit log {path} cannot be written ({cause.strerror or cause}) and WSL_AUDIT_REQUIRED "
            "is true, so no tool call runs; fix the path or its permissions; nothing was run"
        )


@dataclass
class Call:
    """One tool call in progress: what the guard judged, and how it ended."""

    tool: str
    session: str | None
    started: float
    wall: float
    bytes_in: int | None
    subjects: list[dict[str, str | None]] = field(default_factory=list)
    verdict: str = "allow"
    rule: str | None = None
    exit_code: int | None = None
    bytes_out: int | None = None
    approvals: list[dict[str, object]] = field(default_factory=list)

    def judged(self, subject: dict[str, str | None], decision: Decision) -> None:
        if subject not in self.subjects:  # a call run again after a person approved it
            self.subjects.append(subject)
        if not decision.allowed and self.verdict == "allow":
            self.verdict, self.rule = "reject", decision.rule

    def asked(self, record: dict[str, object]) -> None:
        """A question put to a person and the answer (or why no one was asked)."""
        self.approvals.append(record)
        if str(record.get("answer", "")).startswith("accept") and self.verdict == "reject":
            self.verdict = "approved"

    def finished(self, text: str, exit_code: int | None, refused: str | None = None) -> None:
        """The reply: its size, the command's exit code (None when no command ran), and the rule of
        the refusal it answers with (a call a person approved may still end refused)."""
        self.bytes_out = len(text.encode("utf-8", "surrogatepass"))
        self.exit_code = exit_code
        if refused is not None:
            self.verdict, self.rule = "reject", refused


_CURRENT: ContextVar[Call | None] = ContextVar("wslmcp_audit_call", default=None)

_INPUT_ARGUMENTS = ("command", "content", "text")  # text: wsl_send_input's input


class Audit:
    def __init__(self, sink: AuditLogFile, clock: Clock, *, path: str, required: bool) -> None:
        self.sink = sink
        self.clock = clock
        self.path = path
        self.required = required

    @contextlib.contextmanager
    def call(self, tool: str, arguments: Mapping[str, object]) -> Iterator[Call]:
        """Wrap one tool call. Raises ``AuditUnavailable`` before anything runs when the log is
        required and cannot be opened; a line is written on the way out if the guard was reached."""
        if self.required:
            try:
                self.sink.ready()
            except OSError as exc:
                raise AuditUnavailable(self.path, exc) from exc
        session = arguments.get("session")
        sent = [v for k, v in arguments.items() if k in _INPUT_ARGUMENTS and isinstance(v, str)]
        call = Call(
            tool=tool,
            session=session if isinstance(session, str) else None,
            started=self.clock.monotonic(),
            wall=self.clock.wall(),
            bytes_in=sum(len(v.encode("utf-8", "surrogatepass")) for v in sent) if sent else None,
        )
        token = _CURRENT.set(call)
        handed_over = False
        try:
            yield call
        except HandOver:  # answered again from the start by the SDK's session, which writes the line
            handed_over = True
            raise
        finally:
            _CURRENT.reset(token)
            if call.subjects and not handed_over:
                self.write(call)

    def write(self, call: Call) -> None:
        record: dict[str, object] = {
            "time": datetime.fromtimestamp(call.wall, UTC).isoformat(timespec="milliseconds"),
            "tool": call.tool,
            "session": call.session,
            "subjects": call.subjects,
            "verdict": call.verdict,
            "rule": call.rule,
            "exit_code": call.exit_code,
            "duration_ms": round((self.clock.monotonic() - call.started) * 1000, 3),
            "bytes_in": call.bytes_in,
            "bytes_out": call.bytes_out,
        }
        if call.approvals:
            record["approval"] = call.approvals
        line = json.dumps(record, ensure_ascii=True, separators=(",", ":")) + "\n"
        try:
            self.sink.append(line.encode("ascii"))
        except OSError:
            if self.required:
                raise


def arguments(
    method: Callable[..., object], owner: object, args: tuple[object, ...], kwargs: Mapping[str, object]
) -> dict[str, object]:
    """A tool method's arguments by name (positional ones too)."""
    try:
        bound = inspect.signature(method).bind_partial(owner, *args, **kwargs)
    except TypeError:
        return dict(kwargs)
    return {k: v for k, v in bound.arguments.items() if v is not owner}


async def audited(
    audit: Audit, tool: str, args: Mapping[str, object], run: Callable[[], Awaitable[Result]]
) -> Result:
    """Run one tool call under the audit log (the service's one hook). When the log is required
    and cannot be written the call does not run: ``AuditUnavailable`` propagates to the caller."""
    with audit.call(tool, args) as call:
        result = await run()
        ran = result.result if isinstance(result, Noted) else result
        call.finished(
            render(result).text,
            exit_code=ran.outcome.exit_code if isinstance(ran, Ran) else None,
            refused=ran.refused.decision.rule if isinstance(ran, Refusal) else None,
        )
        return result


def asked(record: dict[str, object]) -> None:
    """Note into the call in progress a question put to a person and its answer, or why no one
    was asked (``approvals``); the question's subject is the call's."""
    call = _CURRENT.get()
    if call is not None:
        call.asked({k: redact(quoted(v, 600)) if isinstance(v, str) else v for k, v in record.items()})


def acted_on(subject: dict[str, str | None]) -> None:
    """Note into the call in progress a subject no guard decision covers (the background process a
    wsl_read_output reads or a wsl_stop ends: its command was judged when it started), so the call
    has its line."""
    _note(subject, Decision.allow())


def _note(subject: dict[str, str | None], decision: Decision) -> Decision:
    call = _CURRENT.get()
    if call is not None:
        call.judged({k: _kept(v) if isinstance(v, str) else v for k, v in subject.items()}, decision)
    return decision


def _kept(text: str) -> str:
    """What the log keeps of a subject's text: redacted, and at most ``AUDIT_TEXT_CHARS``
    characters with how many more there were (a refused 1 MB command is one line of a few KB)."""
    return quoted(redact(text), AUDIT_TEXT_CHARS)


class AuditedGuard(Guard):
    """The guard, noting each decision into the tool call in progress (see ``Audit.call``)."""

    def __init__(self, policy: Policy) -> None:
        super().__init__(policy)

    def check_command(self, command: str, cwd: str | None = None) -> Decision:
        return _note({"command": command, "cwd": cwd}, super().check_command(command, cwd))

    def check_cwd(self, path: str) -> Decision:
        return _note({"cwd": path}, super().check_cwd(path))

    def check_path(self, path: str, access: Access) -> Decision:
        return _note({"path": path, "access": access}, super().check_path(path, access))

    def check_local_path(self, path: str, access: Access) -> Decision:
        return _note({"local_path": path, "access": access}, super().check_local_path(path, access))


def audit_of(config: ShellConfig, boundaries: Boundaries) -> Audit | None:
    """The audit log ``WSL_AUDIT_LOG`` asks for, appending to that file, or None."""
    if config.audit_log is None:
        return None
    return Audit(
        boundaries.audit_log(config.audit_log),
        boundaries.clock,
        path=config.audit_log,
        required=config.audit_required,
    )
