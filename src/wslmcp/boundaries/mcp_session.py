"""An MCP session with a replaying wslmcp server, as a boundary (what ``wslmcp eval`` replays through).

Contract
--------
``McpSessions.open(spec) -> async context manager of McpSession``
    Starts ``wslmcp <spec.kind> --replay <spec.scenario> <spec.args...>`` and completes
    ``initialize``. Leaving the context ends the server (no orphan process is left). The server's
    stderr (its log) goes to this process's stderr only with ``spec.log``; otherwise it is kept
    aside, and its last line is part of a ``SessionError``.
    Raises ``SessionError`` (one line: the command and the cause) when the server does not start.
``McpSession.list_tools() -> list[str]``
    The tool names of ``tools/list``, in order.
``McpSession.call(tool, arguments) -> ToolAnswer``
    One ``tools/call``. A tool result is ``ok`` or ``tool_error`` (``isError``) with its content
    blocks (JSON objects) and ``structuredContent``; a JSON-RPC error is ``jsonrpc_error`` with
    ``{"code", "message"}``. A replaying server answers a request its scenario does not hold with a
    JSON-RPC error whose message starts ``replay miss:`` (``ToolAnswer.replay_miss``).
    Raises ``SessionError`` when the server crashes or stops answering.
Encodings: arguments and answers are JSON values; texts are str.

Real adapters: ``StdioMcpSessions`` (the SDK client over stdio to a ``python -m wslmcp`` child) and
``ForkedMcpSessions`` (the same children forked, imports done, by ``boundaries.forkserver``).
``close()`` releases what ``open`` keeps between sessions (the fork server).
Fake: ``wslmcp.fakes.mcp_session.FakeMcpSessions`` (recorded answers; unrecorded requests raise
``ReplayMiss``); ``wslmcp.fakes.mcp_session.RecordingMcpSessions`` records them.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from wslmcp.boundaries.replay_miss import PREFIX as REPLAY_MISS_PREFIX


class SessionError(RuntimeError):
    """The server could not be started or stopped answering."""


@dataclass(frozen=True)
class RecordedCall:
    """A call of the agent session a scenario was recorded from (``scenario record --from-session``):
    its number, tool and arguments as the session has them, and what this host answered when it was
    recorded, or why it was not sent (``skipped``: it would have changed the host)."""

    n: int
    tool: str
    arguments: Any
    answer: ToolAnswer | None = None
    skipped: str | None = None


@dataclass(frozen=True)
class ReplayTarget:
    """What replaying servers need from a scenario: its directory and name, the observe server's own
    arguments (``--replay`` does not apply them by itself), the distro it states, and the calls of
    the session it was recorded from (none for another scenario)."""

    root: str
    name: str
    observe_args: tuple[str, ...] = ()
    distro: str | None = None
    session: tuple[RecordedCall, ...] = ()

    def recorded(self, n: int, tool: str, arguments: Any) -> RecordedCall | None:
        """The recorded call ``n`` when it is this very call (same tool and arguments)."""
        found = next((c for c in self.session if c.n == n), None)
        return found if found is not None and (found.tool, found.arguments) == (tool, arguments) else None


@dataclass(frozen=True)
class SessionSpec:
    kind: str  # "observe" | "shell"
    scenario: str
    args: tuple[str, ...] = ()
    log: bool = False  # the server's stderr goes to ours (else it is kept for a SessionError)


class _ServerLog:
    """Where a server's stderr goes: ours (``log``), or a temporary file whose last line a
    ``SessionError`` quotes."""

    def __init__(self, log: bool) -> None:
        import tempfile

        self.file = None if log else tempfile.TemporaryFile()  # noqa: SIM115 (closed by close())

    def fileno(self) -> int:
        return 2 if self.file is None else self.file.fileno()

    def text(self) -> Any:
        """A text stream for the SDK's stdio client (ours, or the file)."""
        if self.file is None:
            return sys.stderr
        import io

        return io.TextIOWrapper(self.file, encoding="utf-8", errors="replace", write_through=True)

    def said(self) -> str:
        """``; it said: LAST LINE`` when the server wrote to its stderr, else nothing."""
        if self.file is None:
            return ""
        self.file.seek(0)
        lines = [ln for ln in self.file.read()[-4096:].decode("utf-8", "replace").splitlines() if ln.strip()]
        return f"; it said: {lines[-1].strip()}" if lines else ""

    def close(self) -> None:
        if self.file is not None:
            self.file.close()


