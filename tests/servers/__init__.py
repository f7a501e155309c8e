"""Real stdio MCP servers the tests launch."""

from pathlib import Path

#: The hostile-capable stdlib test server (``stdio_server.py``); run it with ``sys.executable``.
STDIO_SERVER = Path(__file__).resolve().parent / "stdio_server.py"
