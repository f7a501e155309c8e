"""Run tokens of a replay: a counter, as when the scenario was recorded (its exchanges hold them)."""

from __future__ import annotations

import itertools


class CountingTokens:
    """``0000000000000001``, ``0000000000000002``, ...: the recorder's tokens, in order."""

    def __init__(self) -> None:
        self._counter = itertools.count(1)

    def next(self) -> str:
        return f"{next(self._counter):016x}"