@dataclass
class ToolAnswer:
    status: str  # "ok" | "tool_error" | "jsonrpc_error"
    content: list[dict[str, Any]] = field(default_factory=list)
    structured: dict[str, Any] | None = None
    error: dict[str, Any] | None = None

    @property
    def replay_miss(self) -> bool:
        return self.error is not None and str(self.error.get("message", "")).startswith(REPLAY_MISS_PREFIX)

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "content": self.content,
            "structured": self.structured,
            "error": self.error,
        }

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> ToolAnswer:
        return cls(
            str(raw["status"]), list(raw.get("content") or []), raw.get("structured"), raw.get("error")
        )


class McpSession(Protocol):
    async def list_tools(self) -> list[str]: ...

    async def call(self, tool: str, arguments: Mapping[str, Any]) -> ToolAnswer: ...


class McpSessions(Protocol):
    def open(self, spec: SessionSpec) -> contextlib.AbstractAsyncContextManager[McpSession]: ...

    def close(self) -> None:
        """Release what ``open`` may keep between sessions (a fork server); idempotent."""
        ...


def command(spec: SessionSpec, python: str = sys.executable) -> list[str]:
    return [python, "-m", "wslmcp", spec.kind, "--replay", spec.scenario, *spec.args]


class _SdkSession:
    def __init__(self, client: Any, argv: Sequence[str], log: _ServerLog) -> None:
        self._client, self._argv, self._log = client, argv, log

    async def list_tools(self) -> list[str]:
        try:
            listed = await self._client.list_tools()
        except Exception as exc:
            raise SessionError(
                f"{' '.join(self._argv[2:])}: tools/list failed: {exc}{self._log.said()}"
            ) from exc
        return [t.name for t in listed.tools]

    async def call(self, tool: str, arguments: Mapping[str, Any]) -> ToolAnswer:
        from mcp.shared.exceptions import MCPError

        try:
            res = await self._client.call_tool(tool, dict(arguments))
        except MCPError as exc:
            return ToolAnswer("jsonrpc_error", error={"code": exc.code, "message": exc.error.message})
        except Exception as exc:
            raise SessionError(
                f"{' '.join(self._argv[2:])}: {tool} got no answer: {type(exc).__name__}: {exc}"
                + self._log.said()
            ) from exc
        return answer_of(res)


def answer_of(result: Any) -> ToolAnswer:
    """An SDK ``CallToolResult`` as a ``ToolAnswer``."""
    content = [block.model_dump(mode="json", by_alias=True, exclude_none=True) for block in result.content]
    structured = result.structured_content if isinstance(result.structured_content, dict) else None
    return ToolAnswer("tool_error" if result.is_error else "ok", content, structured)


class StdioMcpSessions:
    """The real adapter: ``python -m wslmcp KIND --replay DIR ...`` over stdio, SDK client."""

    def __init__(self, python: str = sys.executable, timeout_s: float = 60.0) -> None:
        self.python, self.timeout_s = python, timeout_s

    def close(self) -> None:
        pass

    @contextlib.asynccontextmanager
    async def open(self, spec: SessionSpec) -> AsyncIterator[McpSession]:
        from mcp import Client, StdioServerParameters
        from mcp.client.stdio import stdio_client

        argv = command(spec, self.python)
        params = StdioServerParameters(command=argv[0], args=argv[1:])
        log = _ServerLog(spec.log)
        stack = contextlib.AsyncExitStack()
        stack.callback(log.close)
        try:
            transport = stdio_client(params, errlog=log.text())
            client = await stack.enter_async_context(Client(transport, read_timeout_seconds=self.timeout_s))
        except Exception as exc:
            said = log.said()
            await stack.aclose()
            raise SessionError(
                f"{' '.join(argv[2:])}: the server did not start: {_cause(exc)}{said}"
            ) from None
        try:
            yield _SdkSession(client, argv, log)
        finally:
            with contextlib.suppress(Exception):
                await stack.aclose()


def _cause(exc: BaseException) -> str:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return f"{type(exc).__name__}: {exc}"


PRELOAD = (
    "wslmcp.cli",
    "wslmcp.observe.cli",
    "wslmcp.observe.handlers",
    "wslmcp.shell.cli",
    "wslmcp.shell.handlers",
    "wslmcp.serving",
)


