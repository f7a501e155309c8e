"""A real MCP server built with the mcp SDK, for tests of the profiler's own JSON-RPC client.

Run as ``python tests/servers/sdk_server.py [options]``:

--era ERA        dual (default: ``Server.run``, the SDK's serving loop for both protocol eras,
                 where the client's first request picks one) | handshake (``serve_loop``, the
                 handshake-only loop servers of the initialize era run)
--tools N        advertise N tools (default 3)          --page-size K   K tools per page (cursors)
--http PORTFILE  serve streamable HTTP on 127.0.0.1 (a free port, written to PORTFILE) instead of
                 stdio, at ``/mcp``
--require-header NAME=VALUE   (HTTP) answer 401 to requests without that header
--json-response  (HTTP) answer with JSON bodies instead of event streams
"""

from __future__ import annotations

import argparse
import socket
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.runner import serve_loop
from mcp.server.stdio import stdio_server


def _args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    p.add_argument("--era", choices=("dual", "handshake"), default="dual")
    p.add_argument("--tools", type=int, default=3)
    p.add_argument("--page-size", type=int, default=0)
    p.add_argument("--http", default=None)
    p.add_argument("--require-header", default=None)
    p.add_argument("--json-response", action="store_true")
    return p.parse_args(argv)


def build(a: argparse.Namespace) -> Server[Any]:
    tools = [
        types.Tool(
            name=f"sdk_tool_{i}",
            description=f"SDK tool number {i}.",
            input_schema={"type": "object", "properties": {"q": {"type": "string"}}},
        )
        for i in range(a.tools)
    ]
    size = a.page_size or max(1, len(tools))

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        start = int(params.cursor) if params is not None and params.cursor else 0
        end = start + size
        return types.ListToolsResult(
            tools=tools[start:end], next_cursor=str(end) if end < len(tools) else None
        )

    return Server(
        "sdk-test-server", version="4.5.6", instructions="Built with the SDK.", on_list_tools=list_tools
    )


async def _stdio(server: Server[Any], era: str) -> None:
    async with stdio_server() as (read, write):
        if era == "dual":
            await server.run(read, write, server.create_initialization_options())
            return
        async with server.lifespan(server) as state:
            await serve_loop(
                server, read, write, lifespan_state=state, init_options=server.create_initialization_options()
            )


def _http(server: Server[Any], portfile: str, header: str | None, json_response: bool) -> None:
    import uvicorn

    app: Any = server.streamable_http_app(json_response=json_response)
    if header is not None:
        name, _, value = header.partition("=")
        inner = app

        async def guarded(scope: dict[str, Any], receive: Any, send: Any) -> None:
            got = dict(scope.get("headers") or []).get(name.lower().encode())
            if scope["type"] == "http" and got != value.encode():
                await send({"type": "http.response.start", "status": 401, "headers": []})
                await send({"type": "http.response.body", "body": b"unauthorized"})
                return
            await inner(scope, receive, send)

        app = guarded
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    Path(portfile).write_text(str(sock.getsockname()[1]))
    config = uvicorn.Config(app, log_level="error", lifespan="on")
    uvicorn.Server(config).run(sockets=[sock])


def main(argv: list[str]) -> None:
    a = _args(argv)
    server = build(a)
    if a.http is not None:
        _http(server, a.http, a.require_header, a.json_response)
    else:
        anyio.run(_stdio, server, a.era)


if __name__ == "__main__":
    main(sys.argv[1:])
