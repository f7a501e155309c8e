"""What a transcript adapter extracts from one file."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

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


def pair_results(
    calls_by_id: dict[str, ToolCall], collisions: set[str], results: list[RecordedResult]
) -> int:
    """Attach each result to the call with its id; return how many stayed unpaired.

    A result is unpaired when it has no id, its id was used by two calls, no call has it, or the
    call already holds a result. Order is not enforced.
    """
    unpaired = 0
    for result in results:
        call = None
        if result.call_id is not None and result.call_id not in collisions:
            call = calls_by_id.get(result.call_id)
        if call is None or call.result_kind is not None:
            unpaired += 1
            continue
        call.result_bytes = result.byte_count
        call.result_kind = result.kind
    return unpaired


def utf8_size(text: str) -> int | None:
    """UTF-8 byte length, or None when the text cannot be encoded (a lone surrogate)."""
    try:
        return len(text.encode("utf-8"))
    except UnicodeEncodeError:
        return None
