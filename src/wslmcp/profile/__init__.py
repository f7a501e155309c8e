"""The profiler of configured MCP servers."""
