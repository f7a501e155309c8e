"""Sessions: a remembered working directory per id, one call at a time, forgotten when idle.

Nothing runs in the distro to open or close a session; a session is this server's memory only.
Idle expiry is checked whenever the store is used (no timer), against the injected Clock, and
never forgets a session with a call in flight.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from wslmcp.arguments import quoted
from wslmcp.boundaries.clock import Clock

MAX_SESSIONS = 32
IDLE_SECONDS = 15 * 60


class SessionError(LookupError):
    """An unknown session id, or too many open sessions."""


@dataclass
class Session:
    id: str
    cwd: str | None
    opened_wall: float
    last_used: float
    commands: int = 0
    busy: int = 0
    lock: asyncio.Lock = field(default_factory=asyncio.Lock, repr=False)


class SessionStore:
    def __init__(
        self, clock: Clock, prefix: str, *, limit: int = MAX_SESSIONS, idle_s: float = IDLE_SECONDS
    ) -> None:
        self.clock = clock
        self.prefix = prefix
        self.limit = limit
        self.idle_s = idle_s
        self._sessions: dict[str, Session] = {}
        self._counter = 0

    def expire(self) -> list[str]:
        """Forget sessions idle for ``idle_s`` or more (never one with a call in flight)."""
        now = self.clock.monotonic()
        gone = [s.id for s in self._sessions.values() if s.busy == 0 and now - s.last_used >= self.idle_s]
        for sid in gone:
            del self._sessions[sid]
        return gone

    def open(self, cwd: str | None) -> Session:
        self.expire()
        if len(self._sessions) >= self.limit:
            raise SessionError(f"too many open sessions ({self.limit}); close some with wsl_disconnect first")
        self._counter += 1
        sid = f"{self.prefix}#{self._counter}"
        session = Session(sid, cwd, self.clock.wall(), self.clock.monotonic())
        self._sessions[sid] = session
        return session

    def get(self, sid: str) -> Session:
        self.expire()
        session = self._sessions.get(sid.strip())
        if session is None:
            known = ", ".join(self._sessions) or "none"
            raise SessionError(
                f"unknown session '{quoted(sid.strip())}' (open sessions: {known}); sessions idle for "
                f"{self.idle_s / 60:g} minutes are forgotten, open a new one with wsl_connect"
            )
        return session

    def close(self, sid: str) -> Session:
        session = self.get(sid)
        del self._sessions[session.id]
        return session

    def all(self) -> list[Session]:
        self.expire()
        return list(self._sessions.values())

    def touch(self, session: Session) -> None:
        session.last_used = self.clock.monotonic()

    def idle_seconds(self, session: Session) -> float:
        return max(0.0, self.clock.monotonic() - session.last_used)
