"""A Docker Engine stand-in on a unix socket, serving recorded answers (``wslmcp.fakes.docker_api`` records).

It behaves on the wire like dockerd where the adapter's contract depends on it: ``/_ping`` with
``Api-Version``; ``/vX.Y`` prefixes checked against the served range (400 "client version … is too
new/old" as dockerd words it); bodies over 2 KiB sent chunked, as Go's net/http does; a recorded
``error`` produced as the daemon would cause it: ``timeout`` = accept and never answer, ``unavailable``
= close without a word, ``bad_answer`` = bytes that are not HTTP; ``wire`` picks another way to
cause it: ``stall_body`` (headers and half the body, then silence: a timeout) or ``truncated_body``
(headers and half a chunked body, then close: unavailable). ``tick_s`` makes every ``/stats``
answer wait as dockerd's ``stream=false`` does: its collector samples once a tick, and the answer
needs two samples (``precpu_stats`` and ``cpu_stats``), so it comes at the second tick after the
request (1-2 ticks later); ``one-shot=true`` needs only the next tick.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from wslmcp.fakes.docker_api import EngineRecording

CHUNKED_ABOVE = 2048
CHUNK = 777  # odd, so chunk boundaries fall inside JSON tokens


class EngineStandin:
    def __init__(
        self,
        socket_path: Path,
        items: Sequence[Mapping[str, Any]],
        *,
        root: Path | None = None,
        api_version: str = "1.41",
        min_api_version: str = "1.12",
        tick_s: float | None = None,
    ) -> None:
        self.socket_path = socket_path
        self.recording = EngineRecording("engine-standin", root or socket_path.parent, items)
        self.items = items  # the stand-in's own keys (``wire``, ``chunked``) beside each record
        self.api_version = api_version
        self.min_api_version = min_api_version
        self.tick_s = tick_s
        self.requests: list[str] = []  # request targets as received, versions included
        self._server: asyncio.Server | None = None
        self._started = time.monotonic()
        self._hung: set[asyncio.StreamWriter] = set()

    @property
    def url(self) -> str:
        return f"unix://{self.socket_path}"

    async def start(self) -> None:
        self._server = await asyncio.start_unix_server(self._serve, path=str(self.socket_path))

    async def stop(self) -> None:
        for writer in self._hung:
            writer.close()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        with contextlib.suppress(FileNotFoundError):
            self.socket_path.unlink()

    async def __aenter__(self) -> EngineStandin:
        await self.start()
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.stop()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            writer.close()
            return
        target = head.split(b"\r\n", 1)[0].split(b" ")[1].decode()
        self.requests.append(target)
        try:
            await self._answer(target, writer)
        except ConnectionError:
            pass
        finally:
            if writer not in self._hung:
                writer.close()

    async def _answer(self, target: str, writer: asyncio.StreamWriter) -> None:
        parts = urlsplit(target)
        path = unquote(parts.path)
        query = dict(parse_qsl(parts.query, keep_blank_values=True))
        versioned = re.match(r"/v(\d+)\.(\d+)(/.*)", path)
        if versioned:
            asked = (int(versioned[1]), int(versioned[2]))
            path = versioned[3]
            if asked > _tuple(self.api_version):
                return await self._send(
                    writer,
                    400,
                    _msg(
                        f"client version {asked[0]}.{asked[1]} is too new. "
                        f"Maximum supported API version is {self.api_version}"
                    ),
                )
            if asked < _tuple(self.min_api_version):
                return await self._send(
                    writer,
                    400,
                    _msg(
                        f"client version {asked[0]}.{asked[1]} is too old. Minimum supported API version is "
                        f"{self.min_api_version}, please upgrade your client to a newer version"
                    ),
                )
        answer = self.recording.next_answer(path, query)
        if answer is None:
            if path == "/_ping":
                return await self._send(writer, 200, b"OK", "text/plain; charset=utf-8")
            return await self._send(writer, 404, _msg(f"stand-in: not recorded: GET {target}"))
        if self.tick_s and path.endswith("/stats"):
            elapsed = time.monotonic() - self._started
            ticks = 1 if query.get("one-shot") == "true" else 2
            await asyncio.sleep(self.tick_s - elapsed % self.tick_s + (ticks - 1) * self.tick_s)
        wire = self.items[answer.index].get("wire")
        if wire in ("stall_body", "truncated_body"):
            body = b'{"Titles":["PID"],"Processes":[["1"],["2"],["3"]]}\n' * 100
            head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
            writer.write(head.encode() + b"%x\r\n%s\r\n" % (len(body), body[: len(body) // 2]))
            await writer.drain()
            if wire == "stall_body":
                self._hung.add(writer)
            return
        if answer.error == "timeout":
            self._hung.add(writer)
            return
        if answer.error in ("unavailable", "absent"):
            return
        if answer.error == "bad_answer":
            writer.write(b"SSH-2.0-OpenSSH_9.2\r\n\r\n")
            return await writer.drain()
        headers = answer.headers()
        await self._send(
            writer,
            answer.status,
            answer.body_bytes(),
            headers.pop("content-type"),
            headers,
            chunked=bool(self.items[answer.index].get("chunked", False)),
        )

    async def _send(
        self,
        writer: asyncio.StreamWriter,
        status: int,
        body: bytes,
        content_type: str = "application/json",
        extra: Mapping[str, str] | None = None,
        *,
        chunked: bool = False,
    ) -> None:
        lines = [
            f"HTTP/1.1 {status} {_REASONS.get(status, 'Status')}",
            f"Api-Version: {self.api_version}",
            "Docker-Experimental: false",
            "Ostype: linux",
            "Server: Docker/standin (linux)",
            f"Content-Type: {content_type}",
            "Connection: close",
        ]
        lines += [
            f"{k}: {v}" for k, v in (extra or {}).items() if k not in ("content-length", "transfer-encoding")
        ]
        if chunked or len(body) > CHUNKED_ABOVE:
            writer.write(("\r\n".join([*lines, "Transfer-Encoding: chunked"]) + "\r\n\r\n").encode())
            for piece in _pieces(body):
                writer.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                await writer.drain()
            writer.write(b"0\r\n\r\n")
        else:
            writer.write(("\r\n".join([*lines, f"Content-Length: {len(body)}"]) + "\r\n\r\n").encode() + body)
        await writer.drain()


_REASONS = {200: "OK", 400: "Bad Request", 404: "Not Found", 409: "Conflict", 500: "Internal Server Error"}


def _pieces(body: bytes) -> Iterator[bytes]:
    for i in range(0, len(body), CHUNK):
        yield body[i : i + CHUNK]


def _msg(text: str) -> bytes:
    return json.dumps({"message": text}).encode() + b"\n"


def _tuple(version: str) -> tuple[int, int]:
    major, minor = version.split(".")
    return int(major), int(minor)


@contextlib.contextmanager
def engine_in_thread(
    socket_path: Path, items: Sequence[Mapping[str, Any]], **kwargs: Any
) -> Iterator[EngineStandin]:
    """The stand-in on its own event loop in a thread, for callers outside asyncio (a server
    subprocess pointed at it with ``DOCKER_HOST``)."""
    standin = EngineStandin(socket_path, items, **kwargs)
    loop = asyncio.new_event_loop()
    ready = threading.Event()

    def run() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(standin.start())
        ready.set()
        loop.run_forever()

    thread = threading.Thread(target=run, name="engine-standin", daemon=True)
    thread.start()
    ready.wait(10)
    try:
        yield standin
    finally:
        asyncio.run_coroutine_threadsafe(standin.stop(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()
