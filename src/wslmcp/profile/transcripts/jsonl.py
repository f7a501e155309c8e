"""Streaming JSONL reading with the tolerance rules every adapter shares.

Lines are read one at a time through the ClientFiles boundary, so memory stays bounded whatever the
file's size; a line longer than ``long_lines.MAX_HELD_LINE`` is never held whole (``long_lines``
reads it in bounded memory with the same verdicts). Line breaks follow universal-newline rules (``\\n``, ``\\r\\n`` and a lone ``\\r``).
The whole file must be UTF-8: one undecodable byte makes the file unreadable. Blank lines are
ignored; a line that is not JSON, or JSON that is not an object, is a *bad* line.

``records(..., exact_numbers=False)`` (the profiler, which reads no number) first hands each line
to ``orjson``, about five times faster than ``json.loads``. Every line it rejects goes the
``json.loads`` way, and so does every line where the two could disagree: one with a ``\\r``
before its end (a line break here, JSON whitespace there) or with enough brackets to reach
``json.loads``' recursion limit (orjson's limit is deeper). So the verdicts (record, bad line,
unreadable) never differ; only an integer outside 64 bits (and inside a double's range) comes
back as a float. ``wslmcp eval`` keeps the arguments it replays, so it reads with ``json.loads``
alone (the default).
"""

from __future__ import annotations

import codecs
import functools
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from wslmcp.boundaries.client_files import ClientFiles
from wslmcp.profile.transcripts import long_lines

_CHUNK = 8192  # the decode window a text-mode reader uses; error offsets are reported within it
MAX_BAD_RATIO = 0.1
#: Fewer "[" and "{" than this, and json.loads cannot meet its recursion limit (about 1,000 deep).
_FAST_BRACKETS = 900


@dataclass
class LineStats:
    non_empty: int = 0
    bad: int = 0
    error: str | None = None

    def too_many_bad(self) -> str | None:
        """The skip reason when more than ``MAX_BAD_RATIO`` of the non-empty lines are bad."""
        if self.non_empty and self.bad / self.non_empty > MAX_BAD_RATIO:
            return f"{self.bad} of {self.non_empty} lines unparseable"
        return None


def records(
    files: ClientFiles, path: str, stats: LineStats, *, exact_numbers: bool = True
) -> Iterator[dict[str, Any]]:
    """Yield each JSON object line; count lines in ``stats``; stop with ``stats.error`` on failure."""
    offset = 0
    loads = json.loads
    fast = None if exact_numbers else _fast_loads()
    try:
        for raw in _whole_lines(files.iter_lines(path)):
            if (
                fast is not None
                and type(raw) is bytes
                and ((cr := raw.find(b"\r")) == -1 or (cr == len(raw) - 2 and raw.endswith(b"\r\n")))
                and (len(raw) < _FAST_BRACKETS or raw.count(b"[") + raw.count(b"{") < _FAST_BRACKETS)
            ):
                try:
                    record = fast(raw)
                except ValueError:  # not JSON to orjson: json.loads below gives the verdict
                    pass
                else:
                    offset += len(raw)
                    stats.non_empty += 1
                    if type(record) is dict:
                        yield record
                    else:
                        stats.bad += 1
                    continue
            if not isinstance(raw, bytes):
                for outcome in long_lines.parse(raw, offset):
                    if isinstance(outcome, str):
                        stats.error = "unreadable: " + outcome
                        return
                    stats.non_empty += 1
                    if outcome is None:
                        stats.bad += 1
                    else:
                        yield outcome
                offset += raw.size
                continue
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                stats.error = "unreadable: " + _decode_message(raw, offset)
                return
            offset += len(raw)
            pieces = text.replace("\r\n", "\n").split("\r") if "\r" in text else [text]
            for line in pieces:
                if not line.strip():
                    continue
                stats.non_empty += 1
                try:
                    record = loads(line)
                except (ValueError, RecursionError):
                    stats.bad += 1
                    continue
                if type(record) is not dict:
                    stats.bad += 1
                    continue
                yield record
    except OSError as err:
        stats.error = f"unreadable: {err}"


