"""The MCP face of the observe domain (low-level SDK server): tool listing, argument errors as
JSON-RPC invalid params, results as ``structuredContent`` plus the same JSON as text."""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from wslmcp import __version__
from wslmcp.arguments import InvalidArguments
from wslmcp.boundaries import replay_miss
from wslmcp.observe.errors import ObserveError
from wslmcp.observe.handlers import answer
from wslmcp.observe.service import ObserveService
from wslmcp.observe.tools import INSTRUCTIONS, TOOLS, parse_call

_ANNOTATIONS = types.ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=False, open_world_hint=False
)


def _dump(payload: Any) -> str:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


def result(payload: dict[str, Any], *, is_error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=_dump(payload))],
        structured_content=payload,
        is_error=is_error,
    )


def error_result(code: str, message: str) -> types.CallToolResult:
    return result({"error": {"code": code, "message": message}}, is_error=True)


def build_server(service: ObserveService) -> Server[Any]:
    tools = [
        types.Tool(
            name=t.name, description=t.description, input_schema=t.input_schema, annotations=_ANNOTATIONS
        )
        for t in TOOLS
    ]

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        if params is not None and params.cursor is not None:
            raise MCPError(types.INVALID_PARAMS, "tools/list does not use cursors")
        return types.ListToolsResult(tools=tools)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        try:
            call = parse_call(params.name, params.arguments)
        except InvalidArguments as exc:
            raise MCPError(types.INVALID_PARAMS, str(exc)) from None
        try:
            return result(await answer(service, call))
        except ObserveError as exc:
            return error_result(exc.code, str(exc))
        except replay_miss.NotRecorded as exc:  # --replay: the scenario lacks what this call needs
            raise MCPError(types.INTERNAL_ERROR, replay_miss.message(exc)) from None

    return Server(
        "wslmcp-observe",
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def serve_stdio(service: ObserveService) -> None:
    """Until EOF, SIGTERM or SIGINT, on the transport that answers every request (``wslmcp.stdio``)."""
    from wslmcp import stdio

    await stdio.serve(build_server(service))
