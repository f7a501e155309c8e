"""Protocol and tools: known tools, valid arguments, MCP tools only."""

from __future__ import annotations

from wslmcp.evals.rubric.base import Checks, Outcome, first_fail, skip
from wslmcp.evals.session import Session
from wslmcp.evals.trace import Result

CHECKS = Checks()


@CHECKS.add(
    "protocol.known_tools",
    applies="MCP calls on a server whose tools are known (tools/list on replay, the built-in catalogue without)",
    rule="fails when an MCP call names a tool absent from that server's tools/list",
)
def known_tools(s: Session) -> Outcome:
    calls = [c for c in s.trace.calls if c.server is not None and c.server in s.tools]
    if not calls:
        return skip("no MCP call on a server whose tools are known")
    found = [
        (c.n, f"call {c.n} names {c.tool!r}, absent from {c.server}'s tools")
        for c in calls
        if c.tool not in s.tools[c.server or ""]
    ]
    return first_fail(found, f"{len(calls)} MCP call(s) name listed tools")


@CHECKS.add(
    "protocol.valid_arguments",
    applies="MCP calls to a known tool",
    rule="fails when the server refused such a call's arguments (JSON-RPC -32602, or from protocol "
    "2025-11-25 on a tool error coded invalid_arguments)",
)
def valid_arguments(s: Session) -> Outcome:
    calls = [c for c in s.trace.calls if c.server is not None and c.tool in s.tools.get(c.server, set())]
    if not calls:
        return skip("no MCP call to a known tool")
    found = [
        (c.n, f"call {c.n} {c.tool}: {_refusal(c.result)}") for c in calls if c.result.rejected_arguments
    ]
    return first_fail(found, "no call was rejected for its arguments")


def _refusal(result: Result) -> str:
    if result.status == "jsonrpc_error":
        return f"JSON-RPC -32602 {(result.error or {}).get('message', '')}".rstrip()
    error = (result.structured or {}).get("error")
    message = error.get("message") if isinstance(error, dict) else None  # observe's JSON text
    return f"arguments refused: {message if isinstance(message, str) else result.text}"


@CHECKS.add(
    "tools.mcp_only",
    applies="the case's mcp_only (default true)",
    rule="fails when the trace contains a builtin tool call (Bash, Read, shell, ...)",
    intent=True,
)
def mcp_only(s: Session) -> Outcome:
    if not s.case.mcp_only:
        return skip("the case allows builtin tools")
    found = [(c.n, f"call {c.n} uses the builtin tool {c.tool!r}") for c in s.trace.calls if c.server is None]
    return first_fail(found, "only MCP tools were used")