@functools.cache
def _fast_loads() -> Callable[[bytes], Any] | None:
    """orjson's ``loads``, imported at the first scan (it costs a fresh process some 5 ms)."""
    try:
        import orjson
    except ImportError:  # a platform without its wheel: json.loads alone, only slower
        return None
    loads: Callable[[bytes], Any] = orjson.loads
    return loads


class _Streamed:
    """The pieces of one line too long to hold, one pass only (iterating again continues where
    the last pass stopped, never past the line's end); ``size`` counts the bytes passed so far."""

    def __init__(self, held: list[bytes], rest: Iterator[bytes]) -> None:
        self.size = 0
        self._pieces = self._pass(held, rest)

    def _pass(self, held: list[bytes], rest: Iterator[bytes]) -> Iterator[bytes]:
        for piece in held:
            self.size += len(piece)
            yield piece
        for piece in rest:
            self.size += len(piece)
            yield piece
            if piece.endswith(b"\n"):
                return

    def __iter__(self) -> Iterator[bytes]:
        return self._pieces


def _whole_lines(pieces: Iterator[bytes]) -> Iterator[bytes | _Streamed]:
    """Each line whole, joining the boundary's pieces (only a line's last piece ends with a
    newline), or, past ``long_lines.MAX_HELD_LINE``, the line's pieces as a ``_Streamed``."""
    pieces = iter(pieces)  # one pass, shared with a _Streamed line
    held: list[bytes] = []
    size = 0
    for piece in pieces:
        if not held and piece.endswith(b"\n"):
            yield piece
            continue
        held.append(piece)
        size += len(piece)
        if piece.endswith(b"\n"):
            yield b"".join(held)
            held, size = [], 0
        elif size > long_lines.MAX_HELD_LINE:
            streamed = _Streamed(held, pieces)
            yield streamed
            for _ in streamed:  # whatever the reader left of this line
                pass
            held, size = [], 0
    if held:
        yield b"".join(held)


def _decode_message(raw: bytes, offset: int) -> str:
    """The error a chunked text-mode reader reports for this line (CPython's wording and positions).

    A text-mode reader decodes 8 KiB chunks, carrying an incomplete trailing character into the
    next chunk, and reports positions relative to what it was decoding. The line before this one
    ended with a newline, so nothing is carried into it; replay its chunks to find the message.
    Only runs on the (rare) failure path.
    """
    decoder = codecs.getincrementaldecoder("utf-8")()
    # the chunk holding the line's start also holds the end of earlier (valid) lines: positions
    # count from the chunk's start, so stand in for those bytes with as many newlines
    data = b"\n" * (offset % _CHUNK) + raw
    pos = 0
    try:
        while pos < len(data):
            decoder.decode(data[pos : pos + _CHUNK])
            pos += _CHUNK
        decoder.decode(b"", True)  # the file's end: an unfinished character is an error
    except UnicodeDecodeError as err:
        return str(err)
    return "'utf-8' codec can't decode this line"


def latest(last: datetime | None, stamp: object) -> datetime | None:
    """The later of ``last`` and a record's ``timestamp`` value (when it is a readable string)."""
    when = parse_timestamp(stamp) if isinstance(stamp, str) else None
    if when is not None and (last is None or when > last):
        return when
    return last


def parse_timestamp(value: str) -> datetime | None:
    """ISO 8601 as Python 3.11 reads it; a trailing Z is UTC; a naive value is taken as UTC.

    ``fromisoformat`` reads a trailing Z itself (three times faster than rewriting it as +00:00
    first); where it does not, the rewritten value is tried, so every value reads as before."""
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        if not value.endswith("Z"):
            return None
        try:
            parsed = datetime.fromisoformat(value[:-1] + "+00:00")
        except ValueError:
            return None
    if parsed.tzinfo is None:
        return parsed.replace(tzinfo=UTC)
    if parsed.tzinfo is UTC:
        return parsed
    try:
        return parsed.astimezone(UTC)
    except OverflowError:  # 0001-01-01T00:00:00+01:00: before the first instant a datetime holds
        return None
