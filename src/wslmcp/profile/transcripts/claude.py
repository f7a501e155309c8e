"""Claude Code transcripts: ``~/.claude/projects/<slug>/**/*.jsonl``, format 2.x only.

A file's session group is ``<slug>/<first component under the slug>``, so subagent transcripts
(``<slug>/<session>/subagents/agent-x.jsonl``) group with their parent. The project is the slug.

``ClaudeReading`` is the client's one reader (``events``): Claude Code writes one record per
content block; ``tool_use`` blocks are calls (the blocks of one ``message.id`` were sent together),
``tool_result`` blocks in user records are results; a call whose id an earlier call claimed is
dropped (a nameless call claims its id too). Messages: user prompts (not the texts Claude Code
writes itself: slash commands and their output, interruptions; not ``isMeta`` prompts) and
assistant ``text`` blocks (``thinking`` is no part of the answer), never a subagent's
(``isSidechain``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from typing import Any

from wslmcp.boundaries.client_files import ClientFiles
from wslmcp.profile.transcripts.events import Attribution, Call, Event, Message, Repeat, Result
from wslmcp.profile.transcripts.jsonl import LineStats, latest, records
from wslmcp.profile.transcripts.model import (
    PAIRED,
    PARTIAL,
    UNMEASURABLE,
    UNSUPPORTED,
    CallLog,
    Transcript,
    text_size,
    utf8_size,
)

SUPPORTED_VERSION = re.compile(r"2\.\d")
# user texts Claude Code writes itself (slash commands, their output, interruptions): no prompt
_CLIENT_TEXT = ("<command-name>", "<command-message>", "<local-command-stdout>", "[Request interrupted")


def projects_root(home: str) -> str:
    return f"{home.rstrip('/')}/.claude/projects"


def find(files: ClientFiles, home: str) -> Iterator[str]:
    """Every ``*.jsonl`` at least one directory below ``projects/``, skipping dot-names, sorted."""
    root = projects_root(home)
    for info in files.iter_files(root, ".jsonl"):
        rel = info.path[len(root) + 1 :].split("/")
        if len(rel) < 2 or any(part.startswith(".") for part in rel):
            continue
        yield info.path


def session_key(path: str, home: str) -> str:
    slug, first = path[len(projects_root(home)) + 1 :].split("/")[:2]
    return f"{slug}/{first.removesuffix('.jsonl')}"


def project_of(path: str, home: str) -> str | None:
    slug = path[len(projects_root(home)) + 1 :].split("/", maxsplit=1)[0]
    return slug or None


def _aside(record: dict[str, Any]) -> bool:
    """A record that is no part of the conversation: a subagent's, or a meta prompt."""
    return record.get("isSidechain") is True or record.get("isMeta") is True


def _result(block: dict[str, Any], sidechain: bool) -> ClaudeResult:
    raw_id = block.get("tool_use_id")
    call_id = raw_id if isinstance(raw_id, str) else None
    return ClaudeResult(
        call_id, block.get("content"), is_error=block.get("is_error") is True, sidechain=sidechain
    )


def _said(block: object, record: dict[str, Any]) -> Message | None:
    """An assistant ``text`` block of the conversation."""
    if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
        return None if _aside(record) else Message("assistant", block["text"], record.get("timestamp"))
    return None


def _prompt(content: object, record: dict[str, Any]) -> Message | None:
    """A user record's prompt: its string, or its text blocks joined; not the texts Claude Code
    writes itself."""
    if isinstance(content, list):
        texts = [
            str(b["text"])
            for b in content
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
        ]
        content = "\n".join(texts) if texts else None
    if not isinstance(content, str) or content.lstrip().startswith(_CLIENT_TEXT) or _aside(record):
        return None
    return Message("user", content, record.get("timestamp"))


def parse(files: ClientFiles, path: str, home: str, configured: Sequence[str]) -> Transcript:
    """The profiler's reading of one transcript: its calls, with their results paired."""
    stats = LineStats()
    reading = ClaudeReading(records(files, path, stats, exact_numbers=False), configured)
    log = CallLog.read(reading)
    project = project_of(path, home)
    if stats.error is not None:
        return Transcript(path, "skipped", stats.error, project=project)
    return log.transcript(
        path, reading.skip_reason(stats), last_ts=reading.last, bad_lines=stats.bad, project=project
    )


