"""Codex rollouts: ``~/.codex/sessions/**/rollout-*.jsonl``, admitted by structure (a session_meta).

Each rollout is its own session group, keyed by file name. The project is the recorded ``cwd``.

``CodexReading`` is the client's one reader (``events``): ``function_call``/``custom_tool_call``
response items are calls (with a ``namespace`` of ``mcp__<server>``, that server's; without one,
built-in), the calls between two other items were sent together; their outputs are results (the
profiler, as mcp-top, pairs only ``function_call_output``); a call whose id an earlier named call
claimed is dropped. Messages: ``message`` items of the user and the assistant, not the
``<environment_context>``/``<user_instructions>`` Codex sends itself; ``reasoning`` is no part.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Any

from wslmcp.boundaries.client_files import ClientFiles
from wslmcp.profile.attribution import normalize_project_key
from wslmcp.profile.transcripts.events import Call, Event, Message, Repeat, Result
from wslmcp.profile.transcripts.jsonl import LineStats, latest, records
from wslmcp.profile.transcripts.model import UNSUPPORTED, CallLog, Transcript, text_size
from wslmcp.profile.transcripts.names import PREFIX

_CALL_TYPES = ("function_call", "custom_tool_call")
_OUTPUT_TYPES = ("function_call_output", "custom_tool_call_output")
_CONTEXT = ("<environment_context>", "<user_instructions>")


def sessions_root(home: str) -> str:
    return f"{home.rstrip('/')}/.codex/sessions"


def find(files: ClientFiles, home: str) -> Iterator[str]:
    """Every ``rollout-*.jsonl`` below ``sessions/`` outside dot-directories, sorted."""
    root = sessions_root(home)
    for info in files.iter_files(root, ".jsonl"):
        rel = info.path[len(root) + 1 :].split("/")
        if rel[-1].startswith("rollout-") and not any(part.startswith(".") for part in rel[:-1]):
            yield info.path


def session_key(path: str) -> str:
    return path.rsplit("/", 1)[-1].removesuffix(".jsonl")


def parse(files: ClientFiles, path: str) -> Transcript:
    """The profiler's reading of one rollout: its calls, with their results paired."""
    stats = LineStats()
    reading = CodexReading(records(files, path, stats, exact_numbers=False))
    log = CallLog.read(reading)
    if stats.error is not None:
        return Transcript(path, "skipped", stats.error)
    project = None if reading.cwd is None else normalize_project_key(reading.cwd)
    return log.transcript(
        path, reading.skip_reason(stats), last_ts=reading.last, bad_lines=stats.bad, project=project
    )


class CodexResult(Result):
    """An output; the profiler counts only ``function_call_output`` ones (as mcp-top)."""

    __slots__ = ()

    def measure(self) -> tuple[int, str]:
        return text_size(self.content) if isinstance(self.content, str) else (0, UNSUPPORTED)


def _attribution(namespace: object) -> tuple[str, str | None]:
    """(kind, server) of a call by its namespace."""
    if not isinstance(namespace, str) or not namespace.startswith(PREFIX):
        return "builtin", None
    if namespace == PREFIX:
        return "mcp-unattributed", None
    return "mcp", namespace[len(PREFIX) :]


class CodexReading:
    """One pass over a Codex rollout's records (see the module's docstring). ``configured`` is
    taken as every reader takes it; a call's namespace names its server."""

    def __init__(
        self, records: Iterable[dict[str, Any]], configured: Iterable[str] = (), *, messages: bool = False
    ) -> None:
        self._records = records
        self._messages = messages
        self.last: datetime | None = None
        self.source: dict[str, str] = {}
        self.saw_meta = False
        #: the first non-empty ``cwd`` a session_meta names
        self.cwd: str | None = None

    def __iter__(self) -> Iterator[Event]:
        seen: set[str] = set()
        group, open_group = 0, False
        for record in self._records:
            self.last = latest(self.last, record.get("timestamp"))
            payload = record.get("payload")
            if not isinstance(payload, dict):
                continue
            kind = record.get("type")
            if kind == "session_meta":
                self._meta(payload)
                continue
            if kind == "turn_context" and isinstance(payload.get("model"), str):
                self.source.setdefault("model", payload["model"])
            if kind != "response_item":
                continue
            item = payload.get("type")
            if item in _CALL_TYPES:
                turn = group if open_group else group + 1
                event = self._call(payload, seen, turn)
                if isinstance(event, Call):
                    group, open_group = turn, True
                    if self._messages:  # the eval's timing
                        event.at = record.get("timestamp")
                if event is not None:
                    yield event
                continue
            open_group = False  # a message or an output ends a group of calls
            if item in _OUTPUT_TYPES:
                raw_id = payload.get("call_id")
                call_id = raw_id if isinstance(raw_id, str) else None
                yield CodexResult(call_id, payload.get("output"), counted=item == "function_call_output")
            elif item == "message" and self._messages:
                said = _message(payload)
                if said is not None:
                    said.at = record.get("timestamp")
                    yield said

    def _meta(self, payload: dict[str, Any]) -> None:
        self.saw_meta = True
        cwd = payload.get("cwd")
        if self.cwd is None and isinstance(cwd, str) and cwd != "":
            self.cwd = cwd
        for key, name in (("id", "session_id"), ("cli_version", "client_version")):
            if isinstance(payload.get(key), str):
                self.source.setdefault(name, payload[key])

    @staticmethod
    def _call(payload: dict[str, Any], seen: set[str], group: int) -> Call | Repeat | None:
        raw_id = payload.get("call_id")
        call_id = raw_id if isinstance(raw_id, str) else None
        if call_id is not None and call_id in seen:
            return Repeat(call_id)
        name = payload.get("name")
        if not isinstance(name, str):
            return None
        if call_id is not None:
            seen.add(call_id)
        kind, server = _attribution(payload.get("namespace"))
        arguments = payload.get("arguments", payload.get("input"))
        return Call(
            name, kind, server, name if server else None, id=call_id, arguments=arguments, group=group
        )

    def skip_reason(self, stats: LineStats) -> str | None:
        return "no session metadata found" if not self.saw_meta else stats.too_many_bad()


def _message(payload: dict[str, Any]) -> Message | None:
    role = payload.get("role")
    content = payload.get("content")
    if role not in ("user", "assistant") or not isinstance(content, list):
        return None
    wanted = "input_text" if role == "user" else "output_text"
    texts = [
        str(b["text"])
        for b in content
        if isinstance(b, dict) and b.get("type") in (wanted, "text") and isinstance(b.get("text"), str)
    ]
    text = "\n".join(texts)
    if not texts or (role == "user" and text.lstrip().startswith(_CONTEXT)):
        return None
    return Message(str(role), text)
