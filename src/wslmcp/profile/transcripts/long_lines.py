"""A JSONL line too long to hold, read in bounded memory with the verdicts ``json.loads`` gives.

``jsonl.records`` holds a line of up to ``MAX_HELD_LINE`` bytes whole. A longer line comes here as
the boundary's pieces and is never joined: it is decoded in the same 8 KiB windows a text-mode
reader uses (so a decoding error reads as it would), split at lone ``\\r`` like a held line, and
lexed. String literals longer than ``BIG_STRING`` characters (what makes real lines long: a tool
result's text, a file a tool wrote, an image's base64) are validated and measured as they stream
by and replaced with a short stand-in; what is left, the structure and the short strings, goes to
``json.loads``. So a line gets exactly the verdict (object, bad line) it would get whole.

A stand-in comes back as a ``Measured`` string: its text is the literal's first ``PREFIX``
characters and a digest of the whole (two long strings are equal only when their JSON text is),
and ``utf8`` is the whole string's UTF-8 size (None when it holds a lone surrogate), which is all
an adapter takes from a long string (``model.utf8_size`` reads it). One deliberate limit: a line
whose structure alone (without its long strings) exceeds ``MAX_HELD_LINE`` is counted as bad.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

MAX_HELD_LINE = 8 * 1024 * 1024
BIG_STRING = 64 * 1024
PREFIX = 1024
_WINDOW = 8192  # a text-mode reader's decode window (see jsonl._decode_message)

_OUT_STOP = re.compile(r'["\r]')
#: String content json.loads accepts: no quote, backslash or control character, or a valid escape.
_VALID_RUN = re.compile(r'(?:[^"\\\x00-\x1f]+|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*')
#: The start of an escape a window's end may have cut (more text decides whether it is valid).
_ESCAPE_START = re.compile(r"\\(?:u[0-9a-fA-F]{0,3})?")
_HIGH_TAIL = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}")


class Measured(str):
    """A long string's stand-in: ``prefix`` (its start), ``utf8`` (its whole UTF-8 size or None)."""

    prefix: str
    utf8: int | None

    def __new__(cls, prefix: str, digest: str, utf8: int | None) -> Measured:
        made = super().__new__(cls, f"{prefix}\x00{digest}")
        made.prefix = prefix
        made.utf8 = utf8
        return made


