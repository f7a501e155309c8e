"""What a transcript adapter extracts from one file."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from wslmcp.profile.transcripts.events import Call, Event, Repeat, Result
from wslmcp.profile.transcripts.long_lines import Measured

PAIRED = "paired"
PARTIAL = "partial"
UNSUPPORTED = "unsupported"
UNMEASURABLE = "unmeasurable"


#: A tool call as the profiler counts it: the reader's call, paired with its result.
ToolCall = Call
#: A result as the call log keeps it: (call id, bytes, kind), measured as it is read.
RecordedResult = tuple[str | None, int, str]


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
    """The tool calls of one transcript, indexed by call id, and the results recorded for them: the
    profiler's reading of a client's events (``read``).

    A string id used by a second call is a collision: that call is dropped (counted in
    ``duplicates``) and no result pairs with the id.
    """

    calls: list[ToolCall] = field(default_factory=list)
    results: list[RecordedResult] = field(default_factory=list)
    duplicates: int = 0
    _by_id: dict[str, ToolCall] = field(default_factory=dict)
    _collisions: set[str] = field(default_factory=set)

    @classmethod
    def read(cls, events: Iterable[Event]) -> CallLog:
        log = cls()
        calls, results, by_id = log.calls, log.results, log._by_id
        for event in events:
            if type(event) is Call:
                event.arguments = event.group = None  # the profiler keeps neither: let them go
                calls.append(event)
                if event.id is not None:
                    by_id[event.id] = event
            elif isinstance(event, Result):
                if event.counted:
                    size, kind = event.measure()
                    results.append((event.id, size, kind))
            elif type(event) is Repeat:
                log.duplicates += 1
                log._collisions.add(event.id)
        return log

    def _pair(self) -> int:
        """Attach each result to the call with its id; return how many stayed unpaired.

        A result is unpaired when it has no id, its id was used by two calls, no call has it, or
        the call already holds a result. Order is not enforced.
        """
        unpaired = 0
        for call_id, size, kind in self.results:
            call = None
            if call_id is not None and call_id not in self._collisions:
                call = self._by_id.get(call_id)
            if call is None or call.result_kind is not None:
                unpaired += 1
                continue
            call.result_bytes = size
            call.result_kind = kind
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


def text_size(text: str) -> tuple[int, str]:
    """A result recorded as one string: its UTF-8 size, or unmeasurable (a lone surrogate)."""
    size = utf8_size(text)
    return (0, UNMEASURABLE) if size is None else (size, PAIRED)


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
