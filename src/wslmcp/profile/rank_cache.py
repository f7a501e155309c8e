"""The o200k_base ranks as a bucketed file in the user's cache directory, read a bucket at a time.

Parsing the verified vocabulary (gunzip, split, base64, a 200,000-entry dict) takes about 0.1 s of
one core, in calls that hold the GIL throughout, so a fresh ``wslmcp profile --json`` paid for it
on every run while its servers waited to be read. This file is written once per cache directory,
from the bytes whose digest ``wire_tokens`` has just checked; a later run reads it whole (a few
MB, one call), checks its own checksum and decodes only the buckets its texts look up.

Layout (``VERSION``): a header line ``wslmcp-o200k-ranks <version> <vocabulary sha256> <body
crc32> <bucket bits> <byte order>``, then the body: ``BUCKETS + 1`` unsigned 32-bit offsets (in
the machine's byte order, which the header names), then the buckets, each a run of entries of one
length byte, the token's bytes and a 3-byte big-endian rank. A token's bucket is the low bits of
its CRC-32. Only ``get`` and ``[]`` are offered: all that the byte-pair merge asks of its ranks.

A file that is missing, not a regular file, over ``MAX_BYTES``, from another version, for another
vocabulary, for another byte order, not matching its own checksum or with offsets that do not
stay inside its body is ignored (and replaced when the directory is writable). The checksum
catches damage, not forgery: the file is as trusted as the directory it is in (the user's own
cache). Writing it never leaves a half-written file; a temp file that a killed run left behind is
removed by the next write; a directory that cannot be written only means the next run parses again.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
import zlib
from array import array
from collections.abc import Iterable

from wslmcp.boundaries.client_files import open_regular, read_limited

VERSION = 1
BUCKET_BITS = 16
#: Far above the real file (about 2.4 MB): anything larger is not ours.
MAX_BYTES = 16 * 1024 * 1024
_TEMP_PREFIX = ".o200k-"
#: A temp file older than this is a killed run's (a write takes well under a second).
_STALE_TEMP_S = 600.0
_MAGIC = b"wslmcp-o200k-ranks"
_RANK_BYTES = 3


class BucketRanks:
    """A read-only rank lookup over a cache file's body; each bucket is decoded at first use."""

    __slots__ = ("_body", "_buckets", "_mask", "_offsets")

    def __init__(self, body: bytes, bits: int) -> None:
        count = 1 << bits
        offsets = array("I")
        offsets.frombytes(body[: (count + 1) * offsets.itemsize])
        if (
            len(offsets) != count + 1
            or offsets[0] != len(offsets) * offsets.itemsize
            or offsets[-1] != len(body)
        ):
            raise ValueError("the bucket offsets do not span the body")
        self._body = body
        self._offsets = offsets
        self._buckets: list[dict[bytes, int] | None] = [None] * count
        self._mask = count - 1

    def get(self, key: bytes, default: int | float | None = None) -> int | float | None:
        index = zlib.crc32(key) & self._mask
        bucket = self._buckets[index]
        if bucket is None:
            bucket = self._buckets[index] = self._decode(index)
        return bucket.get(key, default)

    def __getitem__(self, key: bytes) -> int:
        rank = self.get(key)
        if rank is None:
            raise KeyError(key)
        return int(rank)

    def _decode(self, index: int) -> dict[bytes, int]:
        body, at = self._body, self._offsets[index]
        end = min(self._offsets[index + 1], len(body))
        bucket: dict[bytes, int] = {}
        while at < end:
            size = body[at]
            token_end = at + 1 + size
            if token_end + _RANK_BYTES > end:  # an entry past its bucket: not a file we wrote
                break
            bucket[body[at + 1 : token_end]] = int.from_bytes(
                body[token_end : token_end + _RANK_BYTES], "big"
            )
            at = token_end + _RANK_BYTES
        return bucket


