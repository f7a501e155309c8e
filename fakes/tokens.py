"""Run tokens of a replay: a counter, as when the scenario was recorded (its exchanges hold them)."""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

_TOKEN = re.compile(r"WSLMCP_RUN=([0-9a-f]{16})")


class CountingTokens:
    """``0000000000000001``, ``0000000000000002``, ...: the recorder's tokens, in order.

    A run the scenario does not hold never happened in the recording, so its token is handed out
    again (``unused``): one replay miss does not shift every later recorded exchange."""

    def __init__(self) -> None:
        self._counter = itertools.count(1)
        self._returned: list[str] = []

    def next(self) -> str:
        if self._returned:
            return self._returned.pop()
        return f"{next(self._counter):016x}"

    def unused(self, args: Sequence[str]) -> None:
        """The run with argument vector ``args`` missed the recording: its token is free again."""
        for arg in args:
            if match := _TOKEN.search(arg):
                self._returned.append(match.group(1))
                return
