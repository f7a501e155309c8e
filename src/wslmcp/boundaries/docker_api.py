"""The Docker Engine API as a boundary (HTTP/1.1 over a unix socket or a Windows named pipe).

Contract
--------
``endpoint``
    Where the daemon is (``DockerEndpoint``: ``unix:///var/run/docker.sock`` or
    ``npipe:////./pipe/dockerDesktopLinuxEngine``) and how it was chosen (``DOCKER_HOST``, a docker
    context, the default): see ``wslmcp.boundaries.docker_host.resolve_endpoint``.
``get(path, query=None, *, timeout_s) -> ApiAnswer``
    One ``GET`` of an *unversioned* Engine path (``/containers/json``, ``/containers/{id}/stats``
    with ``stream=false``, ``/containers/{id}/top``, ``/containers/{id}/json``, ``/version``).
    The API version is negotiated once through ``GET /_ping``'s ``Api-Version`` header as
    ``min(MAX_API_VERSION, Api-Version)`` and every later path is sent as ``/v<version><path>``
    (``/_ping`` itself is never versioned); a ping without the header, or with a version that
    cannot be read, sends paths unversioned (the daemon then serves its own version). After a
    connection failure the next request negotiates again (a daemon may have been upgraded).
    ``timeout_s`` bounds the whole request (connect, negotiation included, headers and body);
    every call is independent, so any number may run concurrently (one connection each).
    Chunked and ``Content-Length`` bodies are both read. The answer carries the HTTP status,
    the response headers (names lower-cased) and the body: decoded JSON for
    ``application/json``, else the text (``/_ping``'s ``OK``); without a content type, JSON when
    it parses as JSON. Query values are percent-encoded (a space is ``%20``). A non-2xx status is a normal answer
    (the Engine's ``{"message": ...}`` body tells why).
Errors (all ``DockerError``, an ``OSError``)
    ``DockerAbsent``      nothing listens at the endpoint (no socket file / no pipe).
    ``DockerUnavailable`` the daemon cannot be reached (refused, reset, closed early); the
                          superclass of ``DockerAbsent`` and ``DockerTimeout``.
    ``DockerTimeout``     ``timeout_s`` passed (a hung daemon); the request is abandoned.
    ``DockerBadAnswer``   the bytes are not HTTP, or a JSON body does not decode.

Real adapter: ``wslmcp.boundaries.docker_engine.EngineApi`` (stdlib asyncio streams; see
docs/observe.md "Docker transport"). Twin: ``wslmcp.fakes.docker_api.FakeDockerApi`` (the Engine's recorded
answers keyed by path and query, in recorded order). On Linux CI the real adapter runs against an
Engine stand-in serving the same recorded answers on a unix socket, and against a real dockerd
when one can start.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

# What ``/containers/{id}/top`` is asked for: args last, since the daemon joins a line's overflow
# into the last column (a comm with spaces would shift the others).
TOP_PS_ARGS: Final = "-eo pid,ppid,rss,time,comm,args"
# The newest Engine API this client speaks; Docker 29 refuses below 1.44, Debian's 20.10 serves up to 1.41.
MAX_API_VERSION: Final = "1.47"


class DockerError(OSError):
    """The Engine could not give an answer."""


class DockerUnavailable(DockerError):
    """The Docker daemon cannot be reached."""


class DockerAbsent(DockerUnavailable):
    """Nothing listens at the endpoint: no socket file, no named pipe."""


class DockerTimeout(DockerUnavailable):
    """The request's deadline passed before the answer was complete."""


class DockerBadAnswer(DockerError):
    """The daemon's bytes are not a readable HTTP answer (or its JSON body does not decode)."""


@dataclass(frozen=True)
class DockerEndpoint:
    url: str  # unix:///path or npipe:////./pipe/name
    source: str  # "DOCKER_HOST", "DOCKER_CONTEXT <name>", "context <name>" or "default"

    @property
    def scheme(self) -> str:
        return self.url.split("://", 1)[0]

    @property
    def address(self) -> str:
        """The socket path (``/var/run/docker.sock``) or the pipe path (``//./pipe/docker_engine``)."""
        return self.url.split("://", 1)[1]


@dataclass(frozen=True)
class ApiAnswer:
    status: int
    body: Any
    headers: Mapping[str, str] = field(default_factory=dict)
    api_version: str | None = None  # the version the path was sent with; None = unversioned


class DockerApi(Protocol):
    @property
    def endpoint(self) -> DockerEndpoint: ...

    async def get(
        self, path: str, query: Mapping[str, str] | None = None, *, timeout_s: float
    ) -> ApiAnswer: ...


def api_version_tuple(version: str) -> tuple[int, int] | None:
    """``"1.41"`` → ``(1, 41)``; None when it is not ``major.minor``."""
    major, _, minor = version.strip().partition(".")
    if not (major.isdigit() and minor.isdigit()):
        return None
    return int(major), int(minor)


def negotiate(daemon_version: str | None) -> str | None:
    """The version to send: ``min(MAX_API_VERSION, daemon's)``; None (unversioned) when the
    daemon did not say or said something unreadable."""
    theirs = api_version_tuple(daemon_version) if daemon_version is not None else None
    if theirs is None:
        return None
    ours = api_version_tuple(MAX_API_VERSION)
    assert ours is not None
    return MAX_API_VERSION if ours <= theirs else f"{theirs[0]}.{theirs[1]}"
