"""Real stdio MCP servers the tests launch."""

from pathlib import Path

#: The hostile-capable stdlib test server (``stdio_server.py``); run it with ``sys.executable``.
STDIO_SERVER = Path(__file__).resolve().parent / "stdio_server.py"

#: A server built with the mcp SDK (both protocol eras over stdio, or streamable HTTP; ``sdk_server.py``).
SDK_SERVER = Path(__file__).resolve().parent / "sdk_server.py"
