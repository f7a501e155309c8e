"""Client configuration files and transcripts under a home directory, as a boundary.

Contract
--------
All paths are absolute POSIX-style strings as the user would write them.
``read_bytes(path) -> bytes``      the whole file. ``FileNotFoundError`` when absent,
                                   ``PermissionError`` when unreadable, ``IsADirectoryError``.
``stat(path) -> FileInfo | None``  size and modification time (epoch seconds); None when absent.
``iter_files(root, suffix)``       every regular file under ``root`` (recursively) whose name ends
                                   with ``suffix``, sorted by path; a missing root yields nothing;
                                   unreadable subdirectories are skipped.
``iter_lines(path)``               the file's lines as bytes (newline kept), streamed in bounded
                                   memory whatever the file's size.
``same_file(a, b) -> bool``        both paths name one existing file (hard links, symlinks and
                                   ``..`` resolved); False when either is absent.

Nothing here parses: the profiler decides what the bytes mean (JSON, TOML, JSONL), so garbage is
its to tolerate. Real adapter: ``LocalClientFiles`` (the real filesystem). Fake: a scenario's
fixture home (``fakes.client_files``), whose modification times come from the manifest because git
does not keep them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol


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
    """The real filesystem."""

    def read_bytes(self, path: str) -> bytes:
        with open(path, "rb") as fh:
            return fh.read()

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
        with open(path, "rb") as fh:
            yield from fh

    def same_file(self, a: str, b: str) -> bool:
        try:
            return os.path.samefile(a, b)
        except OSError:
            return False
