"""Progress notifications for a long tool call: at most one per second of the injected clock, with
the latest line of output as the message. The MCP layer hands a sender when the client asked for
progress (a ``progressToken``), else None and nothing is sent."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from wslmcp.boundaries.clock import Clock

#: ``send(progress, total, message)``: one ``notifications/progress`` for the call in flight
ProgressSender = Callable[[float, float | None, str | None], Awaitable[None]]

INTERVAL_S = 1.0
MESSAGE_CHARS = 200
TAIL_BYTES = 4096


def latest_line(tail: bytes) -> str | None:
    """The last non-blank line of ``tail`` (the end of some output), cut to ``MESSAGE_CHARS``."""
    for raw in reversed(tail.decode("utf-8", "replace").replace("\r", "\n").split("\n")):
        line = raw.strip()
        if line:
            return line if len(line) <= MESSAGE_CHARS else line[: MESSAGE_CHARS - 1] + "…"
    return None


class Throttle:
    """Passes a notification on to ``send`` when none went out in the last ``interval_s`` of
    ``clock``; drops it otherwise. ``send`` None: nothing is ever sent."""

    def __init__(self, send: ProgressSender | None, clock: Clock, interval_s: float = INTERVAL_S) -> None:
        self.send = send
        self.clock = clock
        self.interval_s = interval_s
        self._last: float | None = None

    @property
    def wanted(self) -> bool:
        return self.send is not None

    async def __call__(self, progress: float, total: float | None, message: str | None) -> bool:
        """Send unless one went out less than ``interval_s`` ago; whether it was sent."""
        if self.send is None:
            return False
        now = self.clock.monotonic()
        if self._last is not None and now - self._last < self.interval_s:
            return False
        self._last = now
        await self.send(progress, total, message)
        return True