def _checksum(body: bytes) -> bytes:
    """A corruption check (the file is as trusted as the directory it is in): CRC-32, in hex."""
    return f"{zlib.crc32(body):08x}".encode()


def file_name(vocabulary_sha256: str) -> str:
    return f"o200k_base-{vocabulary_sha256[:16]}.ranks"


def read(directory: str, vocabulary_sha256: str) -> BucketRanks | None:
    """The cached ranks of the vocabulary with this digest, or None (no usable file; never raises)."""
    try:
        path = os.path.join(directory, file_name(vocabulary_sha256))
        with open_regular(path) as fh:  # never a FIFO or a device: it would block or never end
            data = read_limited(fh, path, MAX_BYTES)
        header, _, body = data.partition(b"\n")
        magic, version, source, digest, bits, order = header.split(b" ")
        if (magic, version, source, bits, order) != (
            _MAGIC,
            str(VERSION).encode(),
            vocabulary_sha256.encode(),
            str(BUCKET_BITS).encode(),
            sys.byteorder.encode(),
        ):
            return None
        if _checksum(body) != digest:
            return None
        ranks = BucketRanks(body, BUCKET_BITS)
    except (OSError, ValueError):
        return None
    # every byte is a token of its own: what the merge falls back to, so no lookup can fail
    return ranks if all(ranks.get(bytes((b,))) is not None for b in range(256)) else None


def encode(tokens: Iterable[bytes], bits: int = BUCKET_BITS) -> bytes:
    """The body for ``tokens`` in rank order (rank = position)."""
    count = 1 << bits
    buckets: list[list[bytes]] = [[] for _ in range(count)]
    for rank, token in enumerate(tokens):
        if not 0 < len(token) < 256 or rank >= 1 << (8 * _RANK_BYTES):
            raise ValueError(f"token {rank} does not fit the cache layout")
        buckets[zlib.crc32(token) & (count - 1)].append(
            bytes((len(token),)) + token + rank.to_bytes(_RANK_BYTES, "big")
        )
    blobs = [b"".join(bucket) for bucket in buckets]
    offsets = array("I", [0] * (count + 1))
    at = offsets.itemsize * (count + 1)
    for index, blob in enumerate(blobs):
        offsets[index] = at
        at += len(blob)
    offsets[count] = at
    return offsets.tobytes() + b"".join(blobs)


def write(directory: str, vocabulary_sha256: str, tokens: Iterable[bytes]) -> None:
    """Store the cache file for these tokens, replacing any other whole; never raises (a cache
    that cannot be written is only a slower next run)."""
    import tempfile

    temp = None
    try:
        body = encode(tokens)
        header = b" ".join(
            (
                _MAGIC,
                str(VERSION).encode(),
                vocabulary_sha256.encode(),
                _checksum(body),
                str(BUCKET_BITS).encode(),
                sys.byteorder.encode(),
            )
        )
        os.makedirs(directory, exist_ok=True)
        _remove_stale_temps(directory)
        fd, temp = tempfile.mkstemp(prefix=_TEMP_PREFIX, suffix=".tmp", dir=directory)
        with os.fdopen(fd, "wb") as fh:
            fh.write(header + b"\n" + body)
        os.replace(temp, os.path.join(directory, file_name(vocabulary_sha256)))
        temp = None
    except (OSError, ValueError):
        pass
    finally:
        if temp is not None:
            with contextlib.suppress(OSError):
                os.unlink(temp)


def _remove_stale_temps(directory: str) -> None:
    """Remove the temp files of writes that were killed (older than ``_STALE_TEMP_S``)."""
    cutoff = time.time() - _STALE_TEMP_S
    with os.scandir(directory) as entries:
        for entry in entries:
            if entry.name.startswith(_TEMP_PREFIX) and entry.name.endswith(".tmp"):
                with contextlib.suppress(OSError):
                    if entry.stat(follow_symlinks=False).st_mtime < cutoff:
                        os.unlink(entry.path)
