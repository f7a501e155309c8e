"""Client configuration files and transcripts under a home directory, as a boundary.

Contract
--------
All paths are absolute POSIX-style strings as the user would write them.
``read_bytes(path) -> bytes``      the whole file, at most ``MAX_FILE_BYTES``. ``FileNotFoundError``
                                   when absent, ``PermissionError`` when unreadable,
                                   ``IsADirectoryError``, ``NotRegularFile`` for a FIFO, device or
                                   socket (or a symlink to one), ``FileTooLarge`` past the limit.
``stat(path) -> FileInfo | None``  size and modification time (epoch seconds); None when absent.
``iter_files(root, suffix)``       every non-directory entry under ``root`` (recursively) whose name
                                   ends with ``suffix``, sorted by path (special files included:
                                   reading them raises ``NotRegularFile``, so callers can say why
                                   they skipped them); a missing root yields nothing; unreadable
                                   subdirectories are skipped.
``iter_lines(path)``               the file's lines as bytes (newline kept), streamed in bounded
                                   memory whatever the file's size: a line longer than
                                   ``MAX_LINE_PIECE`` arrives as consecutive pieces of at most that
                                   size, and only a line's last piece ends with ``\n``. Raises like
                                   ``read_bytes`` (except the size limit) before the first line.
``same_file(a, b) -> bool``        both paths name one existing file (hard links, symlinks and
                                   ``..`` resolved); False when either is absent.

A special file is never read: it is checked (``stat``, then ``fstat`` of a non-blocking open) to be
a regular file first, so a FIFO cannot block and ``/dev/zero`` cannot grow memory.

Nothing here parses: the profiler decides what the bytes mean (JSON, TOML, JSONL), so garbage is
its to tolerate. Real adapter: ``LocalClientFiles`` (the real filesystem). Fake: a scenario's
fixture home (``wslmcp.fakes.client_files``), whose modification times come from the manifest because git
does not keep them.
"""

from __future__ import annotations

import errno
import functools
import os
import stat as stat_mod
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO, Protocol

#: The largest file ``read_bytes`` returns (configs, settings, snapshots).
MAX_FILE_BYTES = 256 * 1024 * 1024
#: The largest piece ``iter_lines`` yields (a longer line comes in several).
MAX_LINE_PIECE = 1024 * 1024

_KINDS = (
    (stat_mod.S_ISFIFO, "FIFO"),
    (stat_mod.S_ISCHR, "character device"),
    (stat_mod.S_ISBLK, "block device"),
    (stat_mod.S_ISSOCK, "socket"),
)


class NotRegularFile(OSError):
    """A FIFO, device or socket (or a symlink to one): skipped, never opened for reading."""

    def __init__(self, kind: str, path: str) -> None:
        super().__init__(f"not a regular file ({kind}): {path!r}")
        self.kind = kind
        self.path = path


class FileTooLarge(OSError):
    def __init__(self, limit: int, path: str) -> None:
        size = f"{limit // (1024 * 1024)} MiB" if limit >= 1024 * 1024 else f"{limit} byte"
        super().__init__(f"larger than the {size} limit: {path!r}")


def file_kind(mode: int) -> str | None:
    """None for a regular file, else what the mode says it is."""
    if stat_mod.S_ISREG(mode):
        return None
    return next((name for test, name in _KINDS if test(mode)), "special file")


def open_regular(path: str, shown: str | None = None) -> BinaryIO:
    """Open ``path`` for reading only if it is a regular file (errors name ``shown`` or ``path``)."""
    name = path if shown is None else shown
    mode = os.stat(path).st_mode
    if stat_mod.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), name)
    kind = file_kind(mode)
    if kind is not None:
        raise NotRegularFile(kind, name)
    # non-blocking: if the path was swapped for a FIFO since the stat, the open still returns
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    kind = file_kind(os.fstat(fd).st_mode)
    if kind is not None:
        os.close(fd)
        raise NotRegularFile(kind, name)
    return os.fdopen(fd, "rb")


def read_limited(fh: BinaryIO, shown: str, limit: int = MAX_FILE_BYTES) -> bytes:
    data = fh.read(limit + 1)
    if len(data) > limit:
        raise FileTooLarge(limit, shown)
    return data


def pieces(fh: BinaryIO) -> Iterator[bytes]:
    """``fh``'s lines, each in pieces of at most ``MAX_LINE_PIECE`` bytes (a C-level iterator)."""
    return iter(functools.partial(fh.readline, MAX_LINE_PIECE), b"")


@dataclass(frozen=True)
class FileInfo:
    path: str
    size: int
    mtime: float


class ClientFiles(Protocol):
    def read_bytes(self, path: str) -> bytes: ...

    def stat(self, path: str) -> FileInfo | None: ...

    def iter_files(self, root: str, suffix: str) -> Iterator[FileInfo]: ...

    def iter_lines(self, path: str) -> Iterator[bytes]: ...

    def same_file(self, a: str, b: str) -> bool: ...


class LocalClientFiles:
    """The real filesystem. ``max_file_bytes`` bounds ``read_bytes`` (tests lower it)."""

    def __init__(self, max_file_bytes: int = MAX_FILE_BYTES) -> None:
        self._limit = max_file_bytes

    def read_bytes(self, path: str) -> bytes:
        with open_regular(path) as fh:
            return read_limited(fh, path, self._limit)

    def stat(self, path: str) -> FileInfo | None:
        try:
            st = os.stat(path)
        except OSError:
            return None
        return FileInfo(path=path, size=st.st_size, mtime=st.st_mtime)

    def iter_files(self, root: str, suffix: str) -> Iterator[FileInfo]:
        found: list[FileInfo] = []
        for dirpath, dirnames, filenames in os.walk(root, onerror=lambda _e: None):
            dirnames.sort()
            for name in filenames:
                if name.endswith(suffix):
                    info = self.stat(os.path.join(dirpath, name))
                    if info is not None:
                        found.append(info)
        yield from sorted(found, key=lambda f: f.path)

    def iter_lines(self, path: str) -> Iterator[bytes]:
        with open_regular(path) as fh:
            yield from pieces(fh)

    def same_file(self, a: str, b: str) -> bool:
        try:
            return os.path.samefile(a, b)
        except OSError:
            return False