class _Piece:
    """One logical line (between lone ``\\r`` breaks): its structure text and what is known."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.size = 0
        self.blank = True
        self.bad = False
        self.stand_ins: dict[str, Measured] = {}

    def add(self, text: str, limit: int) -> None:
        if self.bad:
            return
        self.size += len(text)
        if self.size > limit:
            self.fail()
            return
        self.parts.append(text)

    def fail(self) -> None:
        self.bad = True
        self.parts = []
        self.stand_ins = {}


class LongLine:
    """Feeds decoded text of one long line; ``feed`` returns each finished record (or bad line).

    ``outcomes`` of ``feed`` are ``dict`` records or ``None`` for a bad line; blank pieces give
    nothing. The thresholds are parameters so tests can drive small inputs down this path.
    """

    def __init__(self, *, big_string: int = BIG_STRING, max_held: int = MAX_HELD_LINE) -> None:
        import hashlib  # here, not at the top: most scans meet no long line, and startup counts
        import secrets

        self._big = big_string
        self._max = max_held
        self._mark = f"\x00wslmcp-{secrets.token_hex(8)}:"
        self._piece = _Piece()
        self._carry = ""
        self._in_string = False
        self._lit: list[str] | None = []  # a short literal's raw text, None once it is long
        self._lit_len = 0
        self._prefix = ""
        self._hash = hashlib.sha256()
        self._utf8: int | None = 0
        self._done: list[dict[str, Any] | None] = []

    # ---- the lexer ------------------------------------------------------------------------
    def feed(self, text: str, final: bool = False) -> list[dict[str, Any] | None]:
        text = self._carry + text
        self._carry = ""
        i, n = 0, len(text)
        while i < n:
            if self._piece.bad:
                i = self._skip_bad(text, i, final)
            elif self._in_string:
                i = self._string(text, i, final)
            else:
                i = self._structure(text, i, final)
            if i < 0:  # an incomplete escape or a \r that may start \r\n: wait for more
                break
        if final:  # nothing is held back on the final call
            self._end_piece()
        done, self._done = self._done, []
        return done

    def _hold(self, text: str, at: int) -> int:
        self._carry = text[at:]
        return -1

    def _cr(self, text: str, at: int, final: bool) -> int | None:
        """At a ``\\r``: the index after ``\\r\\n`` (a newline), None for a break, -1 to wait."""
        if at + 1 < len(text):
            return at + 2 if text[at + 1] == "\n" else None
        return None if final else -1

    def _skip_bad(self, text: str, i: int, final: bool) -> int:
        while True:
            at = text.find("\r", i)
            if at < 0:
                return len(text)
            after = self._cr(text, at, final)
            if after == -1:
                return self._hold(text, at)
            if after is None:
                self._end_piece()
                return at + 1
            i = after

    def _structure(self, text: str, i: int, final: bool) -> int:
        piece = self._piece
        stop = _OUT_STOP.search(text, i)
        end = len(text) if stop is None else stop.start()
        if end > i:
            segment = text[i:end]
            if piece.blank and not segment.isspace():
                piece.blank = False
            piece.add(segment, self._max)
        if stop is None:
            return end
        if text[end] == '"':
            piece.blank = False
            self._in_string = True
            self._lit, self._lit_len, self._utf8 = [], 0, 0
            return end + 1
        after = self._cr(text, end, final)
        if after == -1:
            return self._hold(text, end)
        if after is None:
            self._end_piece()
            return end + 1
        piece.add("\n", self._max)
        return after

    def _string(self, text: str, i: int, final: bool) -> int:
        run = _VALID_RUN.match(text, i)
        end = run.end() if run is not None else i
        n = len(text)
        if not final and (end == n or (text[end] == "\\" and _ESCAPE_START.fullmatch(text, end))):
            # the window's end cut the literal: keep back an unfinished escape, and a high
            # surrogate's escape whose low half may come next
            if _high_tail(text, i, end):
                end -= 6
            if end > i:
                self._literal(text[i:end])
            return n if end == n else self._hold(text, end)
        if end > i:
            self._literal(text[i:end])
        if end == n:
            return n
        char = text[end]
        if char == '"':
            self._close_literal()
            return end + 1
        self._piece.fail()  # a bad escape, a control character or a line break inside a string
        self._in_string = False
        if char == "\r":
            after = self._cr(text, end, final)
            if after == -1:
                return self._hold(text, end)
            if after is None:
                self._end_piece()
                return end + 1
            return after
        return end + 1

    # ---- literals -------------------------------------------------------------------------
    def _literal(self, raw: str) -> None:
        """Add valid raw text of the open literal: kept while short, then hashed and measured."""
        if self._piece.bad:
            return
        if self._lit is not None:
            self._lit.append(raw)
            self._lit_len += len(raw)
            if self._lit_len > self._big:
                self._become_long()
            return
        self._hash.update(raw.encode("utf-8"))
        decoded: str = json.loads(f'"{raw}"')
        if len(self._prefix) < PREFIX:  # only with thresholds below PREFIX (tests)
            self._prefix = (self._prefix + decoded)[:PREFIX]
        size = _utf8(decoded)
        self._utf8 = None if size is None or self._utf8 is None else self._utf8 + size

    def _become_long(self) -> None:
        assert self._lit is not None
        body = "".join(self._lit)
        self._lit = None
        import hashlib

        self._hash = hashlib.sha256(body.encode("utf-8"))
        decoded: str = json.loads(f'"{body}"')  # complete runs and escapes: always valid here
        self._utf8 = _utf8(decoded)
        self._prefix = decoded[:PREFIX] if len(body) > PREFIX else decoded

    def _close_literal(self) -> None:
        self._in_string = False
        piece = self._piece
        if self._lit is not None:
            piece.add('"' + "".join(self._lit) + '"', self._max)
            self._lit = []
            return
        key = f"{self._mark}{len(piece.stand_ins)}"
        piece.add(json.dumps(key), self._max)
        if not piece.bad:
            piece.stand_ins[key] = Measured(self._prefix, self._hash.hexdigest(), self._utf8)
        self._lit = []

    # ---- pieces ---------------------------------------------------------------------------
    def _end_piece(self) -> None:
        piece, self._piece = self._piece, _Piece()
        if self._in_string:  # an unterminated string
            piece.fail()
            self._in_string = False
            self._lit = []
        if piece.blank:
            return
        if piece.bad:
            self._done.append(None)
            return
        try:
            record = json.loads("".join(piece.parts))
        except (ValueError, RecursionError):
            self._done.append(None)
            return
        if type(record) is not dict:
            self._done.append(None)
            return
        self._done.append(_restore(record, piece.stand_ins) if piece.stand_ins else record)


def _high_tail(text: str, start: int, end: int) -> bool:
    """``text[start:end]`` (valid string content) ends with a high surrogate's ``\\uXXXX`` escape."""
    if end - start < 6 or _HIGH_TAIL.match(text, end - 6, end) is None:
        return False
    slashes = 0  # the escape's backslash is not itself escaped: an even run of them precedes it
    at = end - 7
    while at >= start and text[at] == "\\":
        slashes += 1
        at -= 1
    return slashes % 2 == 0


def _utf8(text: str) -> int | None:
    try:
        return len(text.encode("utf-8"))
    except UnicodeEncodeError:
        return None


def _restore(value: Any, stand_ins: dict[str, Measured]) -> Any:
    if isinstance(value, str):
        return stand_ins.get(value, value)
    if isinstance(value, dict):
        return {_restore(k, stand_ins): _restore(v, stand_ins) for k, v in value.items()}
    if isinstance(value, list):
        return [_restore(v, stand_ins) for v in value]
    return value


def windows(pieces: Iterable[bytes], offset: int) -> Iterator[tuple[bytes, int]]:
    """The line's bytes in a text-mode reader's decode windows: (window, leading bytes to drop).

    The window grid starts ``offset % 8192`` bytes before the line (earlier lines' bytes), which
    the first window stands in for with newlines, exactly as ``jsonl._decode_message`` replays it.
    """
    lead = offset % _WINDOW
    buffer = bytearray(b"\n" * lead)
    for piece in pieces:
        buffer += piece
        while len(buffer) >= _WINDOW:
            yield bytes(buffer[:_WINDOW]), lead
            del buffer[:_WINDOW]
            lead = 0
    if buffer:
        yield bytes(buffer), lead


def parse(pieces: Iterable[bytes], offset: int, **thresholds: int) -> Iterator[dict[str, Any] | str | None]:
    """Each record (dict) or bad line (None) of one long line; a ``str`` is a decoding error's
    message (the file is unreadable: nothing after it is yielded)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    lexer = LongLine(**thresholds)
    try:
        for window, lead in windows(pieces, offset):
            text = decoder.decode(window)
            yield from lexer.feed(text[lead:] if lead else text)
        decoder.decode(b"", True)
    except UnicodeDecodeError as err:
        yield str(err)
        return
    yield from lexer.feed("", final=True)
