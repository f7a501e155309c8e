"""The real ``McpLauncher``: the mcp SDK's ``ClientSession`` over a stdio transport that owns the
server's process group.

Why our own transport rather than the SDK's ``stdio_client``: the query must end at its deadline
with the server's *whole process group* gone (the SDK's shutdown grants a server 2 s + 2 s of grace
after the deadline), a server's stdout must be bounded (an enormous tools/list cannot exhaust
memory), and stdout lines that are not JSON-RPC are tallied for the diagnosis.

The SDK session runs the exchange (request ids, sending, waiting, connection loss, answering a
server's own requests); what the server *answered* is judged only from the raw response objects
the transport keeps, exactly as mcp-top reads them. The transport parses every stdout line itself
(the stdlib JSON parser, like mcp-top's, so a lone surrogate in a description is text, not a
parse failure), matches a response to the request in flight the way mcp-top does, keeps it, and
hands the session a plain stand-in success for that id. So no SDK schema check can turn a
server both tools can read into a failure or a timeout: a non-object tool entry, a nameless tool,
an error with a non-integer code or a result that is not an object are all decided here, in
mcp-top's words. The handshake is adopted by the session when it is schema-valid.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from typing import Any

import anyio
import anyio.abc
import anyio.to_thread
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp import ClientSession
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION
from pydantic import BaseModel, ConfigDict, ValidationError

from wslmcp import __version__
from wslmcp.boundaries.mcp_launcher import ServerAnswer, ServerSpec
from wslmcp.boundaries.process import group_members

DEFAULT_MAX_OUTPUT = 32 * 1024 * 1024
WINDOWS_UNSUPPORTED = "querying servers needs a POSIX host (run wslmcp profile inside WSL)"


class _RawResult(BaseModel):
    """Any result object, kept verbatim (every field, in the order received) in ``model_extra``."""

    model_config = ConfigDict(extra="allow")


_POLL_S = 0.01


class _QueryFailed(Exception):
    """A protocol-level failure with its one-line reason (mcp-top wording)."""


@dataclass
class _Stdout:
    """What the transport saw on the server's stdout."""

    bytes_read: int = 0
    junk_lines: int = 0
    eof: bool = False
    #: The byte limit the output went past (reading stopped there); None while within it.
    exceeded: int | None = None


@dataclass
class _Phase:
    """Where the exchange is, in mcp-top's request numbering (initialize = 1, pages = 2, 3, ...)."""

    method: str = "initialize"
    request_id: int = 1


class _ServerProcess:
    """One launched server: its own session/process group, stdin/stdout pipes, stderr discarded."""

    def __init__(self, process: anyio.abc.Process) -> None:
        self.process = process
        self.stdout = _Stdout()
        #: Raw response objects by the id of the request they answer, exactly as sent.
        self.responses: dict[object, dict[str, Any]] = {}
        #: Ids of the requests written to stdin, by method, in order.
        self.sent: dict[str, list[object]] = {}
        #: Ids of the requests written and not answered yet.
        self.awaiting: list[types.RequestId] = []
        #: Opened at once, while the pid surely is this leader's (alive or not yet reaped).
        self.exit_fd = _open_exit_fd(process.pid)

    def raw_response(self, method: str) -> dict[str, Any] | None:
        """The server's raw response to the last ``method`` request, if one arrived."""
        ids = self.sent.get(method)
        return self.responses.get(ids[-1]) if ids else None

    async def stop(self, *, polite: bool, grace_s: float) -> None:
        """Close stdin; SIGTERM the group and wait up to ``grace_s`` if ``polite``; then SIGKILL the
        whole group (grandchildren included) and reap the leader."""
        proc, exit_fd = self.process, self.exit_fd
        try:
            with contextlib.suppress(Exception):
                if proc.stdin is not None:
                    await proc.stdin.aclose()
            if polite and proc.returncode is None:
                _signal_group(proc.pid, signal.SIGTERM)
                await _wait_exit(proc, grace_s, exit_fd)
            _signal_group(proc.pid, signal.SIGKILL)
            await _wait_exit(proc, 2.0, exit_fd)
            await _wait_group_gone(proc.pid, 2.0)
            with contextlib.suppress(Exception):
                await proc.aclose()
        finally:
            if exit_fd is not None:
                self.exit_fd = None
                os.close(exit_fd)


