"""Client configuration files and transcripts replayed from a scenario's fixture home."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from wslmcp.boundaries.client_files import (
    MAX_FILE_BYTES,
    ClientFiles,
    FileInfo,
    NotRegularFile,
    open_regular,
    pieces,
    read_limited,
)
from wslmcp.fakes.replay import ReplayMiss
from wslmcp.scenario.loader import Scenario


class FakeClientFiles:
    """The scenario's ``home.dir`` stands at ``home.path``. Paths outside that home do not exist.

    Modification times come from ``home.mtimes`` (relative path -> epoch seconds), else
    ``home.mtime_default``: git keeps no mtimes, and transcript windows depend on them.

    A scenario without a ``home`` holds no client files at all: every request is a ``ReplayMiss``,
    so a replay never falls through to the real filesystem.

    ``home.special`` (relative path -> "FIFO", "character device", "block device" or "socket")
    stands for special files git cannot hold: they exist for ``stat`` and ``iter_files`` (size 0)
    and reading them raises ``NotRegularFile``, as the real adapter does. A fixture file that
    really is special (a committed symlink to ``/dev/zero``) gets the same check.
    """

    def __init__(self, scenario: Scenario, max_file_bytes: int = MAX_FILE_BYTES) -> None:
        self._limit = max_file_bytes
        self._scenario = scenario.name
        home = scenario.section("home")
        self._dir = scenario.file(str(home["dir"])) if home else None
        self._home = str(home.get("path", "")).rstrip("/")
        self._mtimes = {str(k): float(v) for k, v in dict(home.get("mtimes", {})).items()}
        self._default = float(home.get("mtime_default", 0.0))
        self._special = {str(k): str(v) for k, v in dict(home.get("special", {})).items()}

    @property
    def home(self) -> str:
        return self._home

    def _root(self, path: str) -> Path:
        if self._dir is None:
            raise ReplayMiss(
                "client_files", self._scenario, f"{path} (the scenario holds no client files)", []
            )
        return self._dir

    def _local(self, path: str) -> Path | None:
        root = self._root(path)
        norm = os.path.normpath(path)
        if norm != self._home and not norm.startswith(self._home + "/"):
            return None
        return root / norm[len(self._home) :].lstrip("/")

    def _rel(self, path: str) -> str:
        return os.path.normpath(path)[len(self._home) :].lstrip("/")

    def _open(self, path: str) -> BinaryIO:
        local = self._local(path)
        if local is None:
            raise FileNotFoundError(2, "No such file or directory (outside the fixture home)", path)
        kind = self._special.get(self._rel(path))
        if kind is not None:
            raise NotRegularFile(kind, path)
        try:
            return open_regular(str(local), path)
        except FileNotFoundError:
            raise FileNotFoundError(2, "No such file or directory", path) from None

    def read_bytes(self, path: str) -> bytes:
        with self._open(path) as fh:
            return read_limited(fh, path, self._limit)

    def stat(self, path: str) -> FileInfo | None:
        local = self._local(path)
        if local is None:
            return None
        rel = self._rel(path)
        if rel in self._special:
            return FileInfo(path=path, size=0, mtime=self._mtimes.get(rel, self._default))
        try:
            size = local.stat().st_size
        except OSError:
            return None
        rel = local.relative_to(self._root(path)).as_posix()
        return FileInfo(path=path, size=size, mtime=self._mtimes.get(rel, self._default))

    def iter_files(self, root: str, suffix: str) -> Iterator[FileInfo]:
        local = self._local(root)
        if local is None or not local.is_dir():
            return
        found = []
        for dirpath, dirnames, filenames in os.walk(local):
            dirnames.sort()
            for name in filenames:
                if name.endswith(suffix):
                    rel = Path(dirpath, name).relative_to(self._root(root)).as_posix()
                    info = self.stat(f"{self._home}/{rel}")
                    if info is not None:
                        found.append(info)
        prefix = self._rel(root).rstrip("/")
        for rel in self._special:
            inside = not prefix or rel.startswith(prefix + "/")
            if inside and rel.endswith(suffix):
                found.append(FileInfo(f"{self._home}/{rel}", 0, self._mtimes.get(rel, self._default)))
        yield from sorted(found, key=lambda f: f.path)

    def iter_lines(self, path: str) -> Iterator[bytes]:
        with self._open(path) as fh:
            yield from pieces(fh)

    def same_file(self, a: str, b: str) -> bool:
        la, lb = self._local(a), self._local(b)
        if la is None or lb is None or not la.exists() or not lb.exists():
            return False
        return la.resolve() == lb.resolve()


class RecordingClientFiles:
    """A ``ClientFiles`` that notes every file the wrapped one hands out: read, streamed or listed
    (a listed special file too, with what it is). What the profiler takes through it is exactly what
    a profile recording copies into its fixture home (``taken``; special files as ``home.special``)."""

    def __init__(self, inner: ClientFiles) -> None:
        self.inner = inner
        self.taken: set[str] = set()
        self.special: dict[str, str] = {}

    def read_bytes(self, path: str) -> bytes:
        try:
            data = self.inner.read_bytes(path)
        except NotRegularFile as exc:
            self.special[path] = exc.kind
            raise
        self.taken.add(path)
        return data

    def stat(self, path: str) -> FileInfo | None:
        return self.inner.stat(path)

    def iter_files(self, root: str, suffix: str) -> Iterator[FileInfo]:
        for info in self.inner.iter_files(root, suffix):
            self.taken.add(info.path)
            yield info

    def iter_lines(self, path: str) -> Iterator[bytes]:
        try:
            lines = self.inner.iter_lines(path)
            first = next(lines, None)
        except NotRegularFile as exc:
            self.special[path] = exc.kind
            raise
        self.taken.add(path)
        if first is not None:
            yield first
            yield from lines

    def same_file(self, a: str, b: str) -> bool:
        return self.inner.same_file(a, b)
