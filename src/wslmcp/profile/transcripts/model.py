"""What a transcript adapter extracts from one file."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from wslmcp.profile.transcripts.long_lines import Measured

PAIRED = "paired"
PARTIAL = "partial"
UNSUPPORTED = "unsupported"
UNMEASURABLE = "unmeasurable"


@dataclass(slots=True)
class ToolCall:
    raw: str
    kind: str  # "mcp" | "mcp-unattributed" | "builtin"
    server: str | None = None
    tool: str | None = None
    sidechain: bool = False
    result_bytes: int | None = None
    result_kind: str | None = None


@dataclass(frozen=True, slots=True)
class RecordedResult:
    call_id: str | None
    byte_count: int
    kind: str


@dataclass
class Transcript:
    """One transcript file: ``status`` is "parsed" or "skipped" (with ``skip_reason``)."""

    path: str
    status: str
    skip_reason: str | None = None
    calls: list[ToolCall] = field(default_factory=list)
    last_ts: datetime | None = None
    bad_lines: int = 0
    duplicate_tool_use: int = 0
    project: str | None = None
    unpaired_results: int = 0

    @property
    def parsed(self) -> bool:
        return self.status == "parsed"


@dataclass
class CallLog:
    """The tool calls of one transcript, indexed by call id, and the results recorded for them.

    A string id used by a second call is a collision: that call is dropped (counted in
    ``duplicates``) and no result pairs with the id.
    """

    calls: list[ToolCall] = field(default_factory=list)
    results: list[RecordedResult] = field(default_factory=list)
    duplicates: int = 0
    _by_id: dict[str, ToolCall] = field(default_factory=dict)
    _seen: set[str] = field(default_factory=set)
    _collisions: set[str] = field(default_factory=set)

    def repeated(self, call_id: object) -> bool:
        """True, and counted, when ``call_id`` is a string an earlier call already claimed."""
        if isinstance(call_id, str) and call_id in self._seen:
            self._collisions.add(call_id)
            self.duplicates += 1
            return True
        return False

    def add_new(self, call: ToolCall | None, call_id: object) -> None:
        """``add`` the call unless its id is ``repeated``; a new string id is reserved even with
        no call to keep (a nameless one): it still collides later."""
        if self.repeated(call_id):
            return
        if call is not None:
            self.add(call, call_id)
        elif isinstance(call_id, str):
            self._seen.add(call_id)

    def add(self, call: ToolCall, call_id: object) -> None:
        self.calls.append(call)
        if isinstance(call_id, str):
            self._seen.add(call_id)
            self._by_id[call_id] = call

    def _pair(self) -> int:
        """Attach each result to the call with its id; return how many stayed unpaired.

        A result is unpaired when it has no id, its id was used by two calls, no call has it, or
        the call already holds a result. Order is not enforced.
        """
        unpaired = 0
        for result in self.results:
            call = None
            if result.call_id is not None and result.call_id not in self._collisions:
                call = self._by_id.get(result.call_id)
            if call is None or call.result_kind is not None:
                unpaired += 1
                continue
            call.result_bytes = result.byte_count
            call.result_kind = result.kind
        return unpaired

    def transcript(
        self, path: str, skip: str | None, *, last_ts: datetime | None, bad_lines: int, project: str | None
    ) -> Transcript:
        """The file's outcome: parsed (its calls, results paired) or, with ``skip``, skipped."""
        parsed = skip is None
        return Transcript(
            path,
            "parsed" if parsed else "skipped",
            skip,
            calls=self.calls if parsed else [],
            last_ts=last_ts,
            bad_lines=bad_lines,
            duplicate_tool_use=self.duplicates,
            project=project,
            unpaired_results=self._pair() if parsed else 0,
        )


def text_result(call_id: str | None, text: str) -> RecordedResult:
    """A result recorded as one string: its UTF-8 size, or unmeasurable (a lone surrogate)."""
    size = utf8_size(text)
    return RecordedResult(call_id, 0, UNMEASURABLE) if size is None else RecordedResult(call_id, size, PAIRED)


def utf8_size(text: str) -> int | None:
    """UTF-8 byte length, or None when the text cannot be encoded (a lone surrogate). A long
    string's stand-in (``long_lines.Measured``) carries the size of the whole string."""
    if isinstance(text, Measured):
        return text.utf8
    if text.isascii():  # a flag CPython keeps: no copy to measure
        return len(text)
    try:
        return len(text.encode("utf-8"))
    except UnicodeEncodeError:
        return None