def _open_exit_fd(pid: int) -> int | None:
    """A pidfd for the leader (readable once it has exited), where the kernel offers one."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):  # not Linux >= 5.3, or already reaped: poll instead
        return None


async def _wait_exit(proc: anyio.abc.Process, limit_s: float, exit_fd: int | None) -> None:
    """Wait for the leader's exit, at most ``limit_s`` (``wait()`` would also wait for pipe EOF
    held by stragglers): woken by its pidfd where there is one, else by polling."""
    if proc.returncode is not None:
        return
    if exit_fd is not None:
        with anyio.move_on_after(limit_s):
            await anyio.wait_readable(exit_fd)
        return
    deadline = time.monotonic() + limit_s
    while proc.returncode is None and time.monotonic() < deadline:  # noqa: ASYNC110
        await anyio.sleep(_POLL_S)


def _live_members(pgid: int) -> list[int]:
    """Processes of the group that are not yet dead (zombies count as dead)."""
    if not os.path.isdir("/proc"):  # no procfs: does the group still answer signal 0?
        try:
            os.killpg(pgid, 0)
        except OSError:
            return []
        return [pgid]
    return [pid for pid, _ in group_members(pgid)]


async def _wait_group_gone(pgid: int, limit_s: float) -> None:
    """SIGKILL is asynchronous: make sure the group (grandchildren too) is really gone on return.

    Usually the group no longer exists at all (one ``killpg(pgid, 0)``); only when something of it
    is still there (a zombie not yet reaped counts) is /proc read to tell the living from the dead.
    """
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return
        except PermissionError:  # a member we cannot signal: only /proc can tell
            pass
        alive = await anyio.to_thread.run_sync(_live_members, pgid)
        if not alive:
            return
        _signal_group(pgid, signal.SIGKILL)
        await anyio.sleep(_POLL_S)


def _signal_group(pid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


async def _pump_stdout(
    server: _ServerProcess, sink: MemoryObjectSendStream[SessionMessage | Exception], max_output: int
) -> None:
    """Split stdout on b"\\n"; hand valid JSON-RPC messages to the session, count the rest.

    A final line without a newline still counts at EOF. Linear in the output size whatever the
    line lengths (the buffer is only split when a chunk brings a newline).
    """
    stream = server.process.stdout
    assert stream is not None
    seen = server.stdout
    buffer = bytearray()
    async with sink:
        try:
            while True:
                try:
                    chunk = await stream.receive(65536)
                except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                    seen.eof = True
                    await _deliver(server, sink, bytes(buffer))
                    return
                seen.bytes_read += len(chunk)
                if seen.bytes_read > max_output:
                    seen.exceeded = max_output
                    return
                buffer += chunk
                if b"\n" not in chunk:
                    continue
                *lines, rest = bytes(buffer).split(b"\n")
                buffer = bytearray(rest)
                for line in lines:
                    await _deliver(server, sink, line)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            return


async def _deliver(
    server: _ServerProcess, sink: MemoryObjectSendStream[SessionMessage | Exception], line: bytes
) -> None:
    """One stdout line: a response to the request in flight is kept raw and the session gets a
    stand-in for it; a server request or notification goes to the session; the rest is junk.

    mcp-top's reading: UTF-8 with replacement, the stdlib JSON parser, an object, no ``method``,
    a ``result`` or an ``error``, and an ``id`` equal to the request's.
    """
    text = line.decode("utf-8", errors="replace")
    if not text.strip(" \t\r\n"):
        return
    try:
        message = json.loads(text)
    except (ValueError, RecursionError):
        message = None
    if not isinstance(message, dict):
        server.stdout.junk_lines += 1
        return
    if "method" not in message and ("result" in message or "error" in message):
        answered = next((rid for rid in server.awaiting if rid == message.get("id")), None)
        if answered is not None:  # any other id: a stray response, ignored like mcp-top does
            server.awaiting.remove(answered)
            server.responses[answered] = message
            stand_in = types.JSONRPCResponse(jsonrpc="2.0", id=answered, result={})
            await sink.send(SessionMessage(stand_in))
        return
    try:
        forwarded = types.jsonrpc_message_adapter.validate_python(message, by_name=False)
    except (ValueError, RecursionError):
        server.stdout.junk_lines += 1
        return
    await sink.send(SessionMessage(forwarded))


async def _pump_stdin(server: _ServerProcess, source: MemoryObjectReceiveStream[SessionMessage]) -> None:
    stream = server.process.stdin
    assert stream is not None
    async with source:
        try:
            async for item in source:
                if isinstance(item.message, types.JSONRPCRequest):
                    server.sent.setdefault(item.message.method, []).append(item.message.id)
                    server.awaiting.append(item.message.id)
                data = item.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
                await stream.send(data.encode("utf-8"))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            return  # the server stopped reading; its stdout EOF (or the deadline) ends the query


class SdkMcpLauncher:
    """Launch, ``initialize``, every ``tools/list`` page, then kill the process group.

    ``base_env`` is the environment a server inherits before its config ``env`` is laid over it
    (default: this process's environment, as mcp-top does). ``max_output`` bounds the bytes read
    from a server's stdout. ``grace_s`` is how long a server that answered gets to exit on SIGTERM
    before the group is SIGKILLed; at the deadline there is no grace.
    """

    def __init__(
        self,
        *,
        base_env: Mapping[str, str] | None = None,
        max_output: int = DEFAULT_MAX_OUTPUT,
        grace_s: float = 0.5,
    ) -> None:
        self._base_env = dict(os.environ if base_env is None else base_env)
        self._max_output = max_output
        self._grace_s = grace_s

    async def query(self, spec: ServerSpec, timeout_s: float) -> ServerAnswer:
        start = time.monotonic()
        if not hasattr(os, "killpg"):  # a process group is what makes the kill complete
            return ServerAnswer(name=spec.name, error=WINDOWS_UNSUPPORTED)
        if spec.cwd is not None and not await anyio.Path(spec.cwd).is_dir():
            return ServerAnswer(name=spec.name, error=f"cwd does not exist: {spec.cwd}")
        holder: list[_ServerProcess] = []
        phase = _Phase()
        try:
            with anyio.fail_after(timeout_s):
                answer = await self._exchange(spec, holder, phase, start + timeout_s)
            return _timed(answer, start)
        except TimeoutError:
            return _failed(spec, start, f"timeout after {timeout_s:g} seconds", holder)
        except _QueryFailed as err:
            return _failed(spec, start, str(err), holder)
        except OSError as err:  # the launch itself failed: mcp-top shows the OS error text
            return _failed(spec, start, str(err), holder)
        except BaseExceptionGroup as group:
            return _failed(spec, start, _group_reason(group, phase, holder, timeout_s), holder)
        except MCPError as err:
            return _failed(spec, start, _mcp_reason(err, phase, holder), holder)
        except Exception as err:  # anything else the SDK raises is still one failed query
            return _failed(spec, start, _other_reason(err, phase), holder)

    @asynccontextmanager
    async def _transport(
        self, spec: ServerSpec, holder: list[_ServerProcess], deadline: float
    ) -> AsyncIterator[
        tuple[MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]]
    ]:
        try:
            process = await anyio.open_process(
                [spec.command, *spec.args],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                cwd=spec.cwd,
                env={**self._base_env, **spec.env},
                start_new_session=True,
            )
        except ValueError as err:  # e.g. an embedded NUL in an argument: a launch failure, not a crash
            raise _QueryFailed(str(err)) from None
        server = _ServerProcess(process)
        holder.append(server)
        read_send, read_recv = anyio.create_memory_object_stream[SessionMessage | Exception](16)
        write_send, write_recv = anyio.create_memory_object_stream[SessionMessage](16)
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(_pump_stdout, server, read_send, self._max_output)
                tg.start_soon(_pump_stdin, server, write_recv)
                try:
                    yield read_recv, write_send
                finally:
                    tg.cancel_scope.cancel()
        finally:
            with anyio.CancelScope(shield=True):
                # A server that answered gets a short SIGTERM grace, never past the deadline.
                grace = min(self._grace_s, max(0.0, deadline - time.monotonic()))
                await server.stop(polite=server.stdout.exceeded is None and grace > 0, grace_s=grace)
                for stream in (read_recv, write_send):
                    await stream.aclose()

    async def _exchange(
        self, spec: ServerSpec, holder: list[_ServerProcess], phase: _Phase, deadline: float
    ) -> ServerAnswer:
        async with (
            self._transport(spec, holder, deadline) as (read, write),
            ClientSession(read, write, client_info=_CLIENT_INFO) as session,
        ):
            server = holder[0]
            answered = await _request(
                session, server, types.InitializeRequest(params=_INITIALIZE), "initialize"
            )
            init: dict[str, Any] = answered if isinstance(answered, dict) else {}  # mcp-top reads on
            with contextlib.suppress(ValidationError):
                typed = types.InitializeResult.model_validate(init)
                if typed.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS:
                    session.adopt(typed)  # the SDK then speaks the negotiated revision
            await session.send_notification(types.InitializedNotification())
            tools: list[dict[str, Any]] = []
            cursor: str | None = None
            phase.method = "tools/list"
            while True:
                phase.request_id += 1
                request = types.ListToolsRequest(params=types.PaginatedRequestParams(cursor=cursor))
                result = await _request(session, server, request, "tools/list")
                if not isinstance(result, dict):
                    raise _QueryFailed("tools/list response has no result object")
                page = result.get("tools")
                if not isinstance(page, list):
                    raise _QueryFailed("tools/list response has no tools list")
                tools.extend(t for t in page if isinstance(t, dict))
                next_cursor = result.get("nextCursor")
                if next_cursor is None or next_cursor == "":
                    break
                if not isinstance(next_cursor, str):
                    raise _QueryFailed("tools/list nextCursor is not a string")
                cursor = next_cursor
        raw_info = init.get("serverInfo")
        info: dict[str, Any] = raw_info if isinstance(raw_info, dict) else {}
        return ServerAnswer(
            name=spec.name,
            server_name=_text(info.get("name")),
            server_version=_text(info.get("version")),
            protocol_version=_text(init.get("protocolVersion")),
            instructions=_text(init.get("instructions")),
            tools=tuple(tools),
            detail=_junk_detail(holder),
        )


_CLIENT_INFO = types.Implementation(name="wslmcp", version=__version__)
_INITIALIZE = types.InitializeRequestParams(
    protocol_version=LATEST_HANDSHAKE_VERSION,
    capabilities=types.ClientCapabilities(),
    client_info=_CLIENT_INFO,
)


async def _request(
    session: ClientSession, server: _ServerProcess, request: types.Request[Any, Any], method: str
) -> object:
    """One request through the SDK session; the server's raw ``result`` (any JSON value).

    The session only ever receives a stand-in ``{}`` for the answer (its schema check of that
    stand-in is irrelevant): the raw response kept by the transport decides, as in mcp-top.
    """
    with contextlib.suppress(ValidationError):
        await session.send_request(request, _RawResult)
    raw = server.raw_response(method)
    if raw is None:  # the session returned without an answer kept: never expected
        raise _QueryFailed(f"{method} response is not valid (no response)")
    if "error" in raw:  # the server's message and data are never shown
        raise _QueryFailed(f"{method} failed ({_error_category(raw['error'])})")
    return raw.get("result")


def _error_category(error: object) -> str:
    """``code N`` when the error object carries an integer (not boolean) code, else ``no code``."""
    code = error.get("code") if isinstance(error, dict) else None
    if isinstance(code, int) and not isinstance(code, bool):
        return f"code {code}"
    return "no code"


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _timed(answer: ServerAnswer, start: float) -> ServerAnswer:
    return replace(answer, duration_s=time.monotonic() - start)


def _junk_detail(holder: list[_ServerProcess]) -> str | None:
    if not holder or not holder[0].stdout.junk_lines:
        return None
    return f"ignored {holder[0].stdout.junk_lines} stdout line(s) that were not JSON-RPC"


def _failed(spec: ServerSpec, start: float, reason: str, holder: list[_ServerProcess]) -> ServerAnswer:
    notes = []
    if holder:
        server = holder[0]
        if server.stdout.junk_lines:
            notes.append(f"{server.stdout.junk_lines} stdout line(s) were not JSON-RPC")
        code = server.process.returncode
        if code is not None and server.stdout.eof:
            notes.append(
                f"server exited with code {code}" if code >= 0 else f"server killed by signal {-code}"
            )
    return ServerAnswer(
        name=spec.name, error=reason, duration_s=time.monotonic() - start, detail="; ".join(notes) or None
    )


def _mcp_reason(err: MCPError, phase: _Phase, holder: list[_ServerProcess]) -> str:
    seen = holder[0].stdout if holder else None
    if seen is not None and seen.exceeded is not None:
        return f"server output exceeded {seen.exceeded} bytes"
    if err.code == types.CONNECTION_CLOSED:
        return f"server closed stdout before response id {phase.request_id}"
    return f"{phase.method} failed (code {err.code})"  # the session's own error (not the server's)


def _other_reason(err: Exception, phase: _Phase) -> str:
    return f"{phase.method} response is not valid ({type(err).__name__})"


def _group_reason(
    group: BaseExceptionGroup[BaseException], phase: _Phase, holder: list[_ServerProcess], timeout_s: float
) -> str:
    leaves: list[BaseException] = []

    def walk(exc: BaseException) -> None:
        if isinstance(exc, BaseExceptionGroup):
            for inner in exc.exceptions:
                walk(inner)
        else:
            leaves.append(exc)

    walk(group)
    for leaf in leaves:
        if isinstance(leaf, TimeoutError):
            return f"timeout after {timeout_s:g} seconds"
        if isinstance(leaf, _QueryFailed | OSError):
            return str(leaf)
        if isinstance(leaf, MCPError):
            return _mcp_reason(leaf, phase, holder)
    first = leaves[0] if leaves else group
    if isinstance(first, Exception):
        return _other_reason(first, phase)
    raise group
