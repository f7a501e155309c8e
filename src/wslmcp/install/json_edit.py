"""Editing one server table of a JSON (or JSON-with-comments) file in place, text untouched elsewhere.

A client's file is the user's: other servers, other keys, their order, their spacing and (in VS Code's
and Gemini CLI's files) their comments stay byte for byte. So the file is not parsed and written
again; it is checked (``json.loads``, after comments and trailing commas are blanked for the
``jsonc`` format), then scanned for the spans of its members, and only the text of one entry is
spliced in, replaced or cut out. A new entry is written in the file's own style: its indentation
unit, the indentation of its neighbours, its line ending, one line when the table is on one line.

Pure: text in, text out. ``Malformed`` says why a file cannot be edited (nothing is changed then).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

_TOKEN = re.compile(
    r"""(?P<space>[ \t\r\n]+)|(?P<comment>//[^\n]*|/\*.*?\*/)|(?P<string>"(?:[^"\\\n]|\\.)*")"""
    r"""|(?P<punct>[{}\[\]:,])|(?P<atom>[^\s{}\[\]:,"/]+)""",
    re.S,
)


_DECODER = json.JSONDecoder()


class Malformed(ValueError):
    """The file is not a JSON object this edit can work on; the message says why."""


@dataclass(frozen=True)
class Member:
    key: str
    start: int  # where its key's opening quote is
    value_start: int
    value_end: int
    after: int  # past its comma when one follows, else ``value_end``


@dataclass(frozen=True)
class ObjectSpan:
    start: int  # the ``{``
    end: int  # past the ``}``
    members: tuple[Member, ...]

    def last(self, key: str) -> Member | None:
        """The member ``key`` as ``json.loads`` reads it (the last of the same name)."""
        found = [m for m in self.members if m.key == key]
        return found[-1] if found else None


