"""A real stdio MCP server for tests, stdlib only, with switchable hostile behaviours.

Run as ``python tests/servers/stdio_server.py [options]``. It speaks newline-delimited JSON-RPC
(initialize, notifications/initialized, tools/list with pagination) unless told to misbehave:

--tools N            advertise N tools (default 2)           --page-size K   K tools per page
--instructions TEXT  server instructions                     --name NAME     serverInfo.name
--sleep S            sleep S seconds before the first answer (a slow start)
--junk N             print N junk lines (banner, broken JSON, a JSON array, a foreign id) first
--mode MODE          well | silent (reads, never answers) | exit (exits at once, code 3)
                     | crash (half an answer, then dies) | invalid (only invalid JSON answers)
                     | huge (one tools/list answer of --huge-bytes bytes) | error (JSON-RPC error)
                     | badtool (a tool without inputSchema) | notools (a result without "tools")
                     | stubborn (ignores SIGTERM and stdin EOF after answering)
                     | nonewline (last answer without a trailing newline, then exits)
                     | looseinit (an initialize result with no capabilities and no serverInfo.version)
                     | listerror (JSON-RPC error on tools/list only) | noresult (a tools/list result
                     that is not an object) | nullinit (an initialize result that is not an object)
                     | floatid (answers carry the request id as a float: 2 -> 2.0)
                     | resulterror (tools/list answers with both a result and an error)
--error-code JSON    the error's "code" in modes error/listerror (default -32603; e.g. '"x"', 1.5)
--odd-entries        also list a number, a string, null and a tool without a name
--surrogate          put a lone UTF-16 surrogate (escaped \\ud800) in tool_00000's description
--protocol V         answer initialize with protocolVersion V instead of echoing the client's
--grandchild PIDFILE spawn a sleeping grandchild and write its pid to PIDFILE
--pidfile FILE       write this server's own pid to FILE
--trace FILE         append "start <monotonic>" and "answered <monotonic>" lines (overlap checks)
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from typing import Any


def _args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    p.add_argument("--tools", type=int, default=2)
    p.add_argument("--page-size", type=int, default=0)
    p.add_argument("--instructions", default=None)
    p.add_argument("--name", default="test-server")
    p.add_argument("--sleep", type=float, default=0.0)
    p.add_argument("--junk", type=int, default=0)
    p.add_argument("--mode", default="well")
    p.add_argument("--huge-bytes", type=int, default=4 * 1024 * 1024)
    p.add_argument("--grandchild", default=None)
    p.add_argument("--pidfile", default=None)
    p.add_argument("--trace", default=None)
    p.add_argument("--protocol", default=None)
    p.add_argument("--error-code", default="-32603")
    p.add_argument("--odd-entries", action="store_true")
    p.add_argument("--surrogate", action="store_true")
    return p.parse_args(argv)


def _out(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def _send(obj: dict[str, Any]) -> None:
    _out(json.dumps(obj, separators=(",", ":")))


def _trace(path: str | None, event: str) -> None:
    if path:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(f"{event} {time.monotonic():.6f} {os.getpid()}\n")


def _tool(i: int) -> dict[str, Any]:
    return {
        "name": f"tool_{i:05d}",
        "description": f"Test tool number {i}.",
        "inputSchema": {"type": "object", "properties": {"x": {"type": "integer"}}},
    }


def main(argv: list[str]) -> int:
    a = _args(argv)
    _trace(a.trace, "start")
    if a.pidfile:
        with open(a.pidfile, "w", encoding="utf-8") as fh:
            fh.write(str(os.getpid()))
    if a.grandchild:
        child = subprocess.Popen(
            [sys.executable, "-c", "import time; time.sleep(600)"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        with open(a.grandchild, "w", encoding="utf-8") as fh:
            fh.write(str(child.pid))
    if a.mode == "exit":
        return 3
    if a.mode == "stubborn":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    for i in range(a.junk):
        _out(
            [
                "starting test server...",
                '{"jsonrpc": "2.0", "id": 1, "result": {',
                "[1, 2, 3]",
                '{"jsonrpc":"2.0","id":999,"result":{}}',
            ][i % 4]
        )
    if a.sleep:
        time.sleep(a.sleep)
    tools: list[Any] = [_tool(i) for i in range(a.tools)]
    if a.surrogate and tools:
        tools[0]["description"] = "Lone surrogate \ud800 here."
    if a.odd_entries:
        tools[1:1] = [7, "not a tool", None, {"description": "A tool without a name.", "inputSchema": {}}]
    size = a.page_size or max(len(tools), 1)
    for raw in sys.stdin:
        if not raw.strip():
            continue
        msg = json.loads(raw)
        if "id" not in msg:
            continue  # a notification
        rid, method = msg["id"], msg.get("method")
        if a.mode == "silent":
            continue
        if a.mode == "invalid":
            _out('{"jsonrpc": "2.0", "id": ' + json.dumps(rid) + ', "result": {"tools": [}')
            continue
        if a.mode == "floatid":
            rid = float(rid)
        if a.mode == "resulterror" and method == "tools/list":
            _send(
                {
                    "jsonrpc": "2.0",
                    "id": rid,
                    "result": {"tools": tools},
                    "error": {"code": 7, "message": "x"},
                }
            )
            continue
        if a.mode == "error" or (a.mode == "listerror" and method == "tools/list"):
            code = json.loads(a.error_code)
            _send({"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": "secret-ish detail"}})
            continue
        if method == "initialize":
            result: dict[str, Any] = {
                "protocolVersion": a.protocol or msg["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": a.name, "version": "1.2.3"},
            }
            if a.instructions is not None:
                result["instructions"] = a.instructions
            if a.mode == "looseinit":
                result = {"protocolVersion": result["protocolVersion"], "serverInfo": {"name": a.name}}
            _send({"jsonrpc": "2.0", "id": rid, "result": None if a.mode == "nullinit" else result})
        elif method == "tools/list":
            if a.mode == "crash":
                sys.stdout.write('{"jsonrpc":"2.0","id":' + json.dumps(rid) + ',"result":{"tools":[{"na')
                sys.stdout.flush()
                os._exit(1)
            if a.mode == "huge":
                filler = "x" * a.huge_bytes
                _send(
                    {"jsonrpc": "2.0", "id": rid, "result": {"tools": [dict(_tool(0), description=filler)]}}
                )
                continue
            if a.mode == "badtool":
                _send({"jsonrpc": "2.0", "id": rid, "result": {"tools": [{"name": "no_schema"}]}})
                continue
            if a.mode == "nonewline":
                sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": rid, "result": {"tools": [_tool(0)]}}))
                sys.stdout.flush()
                return 0
            if a.mode == "notools":
                _send({"jsonrpc": "2.0", "id": rid, "result": {"items": []}})
                continue
            if a.mode == "noresult":
                _send({"jsonrpc": "2.0", "id": rid, "result": [tools[0]] if tools else []})
                continue
            start = int((msg.get("params") or {}).get("cursor") or 0)
            page: dict[str, Any] = {"tools": tools[start : start + size]}
            if start + size < len(tools):
                page["nextCursor"] = str(start + size)
            _trace(a.trace, "answered")
            _send({"jsonrpc": "2.0", "id": rid, "result": page})
        else:
            _send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "no such method"}})
    if a.mode == "stubborn":
        time.sleep(600)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
