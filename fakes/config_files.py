"""Client configuration files in memory: the twin of ``boundaries.config_files.LocalConfigFiles``."""

from __future__ import annotations

import posixpath
from collections.abc import Mapping

from wslmcp.boundaries.client_files import MAX_FILE_BYTES, FileTooLarge, NotRegularFile
from wslmcp.boundaries.config_files import Changed


class MemoryConfigFiles:
    """Files (path -> bytes) and the directories holding them, as the real adapter sees a home.

    ``special`` names paths that exist but are not regular files (a FIFO, ...): reading one raises
    ``NotRegularFile``; ``unreadable`` paths raise ``PermissionError``; ``links`` map a path to the
    one it names. ``modes`` records each file's mode as the real adapter would leave it.
    """

    def __init__(
        self,
        files: Mapping[str, bytes] | None = None,
        *,
        directories: tuple[str, ...] = (),
        special: Mapping[str, str] | None = None,
        unreadable: tuple[str, ...] = (),
        links: Mapping[str, str] | None = None,
        max_file_bytes: int = MAX_FILE_BYTES,
    ) -> None:
        self.files: dict[str, bytes] = {}
        self.modes: dict[str, int] = {}
        self.directories: set[str] = set()
        self.special = dict(special or {})
        self.unreadable = set(unreadable)
        self.links = dict(links or {})
        self._limit = max_file_bytes
        for directory in directories:
            self._make_parents(posixpath.join(directory, "x"))
        for path, data in (files or {}).items():
            self._put(path, data, 0o644)

    def _make_parents(self, path: str) -> None:
        parent = posixpath.dirname(path)
        while parent and parent not in self.directories and parent != "/":
            self.directories.add(parent)
            parent = posixpath.dirname(parent)

    def _put(self, path: str, data: bytes, mode: int) -> None:
        self._make_parents(path)
        self.files[path] = data
        self.modes[path] = mode

    def _target(self, path: str) -> str:
        return self.links.get(path, path)

    def read(self, path: str) -> bytes | None:
        path = self._target(path)
        if path in self.unreadable:
            raise PermissionError(13, "Permission denied", path)
        if path in self.special:
            raise NotRegularFile(self.special[path], path)
        if path in self.directories:
            raise IsADirectoryError(21, "Is a directory", path)
        data = self.files.get(path)
        if data is not None and len(data) > self._limit:
            raise FileTooLarge(self._limit, path)
        return data

    def exists(self, path: str) -> bool:
        return path in self.files or path in self.directories or path in self.special or path in self.links

    def replace(self, path: str, data: bytes, *, expected: bytes | None, backup: str | None) -> None:
        target = self._target(path)
        if self.read(target) != expected:
            raise Changed(path)
        mode = self.modes.get(target, 0o600) if expected is not None else 0o600
        if expected is not None and backup is not None:
            self._put(self._target(backup), expected, 0o600)
        self._put(target, data, mode)
