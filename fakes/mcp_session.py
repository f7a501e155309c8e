"""Replay sessions answered from recorded exchanges, and the recorder that makes them.

Fixture format (``wslmcp-mcp-sessions/1``)::

    {"schema": "wslmcp-mcp-sessions/1",
     "sessions": [{"kind": "observe", "scenario": "slow-build", "args": [...],
                   "tools": ["get_system_summary", ...],
                   "calls": [{"tool": "...", "arguments": {...}, "answer": {status, content, structured, error}}]}]}

A session is chosen by (kind, scenario name, args); its calls are answered in recorded order by
matching (tool, arguments) among the calls not yet served. Anything else raises ``ReplayMiss``.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any

from wslmcp.boundaries.mcp_session import McpSession, McpSessions, SessionSpec, ToolAnswer
from wslmcp.fakes.replay import ReplayMiss

SCHEMA = "wslmcp-mcp-sessions/1"
BOUNDARY = "mcp_session"


def _key(spec: SessionSpec) -> tuple[str, str, tuple[str, ...]]:
    return spec.kind, Path(spec.scenario).name, tuple(spec.args)


class _FakeSession:
    def __init__(self, name: str, recorded: Mapping[str, Any]) -> None:
        self._name = name
        self._tools = list(recorded.get("tools", []))
        self._calls = list(recorded.get("calls", []))
        self._served: set[int] = set()

    async def list_tools(self) -> list[str]:
        return list(self._tools)

    async def call(self, tool: str, arguments: Mapping[str, Any]) -> ToolAnswer:
        for i, item in enumerate(self._calls):
            if (
                i not in self._served
                and item["tool"] == tool
                and item.get("arguments", {}) == dict(arguments)
            ):
                self._served.add(i)
                return ToolAnswer.from_json(item["answer"])
        asked = f"{tool} {json.dumps(dict(arguments), sort_keys=True)[:200]}"
        offered = [
            f"{c['tool']} {json.dumps(c.get('arguments', {}), sort_keys=True)[:120]}" for c in self._calls
        ]
        raise ReplayMiss(BOUNDARY, self._name, asked, offered)


class FakeMcpSessions:
    def __init__(self, fixture: Mapping[str, Any]) -> None:
        if fixture.get("schema") != SCHEMA:
            raise ValueError(f"expected a {SCHEMA} fixture, got schema {fixture.get('schema')!r}")
        self._sessions = {
            (str(s["kind"]), str(s["scenario"]), tuple(s.get("args", []))): s
            for s in fixture.get("sessions", [])
        }

    def close(self) -> None:
        pass

    @classmethod
    def load(cls, path: Path) -> FakeMcpSessions:
        return cls(json.loads(path.read_text(encoding="utf-8")))

    @contextlib.asynccontextmanager
    async def open(self, spec: SessionSpec) -> AsyncIterator[McpSession]:
        key = _key(spec)
        recorded = self._sessions.get(key)
        if recorded is None:
            offered = [f"{k} {n} {' '.join(a)}".strip() for k, n, a in self._sessions]
            raise ReplayMiss(BOUNDARY, key[1], f"{key[0]} {key[1]} {' '.join(key[2])}".strip(), offered)
        yield _FakeSession(key[1], recorded)


class _Recording:
    def __init__(self, inner: McpSession, entry: dict[str, Any]) -> None:
        self._inner, self._entry = inner, entry

    async def list_tools(self) -> list[str]:
        tools = await self._inner.list_tools()
        self._entry["tools"] = tools
        return tools

    async def call(self, tool: str, arguments: Mapping[str, Any]) -> ToolAnswer:
        answer = await self._inner.call(tool, arguments)
        self._entry["calls"].append({"tool": tool, "arguments": dict(arguments), "answer": answer.to_json()})
        return answer


class RecordingMcpSessions:
    """Wraps a real ``McpSessions`` and keeps every exchange in ``fixture`` (the FakeMcpSessions format)."""

    def __init__(self, inner: McpSessions) -> None:
        self._inner = inner
        self.fixture: dict[str, Any] = {"schema": SCHEMA, "sessions": []}

    def close(self) -> None:
        self._inner.close()

    @contextlib.asynccontextmanager
    async def open(self, spec: SessionSpec) -> AsyncIterator[McpSession]:
        kind, name, args = _key(spec)
        entry: dict[str, Any] = {"kind": kind, "scenario": name, "args": list(args), "tools": [], "calls": []}
        async with self._inner.open(spec) as session:
            self.fixture["sessions"].append(entry)
            yield _Recording(session, entry)
