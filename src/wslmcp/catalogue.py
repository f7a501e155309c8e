"""What an MCP tool is, as plain data, for every server of ours: the catalogue entry a server
lists and the answer a tool gives.

Both servers (observe, shell) describe their tools as ``ToolSpec`` values in their ``tools.py``
and answer with ``Reply``; ``wslmcp.serving`` turns them into the SDK's server, and
``wslmcp.stdio``'s front door lists them before the SDK has loaded. Nothing here imports the SDK.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

INVALID_ARGUMENTS = "invalid_arguments"
INVALID_ARGUMENTS_LEAD = "invalid arguments for "
"""How the message of every argument error starts (either protocol form), so a transcript that
kept only the text still shows which errors were the caller's arguments."""


def nullable(kind: str) -> dict[str, Any]:
    """A value of JSON type ``kind`` or null, spelt with one type per branch (the most portable form)."""
    return {"anyOf": [{"type": kind}, {"type": "null"}]}


ERROR_SCHEMA = {
    "type": "object",
    "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
    "required": ["code", "message"],
}


def output_schema(properties: Mapping[str, Any], required: Sequence[str]) -> dict[str, Any]:
    """A tool's ``structuredContent``: a success with ``properties`` (``required`` present), or a
    failure ``{"error": {"code", "message"}}``. Clients check error results against it too."""
    return {
        "type": "object",
        "properties": {**properties, "error": ERROR_SCHEMA},
        "anyOf": [{"required": list(required)}, {"required": ["error"]}],
    }


@dataclass(frozen=True)
class Hints:
    """The behaviour hints a client may show or act on (MCP tool annotations)."""

    read_only: bool
    destructive: bool
    idempotent: bool
    open_world: bool

    def as_annotations(self, title: str) -> dict[str, Any]:
        return {
            "title": title,
            "readOnlyHint": self.read_only,
            "destructiveHint": self.destructive,
            "idempotentHint": self.idempotent,
            "openWorldHint": self.open_world,
        }


@dataclass(frozen=True)
class ToolSpec:
    """One tool as ``tools/list`` shows it. Schemas are JSON Schema objects, written as data."""

    name: str
    title: str
    description: str
    input_schema: Mapping[str, Any]
    output_schema: Mapping[str, Any]
    hints: Hints

    def listing(self) -> dict[str, Any]:
        """The tool's ``tools/list`` entry (wire names)."""
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "inputSchema": dict(self.input_schema),
            "outputSchema": dict(self.output_schema),
            "annotations": self.hints.as_annotations(self.title),
        }


@dataclass(frozen=True)
class Reply:
    """A tool's reply: the text a model reads and the same facts as ``structuredContent``."""

    text: str
    structured: Mapping[str, Any]
    is_error: bool = False


def error_reply(code: str, message: str) -> Reply:
    """A tool error: ``{"error": {"code", "message"}}`` beside the message as text."""
    return Reply(message, {"error": {"code": code, "message": message}}, is_error=True)


def json_reply(payload: Mapping[str, Any], *, is_error: bool = False) -> Reply:
    """An answer whose text is the compact JSON of its ``structuredContent``."""
    return Reply(json.dumps(payload, ensure_ascii=False, separators=(",", ":")), payload, is_error)


def invalid_arguments_message(tool: str, detail: str) -> str:
    return f"{INVALID_ARGUMENTS_LEAD}{tool}: {detail}"


class Progress(Protocol):
    """Sends one ``notifications/progress`` for the call being answered (the client asked for
    them with a progress token)."""

    def __call__(self, progress: float, total: float | None, message: str | None) -> Awaitable[None]: ...


@dataclass(frozen=True)
class ServerSpec:
    """What a server shows before it runs anything: its name, instructions and catalogue."""

    name: str
    instructions: str
    tools: tuple[ToolSpec, ...]
    json_text: bool = False
    """Every answer's text is the JSON of its ``structuredContent`` (observe's), errors included;
    otherwise an error's text is its message (shell's)."""
    may_ask: bool = False
    """Whether a call may ask the client a question (``elicitation/create``) while it runs: the
    front door then leaves the calls of a client that can be asked to the SDK."""

    def tool(self, name: str) -> ToolSpec | None:
        return next((t for t in self.tools if t.name == name), None)

    def error(self, code: str, message: str) -> Reply:
        """A tool error of this server, its text in the server's one form."""
        reply = error_reply(code, message)
        return json_reply(reply.structured, is_error=True) if self.json_text else reply


@dataclass(frozen=True)
class Question:
    """What a tool asks the person behind the client (MCP elicitation, form mode): ``message``, and
    ``always``, the label of an optional yes/no field (None: the form has no field)."""

    message: str
    always: str | None = None


@dataclass(frozen=True)
class Answer:
    """The person's answer: accepted (with ``always`` ticked or not), declined or cancelled.
    ``failed`` says why no answer came when the client failed to ask (an error; taken as cancel)."""

    action: Literal["accept", "decline", "cancel"]
    always: bool = False
    failed: str | None = None


class Ask(Protocol):
    """Asks the person behind the client one question and waits for the answer."""

    def __call__(self, question: Question) -> Awaitable[Answer]: ...


class HandOver(Exception):
    """Raised by the front door's ``Ask``: the call needs a question, which only the SDK's session
    asks. Nothing has run when it is raised (a refusal comes before anything runs), so the whole call
    is answered again from the start, by the SDK."""


class AnswerLater(Exception):
    """Raised by an ``Ask`` that cannot wait within the request (the 2026-07-28 revision): the
    question goes back to the client as an ``input_required`` result, and the client calls the tool
    again with the answer. Nothing has run when it is raised."""

    def __init__(self, question: Question) -> None:
        super().__init__(question.message)
        self.question = question


class Dispatch(Protocol):
    """Answers one call whose arguments were checked against the tool's input schema. It may raise
    ``wslmcp.arguments.InvalidArguments`` for what a schema cannot say (options that exclude each
    other), before it has done anything. ``progress`` is None unless the client asked for it; ``ask``
    is None unless a person can be asked (the client declared form elicitation)."""

    def __call__(
        self, tool: str, arguments: Mapping[str, Any], progress: Progress | None, ask: Ask | None = None
    ) -> Awaitable[Reply]: ...
