"""The Docker Engine API as a boundary.

Contract
--------
``get(path, query=None) -> ApiAnswer``
    One HTTP GET against the Engine API (``/v1.43/containers/json``, ``/containers/{id}/stats``
    with ``stream=false``, ``/containers/{id}/top`` …) over the unix socket
    (``/var/run/docker.sock``) or the Windows named pipe (``//./pipe/docker_engine``). The answer
    carries the HTTP status and the decoded JSON body; a non-2xx status is a normal answer (the
    Engine's ``{"message": ...}`` body tells why).
Errors
    ``DockerUnavailable`` when the daemon cannot be reached (no socket, refused, timed out).

Real adapter: stdlib HTTP over the socket (observe part 2). Fake: the Engine's recorded JSON
answers keyed by method, path and query; on Linux CI the real adapter also runs against an Engine
stand-in serving those answers on a unix socket.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol


class DockerUnavailable(OSError):
    """The Docker daemon cannot be reached."""


@dataclass(frozen=True)
class ApiAnswer:
    status: int
    body: Any


class DockerApi(Protocol):
    async def get(self, path: str, query: Mapping[str, str] | None = None) -> ApiAnswer: ...
