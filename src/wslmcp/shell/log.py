"""The shell server's log: one JSON object per line on a text stream (stderr), filtered by level."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import TextIO

from wslmcp.boundaries.clock import Clock
from wslmcp.shell.config import LogLevel

_WEIGHT = {"silent": 100, "debug": 1, "info": 2, "warn": 3, "error": 4}
_SECRET_KEYS = ("password", "passphrase", "secret", "token")


class Log:
    """``debug``/``info``/``warn``/``error`` with keyword metadata. Full command text is only ever
    passed at debug (and, for guard refusals, at warn) by the callers."""

    def __init__(self, level: LogLevel, stream: TextIO, clock: Clock) -> None:
        self.level = level
        self.stream = stream
        self.clock = clock

    def enabled(self, level: LogLevel) -> bool:
        return level != "silent" and _WEIGHT[level] >= _WEIGHT[self.level]

    def _write(self, level: LogLevel, message: str, meta: dict[str, object]) -> None:
        if not self.enabled(level):
            return
        when = datetime.fromtimestamp(self.clock.wall(), UTC).isoformat(timespec="milliseconds")
        record: dict[str, object] = {"time": when, "level": level, "message": message}
        for key, value in meta.items():
            record[key] = "***" if key.lower() in _SECRET_KEYS else value
        self.stream.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")
        self.stream.flush()

    def debug(self, message: str, **meta: object) -> None:
        self._write("debug", message, meta)

    def info(self, message: str, **meta: object) -> None:
        self._write("info", message, meta)

    def warn(self, message: str, **meta: object) -> None:
        self._write("warn", message, meta)

    def error(self, message: str, **meta: object) -> None:
        self._write("error", message, meta)
