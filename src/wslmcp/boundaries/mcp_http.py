"""The real streamable-HTTP ``McpLauncher``: the read-only exchange POSTed to a server's URL.

Each message of ``mcp_exchange.ToolsListing`` is one POST (``Content-Type: application/json``,
``Accept: application/json, text/event-stream``); a request's answer comes back as a JSON body or
as a server-sent event stream, read until the answer to that request arrives. After
``initialize`` the server's ``Mcp-Session-Id`` and the negotiated ``MCP-Protocol-Version`` go on
every request; the session is ended with a DELETE when time is left. The only other headers sent
are the ones the server's own config holds (``spec.headers``): nothing from the environment, no
cookies, no redirects followed.

One deadline bounds everything: every socket wait gets what is left of it. A reply body or event
stream is bounded by ``max_output`` bytes. Failures are answers, never exceptions: the OS text of a
refused connection, ``{method} failed (HTTP {status})``, ``server closed the stream before
response id {N}``, ``unsupported URL scheme`` and the shared texts of ``mcp_exchange``. No error
text holds the URL or a header (either may carry a credential).
"""

from __future__ import annotations

import contextlib
import http.client
import json
import time
from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit

from wslmcp import __version__
from wslmcp.boundaries.mcp_exchange import (
    Message,
    ToolsListing,
    exceeded_reason,
    expects_answer,
    timeout_reason,
)
from wslmcp.boundaries.mcp_launcher import ServerAnswer, ServerSpec

DEFAULT_MAX_OUTPUT = 32 * 1024 * 1024
_ACCEPT = "application/json, text/event-stream"


class _Deadline(Exception):
    pass


class _Exceeded(Exception):
    pass


class HttpMcpLauncher:
    """``initialize`` and every ``tools/list`` page over streamable HTTP; blocks its thread."""

    def __init__(self, *, max_output: int = DEFAULT_MAX_OUTPUT) -> None:
        self._max_output = max_output

    def query(self, spec: ServerSpec, timeout_s: float) -> ServerAnswer:
        start = time.monotonic()
        deadline = start + timeout_s
        listing = ToolsListing(__version__)
        try:
            session = _Session(spec, deadline, self._max_output)
        except ValueError as err:
            return ServerAnswer(name=spec.name, error=str(err))
        try:
            session.converse(listing)
        except (_Deadline, TimeoutError):
            listing.fail(timeout_reason(timeout_s))
        except _Exceeded:
            listing.fail(exceeded_reason(self._max_output))
        except (OSError, http.client.HTTPException) as err:
            listing.fail(_os_text(err))
        finally:
            session.close()
        junk = "message(s)"
        detail = listing.junk_detail(junk) if listing.failure is None else listing.failure_detail(None, junk)
        return replace(listing.answer(spec.name, detail), duration_s=time.monotonic() - start)


def _os_text(err: BaseException) -> str:
    """The error's own text (mcp-top style), or its type when it has none."""
    return str(err) or type(err).__name__


class _Session:
    def __init__(self, spec: ServerSpec, deadline: float, max_output: int) -> None:
        assert spec.url is not None
        parts = urlsplit(spec.url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("unsupported URL scheme (streamable HTTP needs http:// or https://)")
        self._path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        kind = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        self._conn = kind(parts.hostname, parts.port, timeout=max(0.001, deadline - time.monotonic()))
        self._headers = dict(spec.headers)
        self._deadline = deadline
        self._max_output = max_output
        self._session_id: str | None = None
        self._protocol: str | None = None

    def _left(self) -> float:
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise _Deadline
        if self._conn.sock is not None:
            self._conn.sock.settimeout(left)
        else:
            self._conn.timeout = left
        return left

    def _post(self, message: Message) -> http.client.HTTPResponse:
        headers = {**self._headers, "Content-Type": "application/json", "Accept": _ACCEPT}
        if self._session_id is not None:
            headers["Mcp-Session-Id"] = self._session_id
        if self._protocol is not None:
            headers["MCP-Protocol-Version"] = self._protocol
        self._left()
        self._conn.request("POST", self._path, body=json.dumps(message).encode("utf-8"), headers=headers)
        self._left()
        response = self._conn.getresponse()
        self._session_id = response.getheader("Mcp-Session-Id") or self._session_id
        return response

    def converse(self, listing: ToolsListing) -> None:
        outgoing = [listing.opening()]
        while outgoing and not listing.finished:
            message = outgoing.pop(0)
            response = self._post(message)
            if not expects_answer(message):
                self._read_all(response)  # 202 Accepted (a notification or a reply of ours)
                continue
            if response.status != 200:
                self._read_all(response)
                listing.fail(f"{listing.method} failed (HTTP {response.status})")
                return
            kind = (response.getheader("Content-Type") or "").split(";")[0].strip().lower()
            if kind == "text/event-stream":
                outgoing.extend(self._events(response, listing))
            else:
                outgoing.extend(listing.receive_line(self._read_all(response)))
            if not listing.finished and listing.request_id == message.get("id"):
                listing.fail(f"server closed the stream before response id {listing.request_id}")
                return
            if listing.method == "tools/list" and self._protocol is None:
                version = listing.init.get("protocolVersion")
                self._protocol = version if isinstance(version, str) else None

    def _read_all(self, response: http.client.HTTPResponse) -> bytes:
        """The whole body, each read under what is left of the deadline; the response is closed
        (so the connection can carry the next request)."""
        body = bytearray()
        while True:
            self._left()
            chunk = response.read1(65536) if response.length != 0 else b""
            if not chunk:
                response.close()
                return bytes(body)
            body += chunk
            if len(body) > self._max_output:
                raise _Exceeded

    def _events(self, response: http.client.HTTPResponse, listing: ToolsListing) -> list[Message]:
        """Server-sent events until the answer to the request in flight arrives (or the stream
        ends); each event's ``data`` lines joined are one JSON-RPC message."""
        waiting_for = listing.request_id
        replies: list[Message] = []
        data: list[bytes] = []
        seen = 0
        while not listing.finished and listing.request_id == waiting_for:
            self._left()
            line = response.readline(self._max_output + 1)
            seen += len(line)
            if seen > self._max_output:
                raise _Exceeded
            if not line:  # the stream ended; an event without its closing blank line still counts
                if data:
                    replies.extend(listing.receive_line(b"\n".join(data)))
                break
            line = line.rstrip(b"\r\n")
            if line.startswith(b"data:"):
                data.append(line[5:].removeprefix(b" "))
            elif not line and data:
                replies.extend(listing.receive_line(b"\n".join(data)))
                data = []
        # The stream may go on (or end with bytes unread): the next request opens a new connection.
        self._conn.close()
        return replies

    def close(self) -> None:
        """End the server's session (a DELETE, when time is left), then the connection."""
        with contextlib.suppress(Exception):
            if self._session_id is not None and self._deadline - time.monotonic() > 0:
                self._left()
                headers: dict[str, Any] = {**self._headers, "Mcp-Session-Id": self._session_id}
                self._conn.request("DELETE", self._path, headers=headers)
                self._left()
                self._conn.getresponse().read()
        self._conn.close()
