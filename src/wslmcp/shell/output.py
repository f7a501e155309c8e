"""A command's output kept in bounded memory, however long it runs: each stream's head and tail, and
counts of everything that passed.

Long output is not an error: a build or a test run may write megabytes, and its end is what tells
how it went. So ``Kept`` (the stream's sink while the command runs) keeps the first ``head`` and the
last ``tail`` bytes and counts every byte, character and line; ``shown`` cuts what is kept to the
characters a reply may hold, at line ends, and says what it left out in between. Only the
transport's safety cap (``WSL_OUTPUT_CAP_BYTES``) stops a command for its output.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable
from dataclasses import dataclass

_CONTINUATION = bytes(range(0x80, 0xC0))  # UTF-8 bytes that continue a character
HEAD_SHARE = 4  # a quarter of what a reply shows is the head, the rest the tail (where a log ends)
BYTES_PER_CHAR = 4  # the most a character takes in UTF-8: what is kept of a stream, per character shown
END_ROOM = 64 * 1024
"""The fewest bytes kept at a stream's end, however few characters a reply shows: room for what a
wrapper writes last and takes out (the exit marker, the sandbox's after-command report)."""


def _counts(data: bytes) -> tuple[int, int]:
    """Characters (UTF-8 sequences) and lines (newlines) in ``data``."""
    return len(data.translate(None, _CONTINUATION)), data.count(b"\n")


class Kept:
    """A ``ByteSink`` keeping the first ``head`` bytes and the last ``tail`` bytes of a stream (in
    memory bounded by twice ``tail``), and counting ``bytes``, ``chars`` and ``lines`` passed."""

    def __init__(self, head: int, tail: int) -> None:
        self.head_limit, self.tail_limit = head, tail
        self.head = bytearray()
        self._tail = bytearray()
        self.bytes = self.chars = self.lines = 0
        self.received = 0  # every byte handed over (``bytes``: less the markers taken out since)

    @classmethod
    def for_chars(cls, max_chars: int) -> Kept:
        """What a reply of ``max_chars`` characters per stream can show, at any character width."""
        head = max_chars // HEAD_SHARE
        return cls(head * BYTES_PER_CHAR, max((max_chars - head) * BYTES_PER_CHAR, END_ROOM))

    def __call__(self, data: bytes) -> None:
        chars, lines = _counts(data)
        self.received += len(data)
        self.bytes += len(data)
        self.chars += chars
        self.lines += lines
        room = self.head_limit - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self._tail += data
            if len(self._tail) > 2 * self.tail_limit:  # trimmed now and then: amortized
                del self._tail[: len(self._tail) - self.tail_limit]

    @property
    def tail(self) -> bytes:
        return bytes(self._tail[-self.tail_limit :]) if self.tail_limit else b""

    @property
    def complete(self) -> bool:
        """Whether nothing was dropped between the head and the tail."""
        return len(self.head) + len(self.tail) == self.bytes

    def rewrite_end(self, change: Callable[[bytes], bytes]) -> None:
        """Apply ``change`` to the end of the stream (the whole of it when complete, else the tail),
        keeping the counts true: the markers a wrapper writes last are taken out this way."""
        whole = self.complete
        old = bytes(self.head) + self.tail if whole else self.tail
        new = change(old)
        if new == old:
            return
        (old_chars, old_lines), (new_chars, new_lines) = _counts(old), _counts(new)
        self.bytes += len(new) - len(old)
        self.chars += new_chars - old_chars
        self.lines += new_lines - old_lines
        if whole:
            self.head, self._tail = bytearray(new[: self.head_limit]), bytearray(new[self.head_limit :])
        else:
            self._tail = bytearray(new)

    def last(self, n: int) -> bytes:
        """The last ``n`` bytes kept (a progress message's line)."""
        return (bytes(self.head) + self.tail)[-n:] if len(self.tail) < n else self.tail[-n:]


@dataclass(frozen=True)
class Stream:
    text: str  # the head, a line saying what was left out, the tail (or the whole stream)
    total_chars: int
    dropped_chars: int
    total_bytes: int
    capped: bool  # the safety cap stopped the command while it wrote this stream
    dropped_lines: int = 0


def left_out(stream: Stream) -> str:
    """``3928 lines (18598 characters)``, or ``4700 characters`` when no whole line was left out."""
    chars = f"{stream.dropped_chars} characters"
    return f"{stream.dropped_lines} lines ({chars})" if stream.dropped_lines else chars


def shown(kept: Kept, max_chars: int, *, written: int | None = None, capped: bool = False) -> Stream:
    """What a reply shows of ``kept``: all of it when it fits in ``max_chars`` characters; else its
    head (a quarter) and its tail, each cut at a line end where it has one, with one line between
    them saying how many lines and characters were left out. ``written``: the bytes the command
    wrote, when more than it handed over (a command stopped at the cap wrote into the pipe)."""
    head_chars = max_chars // HEAD_SHARE
    total_bytes = kept.bytes + max(0, (written or 0) - kept.received)
    if kept.complete:
        text = (bytes(kept.head) + kept.tail).decode("utf-8", "replace")
        if len(text) <= max_chars:
            return Stream(text, len(text), 0, total_bytes, capped)
        total_chars, total_lines = len(text), text.count("\n")
        head = _head(text, head_chars)
        tail = text[len(text) - (max_chars - len(head)) :]
        tail = tail if text[len(text) - len(tail) - 1] == "\n" else _from_line_start(tail)
    else:
        total_chars, total_lines = kept.chars, kept.lines
        head = _head(_decoded_head(bytes(kept.head)), head_chars)
        tail = _from_line_start(_decoded_tail(kept.tail)[-(max_chars - len(head)) :])
    dropped_chars = max(0, total_chars - len(head) - len(tail))
    dropped_lines = max(0, total_lines - head.count("\n") - tail.count("\n"))
    cut = Stream("", total_chars, dropped_chars, total_bytes, capped, dropped_lines)
    between = ("" if not head or head.endswith("\n") else "\n") + f"… {left_out(cut)} left out here …\n"
    return Stream(head + between + tail, total_chars, dropped_chars, total_bytes, capped, dropped_lines)


def _head(text: str, chars: int) -> str:
    """The first ``chars`` characters of ``text``, up to the last line end in them (or the one just
    after them); all ``chars`` when there is none."""
    end = text.rfind("\n", 0, chars + 1)
    return text[: end + 1] if end >= 0 else text[:chars]


def _from_line_start(text: str) -> str:
    """``text`` from after its first line end (all of it when it has none, or nothing after it)."""
    start = text.find("\n")
    return text[start + 1 :] if 0 <= start < len(text) - 1 else text


def _decoded_head(data: bytes) -> str:
    """``data`` decoded, a character cut at its end left out."""
    return codecs.getincrementaldecoder("utf-8")("replace").decode(data, final=False)


def _decoded_tail(data: bytes) -> str:
    """``data`` decoded, a character cut at its start left out."""
    skip = 0
    while skip < min(3, len(data)) and data[skip] in _CONTINUATION:
        skip += 1
    return data[skip:].decode("utf-8", "replace")
