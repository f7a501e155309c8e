"""The one way the replay layer talks to a server: the SDK's ``Client`` over in-memory streams.

``mode="legacy"`` runs the initialize handshake and JSON-RPC framing over memory streams, as a
stdio client would; no response cache, so every call reaches the server.

A tool that crashes reaches the client only as ``Error executing tool NAME``; the SDK logs the
exception itself. ``crashes()`` collects those exceptions while a replay runs, so a check can name
what went wrong (typically a twin's ``ReplayMiss``) instead of the bare reply.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import Any

from mcp import Client
from mcp.server.lowlevel import Server
from mcp.server.mcpserver import MCPServer


def connect(server: Server[Any] | MCPServer) -> Client:
    return Client(server, mode="legacy", cache=None, read_timeout_seconds=60)


class _Collect(logging.Handler):
    def __init__(self, into: list[BaseException]) -> None:
        super().__init__(logging.ERROR)
        self._into = into

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info and record.exc_info[1] is not None:
            self._into.append(record.exc_info[1])


@contextlib.contextmanager
def crashes() -> Iterator[list[BaseException]]:
    """The exceptions the SDK logs while the block runs (kept off stderr)."""
    logger = logging.getLogger("mcp")
    found: list[BaseException] = []
    handler = _Collect(found)
    propagate, level = logger.propagate, logger.level
    logger.addHandler(handler)
    logger.propagate = False
    logger.setLevel(logging.ERROR)  # a server may have quietened the SDK's log
    try:
        yield found
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate
        logger.setLevel(level)


def root_cause(exc: BaseException, kind: type[BaseException]) -> BaseException:
    """The first ``kind`` in ``exc``'s chain of causes, else ``exc`` itself."""
    cause: BaseException | None = exc
    while cause is not None and not isinstance(cause, kind):
        cause = cause.__cause__
    return cause or exc
