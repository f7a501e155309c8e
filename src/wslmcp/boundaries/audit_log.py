"""The audit log file as a boundary: append-only lines at a path the operator named.

Contract
--------
``ready()``          raises ``OSError`` when the file cannot be opened for appending (a missing
                     directory, no permission, a directory at the path); creates it (mode 0600)
                     otherwise. Called before a tool call runs when the log is required.
``append(line)``     appends ``line`` (UTF-8 bytes ending in ``\\n``) with one ``write`` on a
                     descriptor opened ``O_APPEND``, so lines from concurrent threads and processes
                     never interleave (POSIX appends are atomic with respect to the file offset;
                     one line is far below any filesystem's atomic-write size in practice). Raises
                     ``OSError`` when it cannot; a short write is retried for the remainder, which
                     is only reachable on a full disk.

The real adapter is ``AppendOnlyFile``; the twin is ``wslmcp.fakes.audit_log.MemoryAuditLog``.
"""

from __future__ import annotations

import os
from typing import Protocol


class AuditLogFile(Protocol):
    def ready(self) -> None: ...

    def append(self, line: bytes) -> None: ...


class AppendOnlyFile:
    """``O_WRONLY | O_APPEND | O_CREAT``, one ``os.write`` per line, the descriptor closed after."""

    def __init__(self, path: str) -> None:
        self.path = path

    def _open(self) -> int:
        return os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)

    def ready(self) -> None:
        os.close(self._open())

    def append(self, line: bytes) -> None:
        fd = self._open()
        try:
            view = memoryview(line)
            while view:
                written = os.write(fd, view)
                view = view[written:]
        finally:
            os.close(fd)
