"""What a client's transcript holds, as a stream of events: the one reading of a transcript.

Each client with transcripts has one reader (``claude.ClaudeReading``, ``codex.CodexReading``),
exposed by its backend (``clients/``). It walks the records once and yields:

``Call``     a tool call: its id, the name as written and what it is attributed to, its arguments
             as recorded, the group of calls sent together, whether a subagent made it;
``Repeat``   a call whose id an earlier call claimed: the call is dropped (mcp-top's rule);
``Result``   what came back for an id (a client's own ``recorded()`` measures it for the profiler);
``Message``  a user prompt or an assistant text (only when asked for: the profiler reads none).

Two consumers read the same events: the profiler's call log (``model.CallLog.read``) and the
eval's trace (``evals.extract``), so ``wslmcp profile`` and ``wslmcp eval`` never disagree on what
a transcript holds. What a reading learns besides (versions, timestamps, ids) is on the reading
once the events are read.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from wslmcp.profile.transcripts.names import PREFIX, longest_first, split_mcp_name

if TYPE_CHECKING:
    from wslmcp.profile.transcripts.jsonl import LineStats


@dataclass(slots=True)
class Call:
    """A tool call. The profiler's call log pairs it with its result (``result_bytes``,
    ``result_kind``: its ``ToolCall``)."""

    raw: str  # the tool name as the client wrote it
    kind: str  # "mcp" | "mcp-unattributed" | "builtin"
    server: str | None = None
    tool: str | None = None
    sidechain: bool = False  # a subagent's call (Claude Code ``isSidechain``)
    result_bytes: int | None = None
    result_kind: str | None = None
    id: str | None = None
    arguments: object = None  # as recorded (Codex: a JSON string, as a rule)
    group: object = None  # equal for the calls of one model turn (parallel calls)
    at: object = None  # the record's timestamp, as written (the eval's relative timing)


@dataclass(slots=True)
class Repeat:
    id: str


class Result:
    """What came back for the call ``id``: ``content`` as recorded, and the client's error flag.
    ``counted``: whether the profiler pairs it (mcp-top's rules for the client)."""

    __slots__ = ("content", "counted", "id", "is_error", "sidechain")

    def __init__(
        self,
        call_id: str | None,
        content: object,
        is_error: bool = False,
        sidechain: bool = False,
        counted: bool = True,
    ) -> None:
        self.id = call_id
        self.content = content
        self.is_error = is_error
        self.sidechain = sidechain
        self.counted = counted

    def measure(self) -> tuple[int, str]:
        """(bytes, kind): its size as the profiler counts it, by the client's rules."""
        raise NotImplementedError


@dataclass(slots=True)
class Message:
    role: str  # "user" | "assistant"
    text: str
    at: object = None  # the record's timestamp, as written


Event = Call | Repeat | Result | Message


class Reading(Protocol):
    """One pass over a transcript's records. Iterate it once for the events; then its facts hold."""

    #: the latest readable record timestamp
    last: datetime | None
    #: what the source says of itself (``session_id``, ``model``, ``client_version``), first seen
    source: dict[str, str]

    def __iter__(self) -> Iterator[Event]: ...

    def skip_reason(self, stats: LineStats) -> str | None:
        """Why the transcript is not read (after the events), or None."""
        ...


class Attribution:
    """(kind, server, tool) of a tool name, computed once per name: an MCP server's (configured
    names win, longest first), an unattributed MCP name, or a built-in tool."""

    def __init__(self, configured: Sequence[str]) -> None:
        self._servers = longest_first(configured)
        #: the names attributed so far (a reader looks here first)
        self.known: dict[str, tuple[str, str | None, str | None]] = {}

    def __call__(self, name: str) -> tuple[str, str | None, str | None]:
        known = self.known.get(name)
        if known is None:
            split = split_mcp_name(name, self._servers)
            if split is not None:
                known = ("mcp", split[0], split[1])
            else:
                known = ("mcp-unattributed" if name.startswith(PREFIX) else "builtin", None, None)
            self.known[name] = known
        return known
