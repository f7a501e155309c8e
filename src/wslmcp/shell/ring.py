"""A background process's output: the last ``capacity`` bytes of one stream, addressed by absolute
byte offsets (byte 0 is the first the process wrote), and the reads of it cut at UTF-8 boundaries.

``start`` is the offset of the oldest byte still held (every byte before it was pushed out: that
is ``dropped``), ``end`` the offset one past the newest. Memory stays at ``capacity`` bytes (plus
one chunk) whatever the process writes.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass


class OutputRing:
    def __init__(self, capacity: int) -> None:
        if capacity <= 0:
            raise ValueError("an output ring needs a positive capacity")
        self.capacity = capacity
        self._chunks: deque[bytes] = deque()
        self._held = 0
        self.start = 0

    @property
    def end(self) -> int:
        return self.start + self._held

    @property
    def dropped(self) -> int:
        return self.start

    def append(self, data: bytes) -> None:
        if not data:
            return
        if len(data) > self.capacity:  # only its tail can be held
            self._drop(self._held)
            self.start += len(data) - self.capacity
            data = data[-self.capacity :]
        self._chunks.append(data)
        self._held += len(data)
        if self._held > self.capacity:
            self._drop(self._held - self.capacity)

    def _drop(self, n: int) -> None:
        self._held -= n
        self.start += n
        while n:
            first = self._chunks[0]
            if len(first) <= n:
                self._chunks.popleft()
                n -= len(first)
            else:
                self._chunks[0] = first[n:]
                n = 0

    def slice(self, offset: int, max_bytes: int) -> bytes:
        """Up to ``max_bytes`` held bytes from absolute ``offset`` (clamped into what is held)."""
        offset = min(max(offset, self.start), self.end)
        skip = offset - self.start
        out = bytearray()
        for chunk in self._chunks:
            if skip >= len(chunk):
                skip -= len(chunk)
                continue
            out += chunk[skip : skip + max_bytes - len(out)]
            skip = 0
            if len(out) >= max_bytes:
                break
        return bytes(out)

    def tail(self, n: int) -> bytes:
        """The last ``n`` held bytes (fewer when fewer are held)."""
        return self.slice(self.end - n, n)


@dataclass(frozen=True)
class Read:
    """One read of a ring: ``data`` from ``offset`` to ``next_offset`` (absolute); ``skipped`` bytes
    between the offset asked for and ``offset`` had been pushed out of the ring."""

    data: bytes
    offset: int
    next_offset: int
    skipped: int

    @property
    def text(self) -> str:
        return self.data.decode("utf-8", "replace")


def _continuation(byte: int) -> bool:
    return byte & 0xC0 == 0x80


def _complete_prefix(data: bytes) -> int:
    """How many leading bytes of ``data`` end on a character boundary: a character cut at the end
    is left out (bytes that are not UTF-8 count as whole characters)."""
    i = len(data)
    back = 0
    while i > 0 and back < 3 and _continuation(data[i - 1]):
        i -= 1
        back += 1
    if i == 0:
        return len(data)
    lead = data[i - 1]
    if lead < 0x80:
        return len(data)
    need = 2 if lead >> 5 == 0b110 else 3 if lead >> 4 == 0b1110 else 4 if lead >> 3 == 0b11110 else 1
    if back + 1 >= need:  # the last character is whole (or is not UTF-8 at all)
        return len(data)
    return i - 1


def read(ring: OutputRing, offset: int, max_bytes: int, *, final: bool) -> Read:
    """Read ``ring`` from absolute ``offset`` (negative: the last ``-offset`` bytes), at most
    ``max_bytes``, cut at UTF-8 character boundaries: a read that starts inside a character (after
    old output was pushed out, or from a negative offset) starts at the next character, and one
    that would end inside a character stops before it, unless the stream has ended (``final``) and
    nothing more can come. Never more than ``max_bytes``: when ``max_bytes`` is smaller than the
    next character, those bytes are returned as they are."""
    asked = ring.end + offset if offset < 0 else offset
    begin = min(max(asked, ring.start), ring.end)
    data = ring.slice(begin, max_bytes)
    if begin > asked or offset < 0:  # may start inside a character
        lead = 0
        while lead < min(3, len(data)) and _continuation(data[lead]):
            lead += 1
        if lead < len(data):
            begin += lead
            data = data[lead:]
    reaches_end = begin + len(data) == ring.end
    if not (final and reaches_end):
        cut = _complete_prefix(data)
        # a max_bytes below one character's length still moves on; a character still being written waits
        data = data[:cut] if cut or reaches_end else data
    return Read(data, begin, begin + len(data), max(0, ring.start - asked))
