"""The local side of file transfers replayed from a scenario's fixture directory (``local_files``).

Scenario section::

    "local_files": {"dir": "local", "path": "/home/user/work", "home": "/home/user", "cwd": "/home/user"}

The fixture directory ``dir`` stands at the absolute ``path``. Reads of files under ``path`` are
served from it (an absent file is an absent file); a request outside ``path`` is a ``ReplayMiss``,
so a replay never falls through to the real filesystem. Downloads write into memory (``written``):
a commit replaces the destination whole, an abort leaves nothing. Paths are POSIX; ``~`` is
``home`` and relative paths start at ``cwd``. The temp-file ledger is in memory and a replay has no
servers that went before it, so ``reclaim`` returns nothing.
"""

from __future__ import annotations

import io
import posixpath
from pathlib import Path

from wslmcp.fakes.replay import ReplayMiss
from wslmcp.scenario.loader import Scenario


class FakeSource:
    def __init__(self, data: bytes) -> None:
        self._data = io.BytesIO(data)
        self.size = len(data)

    def read(self, n: int) -> bytes:
        return self._data.read(n)

    def close(self) -> None:
        self._data.close()


class FakePartial:
    def __init__(self, owner: FakeLocalFiles, dest: str) -> None:
        self._owner, self.dest = owner, dest
        self._data = bytearray()
        self.written = 0
        self._done = False

    def write(self, data: bytes) -> None:
        self._data += data
        self.written += len(data)

    def commit(self) -> None:
        self._owner.written[self.dest] = bytes(self._data)
        self._done = True

    def abort(self) -> None:
        self._done = True


class FakeLocalFiles:
    boundary = "local_files"

    def __init__(self, scenario: Scenario) -> None:
        self._scenario = scenario.name
        section = scenario.section("local_files")
        self._dir: Path | None = scenario.file(str(section["dir"])) if section else None
        self._path = str(section.get("path", "/")).rstrip("/") or "/"
        self._home = str(section.get("home", self._path))
        self._cwd = str(section.get("cwd", self._home))
        self.written: dict[str, bytes] = {}
        self.ledger: list[tuple[str, str]] = []

    def _fixture(self, path: str) -> Path:
        norm = posixpath.normpath(path)
        inside = norm == self._path or norm.startswith(self._path.rstrip("/") + "/")
        if self._dir is None or not inside:
            offered = [f"files under {self._path}"] if self._dir is not None else []
            raise ReplayMiss(self.boundary, self._scenario, f"local file {path[:200]}", offered)
        return self._dir / norm[len(self._path) :].lstrip("/")

    def resolve(self, path: str) -> str:
        if path == "~" or path.startswith("~/"):
            path = self._home + path[1:]
        return posixpath.normpath(posixpath.join(self._cwd, path))

    def real(self, path: str) -> str:
        return posixpath.normpath(path)  # fixture directories hold no symlinks

    def open_source(self, path: str) -> FakeSource:
        local = self._fixture(path)
        if path in self.written:
            return FakeSource(self.written[path])
        if local.is_dir():
            raise IsADirectoryError(21, "local path is not a regular file", path)
        try:
            return FakeSource(local.read_bytes())
        except FileNotFoundError:
            raise FileNotFoundError(2, "No such file or directory", path) from None

    def partial(self, dest: str) -> FakePartial:
        parent = self._fixture(posixpath.dirname(dest) or "/")
        if not parent.is_dir():
            raise OSError(f"local directory does not exist: {posixpath.dirname(dest)}")
        if self._fixture(dest).is_dir():
            raise OSError(f"local path is a directory: {dest}")
        return FakePartial(self, dest)

    def track(self, where: str, path: str) -> None:
        self.ledger.append((where, path))

    def untrack(self, where: str, path: str) -> None:
        if (where, path) in self.ledger:
            self.ledger.remove((where, path))

    def reclaim(self) -> list[tuple[str, str]]:
        return []

    def close(self) -> None:
        pass
