"""The real Docker Engine API client: HTTP/1.1 through h11 on asyncio streams.

One connection per request (``Connection: close``), over a unix socket or, on Windows, a named
pipe through the proactor loop's ``create_pipe_connection``; ``asyncio.timeout`` bounds each
request, so a hung daemon costs the caller its deadline and nothing else. The contract is in
``wslmcp.boundaries.docker_api``; the choice of transport is argued in docs/observe.md.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote, urlencode

import h11

from wslmcp.boundaries.docker_api import (
    ApiAnswer,
    DockerAbsent,
    DockerBadAnswer,
    DockerEndpoint,
    DockerTimeout,
    DockerUnavailable,
    negotiate,
)

MAX_BODY = 64 * 1024 * 1024  # an Engine answer larger than this is not one we asked for
READ_BYTES = 65536
USER_AGENT = "wslmcp"


class EngineApi:
    """``DockerApi`` against a real daemon at ``endpoint``."""

    def __init__(self, endpoint: DockerEndpoint) -> None:
        if endpoint.scheme not in ("unix", "npipe"):
            raise ValueError(f"{endpoint.url}: only unix:// and npipe:// Docker endpoints are supported")
        self._endpoint = endpoint
        self._version: str | None = None
        self._negotiated = False
        self._lock: asyncio.Lock | None = None

    @property
    def endpoint(self) -> DockerEndpoint:
        return self._endpoint

    async def get(self, path: str, query: Mapping[str, str] | None = None, *, timeout_s: float) -> ApiAnswer:
        target = path + (f"?{urlencode(query, quote_via=quote)}" if query else "")
        try:
            async with asyncio.timeout(timeout_s):
                version = await self._negotiate()
                sent = f"/v{version}{target}" if version is not None and path != "/_ping" else target
                status, headers, body = await self._exchange(sent)
        except TimeoutError:
            raise DockerTimeout(
                f"{self._endpoint.url}: no complete answer to GET {target} within {timeout_s:g} s"
            ) from None
        except DockerUnavailable:
            self._negotiated = False
            raise
        return ApiAnswer(
            status, decode_body(body, headers, target), headers, version if sent != target else None
        )

    async def _negotiate(self) -> str | None:
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if not self._negotiated:
                status, headers, _ = await self._exchange("/_ping")
                self._version = negotiate(headers.get("api-version")) if status < 500 else None
                self._negotiated = True
            return self._version

    async def _exchange(self, target: str) -> tuple[int, dict[str, str], bytes]:
        reader, writer = await self._connect()
        try:
            conn = h11.Connection(h11.CLIENT, max_incomplete_event_size=1 << 20)
            request = h11.Request(
                method="GET",
                target=target,
                headers=[("Host", "docker"), ("User-Agent", USER_AGENT), ("Connection", "close")],
            )
            writer.write(conn.send(request) + conn.send(h11.EndOfMessage()))
            await writer.drain()
            return await _read_answer(conn, reader, self._endpoint.url, target)
        except (ConnectionError, BrokenPipeError) as exc:
            raise DockerUnavailable(
                f"{self._endpoint.url}: connection lost during GET {target}: {exc}"
            ) from None
        finally:
            writer.close()

    async def _connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        url = self._endpoint.url
        try:
            if self._endpoint.scheme == "unix":
                return await asyncio.open_unix_connection(self._endpoint.address, limit=READ_BYTES)
            return await _open_pipe(self._endpoint.address)
        except FileNotFoundError:
            raise DockerAbsent(
                f"{url}: no Docker daemon socket or pipe at {self._endpoint.address}"
            ) from None
        except ConnectionRefusedError:
            raise DockerUnavailable(f"{url}: connection refused (the daemon is not running)") from None
        except PermissionError:
            raise DockerUnavailable(
                f"{url}: permission denied (the user cannot open the Docker socket)"
            ) from None
        except OSError as exc:
            raise DockerUnavailable(f"{url}: cannot connect: {exc.strerror or exc}") from None


async def _read_answer(
    conn: h11.Connection, reader: asyncio.StreamReader, url: str, target: str
) -> tuple[int, dict[str, str], bytes]:
    status = 0
    headers: dict[str, str] = {}
    body = bytearray()
    while True:
        try:
            event = conn.next_event()
        except h11.RemoteProtocolError as exc:
            if status and reader.at_eof():  # a good start, then the connection closed mid-body
                raise DockerUnavailable(
                    f"{url}: the daemon closed the connection in the middle of its answer to GET {target}"
                ) from None
            raise DockerBadAnswer(f"{url}: GET {target}: not an HTTP answer ({exc})") from None
        if event is h11.NEED_DATA:
            data = await reader.read(READ_BYTES)
            if not data and not status:
                raise DockerUnavailable(
                    f"{url}: the daemon closed the connection before answering GET {target}"
                )
            conn.receive_data(data)
        elif isinstance(event, h11.Response):
            status = event.status_code
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in event.headers}
        elif isinstance(event, h11.Data):
            body += event.data
            if len(body) > MAX_BODY:
                raise DockerBadAnswer(f"{url}: GET {target}: answer larger than {MAX_BODY} bytes")
        elif isinstance(event, h11.EndOfMessage):
            return status, headers, bytes(body)
        elif isinstance(event, h11.ConnectionClosed):
            raise DockerUnavailable(f"{url}: the daemon closed the connection in the middle of GET {target}")


def decode_body(body: bytes, headers: Mapping[str, str], target: str) -> Any:
    """JSON for a JSON content type, text for another; without a content type, JSON when the
    body is JSON (some Engine-compatible daemons leave the header out), else text."""
    kind = headers.get("content-type", "")
    if kind and "json" not in kind:
        return body.decode("utf-8", errors="replace")
    if not kind:
        try:
            return json.loads(body) if body.strip() else body.decode("utf-8", errors="replace")
        except (UnicodeDecodeError, json.JSONDecodeError):
            return body.decode("utf-8", errors="replace")
    if not body.strip():
        return None
    try:
        return json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DockerBadAnswer(f"GET {target}: the JSON body does not decode ({exc})") from None


async def _open_pipe(address: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A named pipe (``//./pipe/docker_engine``) as asyncio streams; Windows' proactor loop only."""
    loop = asyncio.get_running_loop()
    create = getattr(loop, "create_pipe_connection", None)
    if sys.platform != "win32" or create is None:
        raise FileNotFoundError(address)
    reader = asyncio.StreamReader(limit=READ_BYTES, loop=loop)
    protocol = asyncio.StreamReaderProtocol(reader, loop=loop)
    transport, _ = await create(lambda: protocol, address.replace("/", "\\"))
    return reader, asyncio.StreamWriter(transport, protocol, reader, loop)
