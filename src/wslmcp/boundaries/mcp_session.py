"""An MCP session with a replaying wslmcp server, as a boundary (what ``wslmcp eval`` replays through).

Contract
--------
``McpSessions.open(spec) -> async context manager of McpSession``
    Starts ``wslmcp <spec.kind> --replay <spec.scenario> <spec.args...>`` and completes
    ``initialize``. Leaving the context ends the server (no orphan process is left).
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

Real adapter: ``StdioMcpSessions`` (the SDK client over stdio to a ``python -m wslmcp`` child).
Fake: ``fakes.mcp_session.FakeMcpSessions`` (recorded answers; unrecorded requests raise
``ReplayMiss``); ``fakes.mcp_session.RecordingMcpSessions`` records them.
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
class ReplayTarget:
    """What replaying servers need from a scenario: its directory and name, the observe server's own
    arguments (``--replay`` does not apply them by itself) and the distro it states."""

    root: str
    name: str
    observe_args: tuple[str, ...] = ()
    distro: str | None = None


@dataclass(frozen=True)
class SessionSpec:
    kind: str  # "observe" | "shell"
    scenario: str
    args: tuple[str, ...] = ()


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


def command(spec: SessionSpec, python: str = sys.executable) -> list[str]:
    return [python, "-m", "wslmcp", spec.kind, "--replay", spec.scenario, *spec.args]


class _SdkSession:
    def __init__(self, client: Any, argv: Sequence[str]) -> None:
        self._client, self._argv = client, argv

    async def list_tools(self) -> list[str]:
        try:
            listed = await self._client.list_tools()
        except Exception as exc:
            raise SessionError(f"{' '.join(self._argv[2:])}: tools/list failed: {exc}") from exc
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
            ) from exc
        content = [block.model_dump(mode="json", by_alias=True, exclude_none=True) for block in res.content]
        structured = res.structured_content if isinstance(res.structured_content, dict) else None
        return ToolAnswer("tool_error" if res.is_error else "ok", content, structured)


class StdioMcpSessions:
    """The real adapter: ``python -m wslmcp KIND --replay DIR ...`` over stdio, SDK client."""

    def __init__(self, python: str = sys.executable, timeout_s: float = 60.0) -> None:
        self.python, self.timeout_s = python, timeout_s

    @contextlib.asynccontextmanager
    async def open(self, spec: SessionSpec) -> AsyncIterator[McpSession]:
        from mcp import Client, StdioServerParameters

        argv = command(spec, self.python)
        params = StdioServerParameters(command=argv[0], args=argv[1:])
        stack = contextlib.AsyncExitStack()
        try:
            client = await stack.enter_async_context(Client(params, read_timeout_seconds=self.timeout_s))
        except Exception as exc:
            await stack.aclose()
            raise SessionError(f"{' '.join(argv[2:])}: the server did not start: {_cause(exc)}") from None
        try:
            yield _SdkSession(client, argv)
        finally:
            with contextlib.suppress(Exception):
                await stack.aclose()


def _cause(exc: BaseException) -> str:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return f"{type(exc).__name__}: {exc}"
