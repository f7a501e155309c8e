"""A real stdio MCP server that advertises exactly what a JSON file holds (stdlib only).

    python3 serve.py DEFINITION.json

DEFINITION: {"instructions": str | null, "tools": [tool objects, sent verbatim], "page_size": int}.
Newline-delimited JSON-RPC on stdin/stdout: initialize, tools/list (paginated), nothing else.
"""

import json
import sys


def main() -> int:
    with open(sys.argv[1], encoding="utf-8") as fh:
        spec = json.load(fh)
    tools = spec.get("tools", [])
    size = int(spec.get("page_size") or max(len(tools), 1))
    for raw in sys.stdin:
        if not raw.strip():
            continue
        msg = json.loads(raw)
        if "id" not in msg:
            continue
        method = msg.get("method")
        if method == "initialize":
            result = {
                "protocolVersion": msg.get("params", {}).get("protocolVersion", "2025-06-18"),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": spec.get("name", "fixture"), "version": "1.0.0"},
            }
            if spec.get("instructions") is not None:
                result["instructions"] = spec["instructions"]
        elif method == "tools/list":
            start = int((msg.get("params") or {}).get("cursor") or 0)
            result = {"tools": tools[start : start + size]}
            if start + size < len(tools):
                result["nextCursor"] = str(start + size)
        else:
            reply = {
                "jsonrpc": "2.0",
                "id": msg["id"],
                "error": {"code": -32601, "message": "unknown method"},
            }
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()
            continue
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
