"""wslmcp: MCP servers and a replayable test harness for AI agents on Windows 11 + WSL2 hosts."""

__version__ = "0.1.0"
