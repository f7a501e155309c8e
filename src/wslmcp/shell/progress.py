"""Progress notifications for a long tool call: at most one per second of the injected clock, with
the latest line of output as the message. The MCP layer hands a sender when the client asked for
progress (a ``progressToken``), else None and nothing is sent."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from wslmcp.boundaries.clock import Clock
from wslmcp.boundaries.shell_transport import ScriptCall
from wslmcp.shell.output import Kept
from wslmcp.shell.runner import Run, Runner

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


class Watched:
    """A wsl_exec call watched for progress: every ``INTERVAL_S`` of the clock a notification with
    the time so far and the latest line of its stdout (``out``, the sink its stdout passes through)."""

    def __init__(self, send: ProgressSender, clock: Clock, total_ms: int) -> None:
        self.throttle = Throttle(send, clock)
        self.clock = clock
        self.total_ms = total_ms

    async def run(self, runner: Runner, call: ScriptCall, token: str, out: Kept) -> Run:
        ticker = asyncio.ensure_future(self._tick(self.clock.monotonic(), out))
        try:
            return await runner.run(call, token=token)
        finally:
            ticker.cancel()
            await asyncio.gather(ticker, return_exceptions=True)

    async def _tick(self, began: float, out: Kept) -> None:
        while True:
            await self.throttle(
                round((self.clock.monotonic() - began) * 1000),
                self.total_ms,
                latest_line(out.last(TAIL_BYTES)),
            )
            await self.clock.sleep(INTERVAL_S)
