"""What a recorded twin raises for a request its scenario does not hold, and how a replaying server
answers it.

``NotRecorded`` is the base of ``fakes.replay.ReplayMiss``; the servers catch it (they never import
the twins). Under ``--replay`` a call that needs an unrecorded exchange is answered with a JSON-RPC
error whose message is ``replay miss: `` + the miss's text (boundary, request, what the scenario
offers), so a client can tell "the scenario lacks this" from a tool's own error.
"""

from __future__ import annotations

PREFIX = "replay miss:"


class NotRecorded(LookupError):
    """A twin was asked for something its scenario does not hold."""


def find(exc: BaseException | None) -> NotRecorded | None:
    """The ``NotRecorded`` behind ``exc`` (itself, or along its causes and contexts), if any."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, NotRecorded):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


def message(miss: NotRecorded) -> str:
    return f"{PREFIX} {miss}"