class ForkedMcpSessions:
    """The real adapter with the imports paid once: ``python -m wslmcp KIND --replay DIR ...`` children
    forked by ``boundaries.forkserver`` (started at the first ``open``), each a fresh process in its
    own session speaking MCP over its own stdin/stdout pipes, driven by the SDK client. ``close()``
    (or this process's exit) ends the fork server; every child ends with its session."""

    def __init__(self, python: str = sys.executable, timeout_s: float = 60.0) -> None:
        self.python, self.timeout_s = python, timeout_s
        self._sock: Any = None
        self._server: Any = None
        self._lock: Any = None

    def _start(self) -> None:
        import socket
        import subprocess

        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        fd = theirs.fileno()
        self._server = subprocess.Popen(
            [self.python, "-m", "wslmcp.boundaries.forkserver", str(fd), *PRELOAD],
            pass_fds=[fd],
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        theirs.close()
        ready = ours.recv(1 << 16)
        if not ready:
            raise SessionError("the fork server did not start")
        self._sock = ours

    def _fork(self, argv: Sequence[str], fds: Sequence[int]) -> int:
        import json
        import socket

        if self._sock is None:
            self._start()
        socket.send_fds(self._sock, [json.dumps({"argv": list(argv)}).encode()], list(fds))
        answer = json.loads(self._sock.recv(1 << 16) or b'{"error": "the fork server is gone"}')
        if "pid" not in answer:
            raise SessionError(f"{' '.join(argv)}: {answer.get('error')}")
        return int(answer["pid"])

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        if self._server is not None:
            with contextlib.suppress(Exception):
                self._server.wait(timeout=10)
            self._server = None

    @contextlib.asynccontextmanager
    async def open(self, spec: SessionSpec) -> AsyncIterator[McpSession]:
        import asyncio
        import os

        from mcp import Client

        argv = command(spec, self.python)[2:]  # the module and its arguments
        if self._lock is None:
            self._lock = asyncio.Lock()
        log = _ServerLog(spec.log)
        stdin_r, stdin_w = os.pipe()
        stdout_r, stdout_w = os.pipe()
        try:
            async with self._lock:
                pid = self._fork(argv, [stdin_r, stdout_w, log.fileno()])
        except (OSError, ValueError) as exc:
            for fd in (stdin_r, stdin_w, stdout_r, stdout_w):
                os.close(fd)
            log.close()
            raise SessionError(f"{' '.join(argv)}: the server did not start: {exc}") from None
        finally:
            for fd in (stdin_r, stdout_w):
                with contextlib.suppress(OSError):
                    os.close(fd)
        stack = contextlib.AsyncExitStack()
        stack.callback(log.close)
        try:
            transport = _PipeTransport(stdout_r, stdin_w, pid)
            client = await stack.enter_async_context(Client(transport, read_timeout_seconds=self.timeout_s))
        except Exception as exc:
            said = log.said()
            await stack.aclose()
            raise SessionError(f"{' '.join(argv)}: the server did not start: {_cause(exc)}{said}") from None
        try:
            yield _SdkSession(client, ["python", "-m", *argv], log)
        finally:
            with contextlib.suppress(Exception):
                await stack.aclose()


class _PipeTransport:
    """An SDK transport over a forked child's stdout (read) and stdin (write) pipes, one JSON-RPC
    message per line; leaving it ends the child's whole session (process group)."""

    def __init__(self, read_fd: int, write_fd: int, pid: int) -> None:
        self._read_fd, self._write_fd, self._pid = read_fd, write_fd, pid
        self._stack = contextlib.AsyncExitStack()

    async def __aenter__(self) -> Any:
        import asyncio
        import os

        import anyio
        import mcp_types as types
        from mcp.shared.message import SessionMessage

        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=1 << 26)
        read_transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(self._read_fd, "rb", 0)
        )
        write_transport, protocol = await loop.connect_write_pipe(
            asyncio.streams.FlowControlMixin, os.fdopen(self._write_fd, "wb", 0)
        )
        writer = asyncio.StreamWriter(write_transport, protocol, None, loop)
        read_send, read_recv = anyio.create_memory_object_stream[SessionMessage | Exception](16)
        write_send, write_recv = anyio.create_memory_object_stream[SessionMessage](16)

        async def pump_out() -> None:
            async with read_send:
                while line := await reader.readline():
                    text = line.decode("utf-8", "replace").strip()
                    if not text:
                        continue
                    try:
                        message: SessionMessage | Exception = SessionMessage(
                            types.jsonrpc_message_adapter.validate_json(text, by_name=False)
                        )
                    except ValueError as exc:
                        message = exc
                    await read_send.send(message)

        async def pump_in() -> None:
            async with write_recv:
                async for item in write_recv:
                    data = item.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
                    writer.write(data.encode("utf-8"))
                    await writer.drain()

        def end() -> None:
            import signal

            write_transport.close()
            read_transport.close()
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self._pid, signal.SIGTERM)

        self._stack.callback(end)
        group = await self._stack.enter_async_context(anyio.create_task_group())
        self._stack.push_async_callback(_cancel, group)
        group.start_soon(pump_out)
        group.start_soon(pump_in)
        return read_recv, write_send

    async def __aexit__(self, *exc: object) -> None:
        await self._stack.aclose()


async def _cancel(group: Any) -> None:
    group.cancel_scope.cancel()