class _Scanner:
    """Spans of the values of a checked ``text`` (comments skipped)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def _next(self, i: int) -> tuple[str, str, int, int]:
        """The next significant token at or after ``i``: (kind, text, start, end)."""
        while True:
            m = _TOKEN.match(self.text, i)
            if m is None:
                if i >= len(self.text):
                    return "end", "", i, i
                raise Malformed(f"unexpected character at offset {i}")
            kind = m.lastgroup or ""
            if kind not in ("space", "comment"):
                return kind, m.group(), m.start(), m.end()
            i = m.end()

    def value_end(self, i: int) -> tuple[int, int]:
        """(start, end) of the value beginning at or after ``i``."""
        kind, token, start, end = self._next(i)
        if kind != "punct" or token not in "{[":
            return start, end
        try:  # a value without comments is skipped at C speed (a ~/.claude.json runs to megabytes)
            return start, _DECODER.raw_decode(self.text, start)[1]
        except ValueError:
            pass
        depth = 1
        while depth:
            kind, token, _, end = self._next(end)
            if kind == "end":
                raise Malformed("the file ends inside a value")
            if kind == "punct" and token in "{[":
                depth += 1
            elif kind == "punct" and token in "}]":
                depth -= 1
        return start, end

    def object_at(self, i: int) -> ObjectSpan:
        """The object whose ``{`` is at or after ``i``, with its members."""
        _, token, start, end = self._next(i)
        if token != "{":
            raise Malformed("not an object")
        members: list[Member] = []
        while True:
            _, token, key_start, pos = self._next(end)
            if token == "}":
                return ObjectSpan(start, pos, tuple(members))
            if token == ",":  # a trailing comma (jsonc) before the closing brace
                end = pos
                continue
            key = json.loads(token)
            _, _, _, pos = self._next(pos)  # the colon
            value_start, value_end = self.value_end(pos)
            _, token, _, pos = self._next(value_end)
            after = pos if token == "," else value_end
            members.append(Member(key, key_start, value_start, value_end, after))
            end = after


def _blank_comments(text: str) -> str:
    """``text`` with comments and trailing commas blanked (same length), for ``json.loads``."""
    out: list[str] = []
    comma = -1  # where in ``out`` the last significant token is, when it is a comma
    i = 0
    while i < len(text):
        m = _TOKEN.match(text, i)
        if m is None:  # not JSON at all: left for json.loads to name
            out.append(text[i])
            i += 1
            continue
        kind, token = m.lastgroup, m.group()
        if kind == "comment":
            token = " " * len(token)
        elif kind != "space":
            if token in "}]" and comma >= 0:
                out[comma] = " "
            comma = len(out) if token == "," else -1
        out.append(token)
        i = m.end()
    return "".join(out)


def check(text: str, jsonc: bool) -> dict[str, Any]:
    """The document, when ``text`` is a JSON object (comments and trailing commas allowed when
    ``jsonc``); ``Malformed`` otherwise."""
    try:
        root = json.loads(_blank_comments(text) if jsonc else text)
    except (ValueError, RecursionError) as exc:
        raise Malformed(f"not valid JSON{' (with comments)' if jsonc else ''}: {exc}") from None
    if not isinstance(root, dict):
        raise Malformed("its top level is not a JSON object")
    return root


@dataclass(frozen=True)
class _Style:
    unit: str  # one level of indentation ("" when the file is on one line)
    newline: str


def _style(text: str, top: ObjectSpan) -> _Style:
    newline = "\r\n" if "\r\n" in text else "\n"
    if top.members:
        first = top.members[0].start
        line_start = text.rfind("\n", 0, first) + 1
        if line_start > top.start:
            indent = text[line_start:first]
            return _Style(indent if indent.strip() == "" and indent else "  ", newline)
        return _Style("", newline)
    return _Style("  ", newline)


def _indent_of(text: str, pos: int) -> str:
    line_start = text.rfind("\n", 0, pos) + 1
    head = text[line_start:pos]
    return head[: len(head) - len(head.lstrip(" \t"))]


def _dump(value: object, style: _Style, indent: str) -> str:
    if not style.unit:
        return json.dumps(value, ensure_ascii=False)
    width: int | str = style.unit if "\t" in style.unit else len(style.unit)
    lines = json.dumps(value, ensure_ascii=False, indent=width).split("\n")
    return (style.newline + indent).join(lines)


def _member_text(key: str, value: object, style: _Style, indent: str) -> str:
    return json.dumps(key, ensure_ascii=False) + ": " + _dump(value, style, indent)


_SAME_LINE = re.compile(r"(?:[ \t]+|/\*[^\n]*?\*/|//[^\n]*)*")  # spaces and comments on a line
_INDENT = re.compile(r"[ \t]*")


def _skip(pattern: re.Pattern[str], text: str, pos: int) -> int:
    """Past what ``pattern`` (which may match nothing) matches at ``pos``."""
    found = pattern.match(text, pos)
    return pos if found is None else found.end()


def _insert(text: str, obj: ObjectSpan, key: str, value: object, style: _Style) -> str:
    """``text`` with ``key: value`` added as the last member of ``obj`` (after the comments on the
    last member's line, which stay with it)."""
    close = obj.end - 1
    outer = _indent_of(text, obj.start) if style.unit else ""
    if obj.members:
        last = obj.members[-1]
        indent = _indent_of(text, last.start)
        one_line = "\n" not in text[obj.start : obj.end]
        sep = " " if one_line or not style.unit else style.newline + indent
        member = _member_text(key, value, style if not one_line else _Style("", style.newline), indent)
        at = _skip(_SAME_LINE, text, last.after) if not one_line else last.after
        if last.after != last.value_end:  # a trailing comma is there already (jsonc): keep the style
            return text[:at] + sep + member + "," + text[at:]
        return text[: last.value_end] + "," + text[last.value_end : at] + sep + member + text[at:]
    if not style.unit:
        return text[: obj.start + 1] + _member_text(key, value, style, "") + text[close:]
    indent = outer + style.unit
    body = style.newline + indent + _member_text(key, value, style, indent) + style.newline + outer
    return text[: obj.start + 1] + body + text[close:]


def _remove(text: str, obj: ObjectSpan, member: Member) -> str:
    """``text`` without ``member``: its lines go, the comments on its neighbours' lines stay."""
    index = obj.members.index(member)
    if index + 1 < len(obj.members):  # cut its lines, up to the next member's
        end = _skip(_SAME_LINE, text, member.after)
        if text.startswith("\r\n", end) or text.startswith("\n", end):
            end = _skip(_INDENT, text, text.index("\n", end) + 1)
        return text[: member.start] + text[end:]
    if index > 0:  # the last of several: the one before loses its comma, unless commas trail (jsonc)
        before = obj.members[index - 1]
        comma = "," if member.after != member.value_end else ""
        kept = text[before.after : _skip(_SAME_LINE, text, before.after)]
        kept = kept if kept.strip() else ""
        return text[: before.after - 1] + comma + kept + text[member.after :]
    return text[: obj.start + 1] + text[obj.end - 1 :]  # the only one: the object stays, empty


def _replace(text: str, member: Member, value: object, style: _Style) -> str:
    indent = _indent_of(text, member.start) if style.unit else ""
    return text[: member.value_start] + _dump(value, style, indent) + text[member.value_end :]


def edit(text: str, table: str, changes: Mapping[str, object | None], jsonc: bool) -> str:
    """``text`` with each ``changes`` entry set (a value) or removed (None) in the object under the
    top-level key ``table`` (made when missing). ``Malformed`` when the file cannot be edited."""
    if not text.strip():
        text = "{}\n"
    check(text, jsonc)
    for key, value in changes.items():
        scanner = _Scanner(text)
        top = scanner.object_at(0)
        style = _style(text, top)
        holder = top.last(table)
        if holder is None:
            if value is not None:
                text = _insert(text, top, table, {key: value}, style)
            continue
        try:
            servers = scanner.object_at(holder.value_start)
        except Malformed:
            raise Malformed(f"its {table!r} is not an object") from None
        if sum(m.key == key for m in servers.members) > 1:
            raise Malformed(f"{table!r} names {key!r} more than once")
        member = servers.last(key)
        if member is None and value is not None:
            text = _insert(text, servers, key, value, style)
        elif member is not None and value is None:
            text = _remove(text, servers, member)
        elif member is not None:
            text = _replace(text, member, value, style)
    return text
