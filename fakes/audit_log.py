"""The audit log's twin: lines kept in memory; ``broken`` makes every call fail like a real file
whose directory is gone (``OSError``), for the ``WSL_AUDIT_REQUIRED`` paths."""

from __future__ import annotations

import threading


class MemoryAuditLog:
    def __init__(self, broken: bool = False) -> None:
        self.lines: list[bytes] = []
        self.broken = broken
        self._lock = threading.Lock()

    def ready(self) -> None:
        if self.broken:
            raise FileNotFoundError(2, "No such file or directory (twin marked broken)")

    def append(self, line: bytes) -> None:
        self.ready()
        if not line.endswith(b"\n") or b"\n" in line[:-1]:
            raise ValueError("an audit line is one line ending in a newline")
        with self._lock:
            self.lines.append(line)