class ClaudeResult(Result):
    __slots__ = ()

    def measure(self) -> tuple[int, str]:
        """A string is measured whole; a list of blocks by its text blocks (partial when it also
        holds others, unsupported when it holds only others)."""
        content = self.content
        if isinstance(content, str):
            return text_size(content)
        if not isinstance(content, list):
            return 0, UNSUPPORTED
        total = 0
        non_text = False
        for item in content:
            if isinstance(item, dict) and item.get("type") == "text" and isinstance(item.get("text"), str):
                size = utf8_size(item["text"])
                if size is None:
                    return 0, UNMEASURABLE
                total += size
            else:
                non_text = True
        if non_text and total == 0:
            return 0, UNSUPPORTED
        return total, PARTIAL if non_text else PAIRED


class ClaudeReading:
    """One pass over a Claude Code transcript's records (see the module's docstring)."""

    def __init__(
        self, records: Iterable[dict[str, Any]], configured: Sequence[str] = (), *, messages: bool = False
    ) -> None:
        self._records = records
        self._attribute = Attribution(configured)
        self._known = self._attribute.known
        self._messages = messages
        self.last: datetime | None = None
        self.source: dict[str, str] = {}
        self.versions: list[str] = []
        self.malformed_version = False

    def __iter__(self) -> Iterator[Event]:
        seen: set[str] = set()
        versions, last, messages = self.versions, self.last, self._messages
        try:
            for index, record in enumerate(self._records):
                if "version" in record and (version := record["version"]) not in versions:
                    self._version(version)
                last = latest(last, record.get("timestamp"))
                if "sessionId" in record:
                    self._session(record["sessionId"])
                message = record.get("message")
                if not isinstance(message, dict):
                    continue
                kind = record.get("type")
                sidechain = record.get("isSidechain") is True
                content = message.get("content")
                if kind == "assistant":
                    if "model" in message:
                        self._model(message["model"], record)
                    if not isinstance(content, list):
                        continue
                    for block in content:
                        if isinstance(block, dict) and block.get("type") == "tool_use":
                            if (call := self._call(block, seen, message, index, record)) is not None:
                                yield call
                        elif messages and (said := _said(block, record)) is not None:
                            yield said
                elif kind == "user":
                    answered = False
                    if isinstance(content, list):
                        for block in content:
                            if isinstance(block, dict) and block.get("type") == "tool_result":
                                answered = True
                                yield _result(block, sidechain)
                    if messages and not answered and (said := _prompt(content, record)) is not None:
                        yield said
        finally:
            self.last = last
            if versions:
                self.source["client_version"] = versions[-1]

    def _version(self, version: object) -> None:
        if not isinstance(version, str):
            self.malformed_version = True
        elif version not in self.versions:
            self.versions.append(version)

    def _session(self, value: object) -> None:
        if isinstance(value, str):
            self.source.setdefault("session_id", value)

    def _model(self, value: object, record: dict[str, Any]) -> None:
        if isinstance(value, str) and not _aside(record):
            self.source.setdefault("model", value)

    def _call(
        self,
        block: dict[str, Any],
        seen: set[str],
        message: dict[str, Any],
        index: int,
        record: dict[str, Any],
    ) -> Call | Repeat | None:
        """A ``tool_use`` block's call (when it was sent: the record's timestamp); a ``Repeat`` when an
        earlier call claimed its id (a nameless call claims it too)."""
        call_id = block.get("id")
        if not isinstance(call_id, str):
            call_id = None
        elif call_id in seen:
            return Repeat(call_id)
        else:
            seen.add(call_id)
        name = block.get("name")
        if not isinstance(name, str):
            return None
        attributed, server, tool = self._known.get(name) or self._attribute(name)
        group = message.get("id")
        turn = group if isinstance(group, str) else f"record {index}"
        sidechain = record.get("isSidechain") is True
        call = Call(
            name, attributed, server, tool, sidechain, None, None, call_id, block.get("input", {}), turn
        )
        call.at = record.get("timestamp") if self._messages else None  # the eval's relative timing
        return call

    def skip_reason(self, stats: LineStats) -> str | None:
        """Why the transcript is not read: a malformed or unknown version marker, none at all, or
        too many bad lines."""
        if self.malformed_version:
            return "malformed version marker"
        for version in self.versions:
            if SUPPORTED_VERSION.match(version) is None:
                return f'unknown format version "{version}"'
        if not self.versions:
            return "no version marker found"
        return stats.too_many_bad()
