"""Client configuration files as ``wslmcp install`` reads and replaces them, as a boundary.

Contract
--------
All paths are absolute, as this system writes them.
``read(path) -> bytes | None``   the whole file (at most ``MAX_FILE_BYTES``); None when absent. A
                                 symbolic link is followed. ``PermissionError``, ``IsADirectoryError``,
                                 ``NotRegularFile`` (a FIFO, device or socket: never opened for
                                 reading), ``FileTooLarge``.
``exists(path) -> bool``         a file or directory is there (a client's own directory: installed).
``replace(path, data, *, expected, backup)``
                                 ``path`` holds ``data`` afterwards, or, on any error, exactly what it
                                 held: ``data`` goes to a temp file beside it (flushed and synced),
                                 which is renamed over it. Just before, the file must still hold
                                 ``expected`` (None: be absent), else ``Changed`` and nothing is
                                 written. When the file exists its bytes are first kept in ``backup``
                                 (replaced the same way, mode 0600). A file that exists keeps its
                                 mode; a new one gets 0600 and its missing directories 0700. A
                                 symbolic link stays a link: the file it names is replaced. No temp
                                 file is left behind on an error or an interrupt.

Real adapter: ``LocalConfigFiles`` (this filesystem). Twin: ``wslmcp.fakes.config_files.MemoryConfigFiles``,
files and directories in memory (optionally seeded from a directory), with the same checks.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Callable
from typing import Protocol

from wslmcp.boundaries.client_files import MAX_FILE_BYTES, open_regular, read_limited

TEMP_SUFFIX = ".wslmcp-partial"


class Changed(OSError):
    """The file changed between reading it and replacing it: nothing was written."""

    def __init__(self, path: str) -> None:
        super().__init__(f"{path} changed while it was being edited; nothing was written, run again")
        self.path = path


class ConfigFiles(Protocol):
    def read(self, path: str) -> bytes | None: ...

    def exists(self, path: str) -> bool: ...

    def replace(self, path: str, data: bytes, *, expected: bytes | None, backup: str | None) -> None: ...


class LocalConfigFiles:
    def __init__(self, max_file_bytes: int = MAX_FILE_BYTES) -> None:
        self._limit = max_file_bytes

    def read(self, path: str) -> bytes | None:
        try:
            with open_regular(path) as fh:
                return read_limited(fh, path, self._limit)
        except FileNotFoundError:
            return None

    def exists(self, path: str) -> bool:
        return os.path.lexists(path)

    def replace(self, path: str, data: bytes, *, expected: bytes | None, backup: str | None) -> None:
        target = os.path.realpath(path)  # a link stays a link: the file it names is replaced
        if self.read(target) != expected:
            raise Changed(path)
        directory = os.path.dirname(target)
        os.makedirs(directory, mode=0o700, exist_ok=True)
        mode = stat.S_IMODE(os.stat(target).st_mode) if expected is not None else 0o600
        if expected is not None and backup is not None:
            _write_atomically(os.path.realpath(backup), expected, 0o600)
        _write_atomically(target, data, mode, unchanged=lambda: self.read(target) == expected, shown=path)


def _write_atomically(
    path: str, data: bytes, mode: int, unchanged: Callable[[], bool] = lambda: True, shown: str = ""
) -> None:
    """``data`` into a temp file beside ``path``, synced, then renamed over it, when ``unchanged()``
    still holds just before the rename (else ``Changed``, naming ``shown``)."""
    import secrets  # on demand: wiring builds this adapter for every run, few of them write

    directory, name = os.path.split(path)
    temp = os.path.join(directory, f".{name}.{secrets.token_hex(4)}{TEMP_SUFFIX}")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(temp, flags, 0o600)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(temp, mode)
        if not unchanged():
            raise Changed(shown or path)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
