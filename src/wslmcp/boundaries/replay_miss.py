"""What a recorded twin raises for a request its scenario does not hold, and how a replaying server
answers it.

``NotRecorded`` is the base of ``wslmcp.fakes.replay.ReplayMiss``; the servers catch it (they never import
the twins). Under ``--replay`` a call that needs an unrecorded exchange is answered with a JSON-RPC
error whose message is ``replay miss: `` + the miss's text (boundary, request, what the scenario
offers), so a client can tell "the scenario lacks this" from a tool's own error.

A miss counts even where the code that met it carried on (a collector that turns a failed source
into a warning or an error answer): every ``NotRecorded`` made while a call is ``watch``ed is noted,
so the call is answered as the miss it met, not as what the code made of it. A miss the caller
expects and answers for itself (``tolerate``) is not noted.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar

PREFIX = "replay miss:"

_NOTED: ContextVar[list[NotRecorded] | None] = ContextVar("replay_misses", default=None)


class NotRecorded(LookupError):
    """A twin was asked for something its scenario does not hold (noted by the call being watched)."""

    def __init__(self, *args: object) -> None:
        super().__init__(*args)
        noted = _NOTED.get()
        if noted is not None:
            noted.append(self)


@contextlib.contextmanager
def watch() -> Iterator[list[NotRecorded]]:
    """The misses met while the block runs (in tasks and threads it starts too), in order."""
    noted: list[NotRecorded] = []
    token = _NOTED.set(noted)
    try:
        yield noted
    finally:
        _NOTED.reset(token)


def tolerate(miss: NotRecorded) -> None:
    """``miss`` was expected and answered for by its caller: the call did not miss."""
    noted = _NOTED.get()
    if noted is not None and miss in noted:
        noted.remove(miss)


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
