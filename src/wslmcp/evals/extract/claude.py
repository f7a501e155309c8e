"""Claude Code's recorded results and arguments as the neutral trace's (the transcript itself is read
by the client's one reader, ``profile.transcripts.claude.ClaudeReading``)."""

from __future__ import annotations

import re
from typing import Any

from wslmcp.evals.trace import Result, structured_of, text_content

_MCP_ERROR = re.compile(r"MCP error (-?\d+): ?(.*)", re.DOTALL)


def arguments_of(recorded: object) -> Any:
    """A ``tool_use`` block's ``input``, as recorded."""
    return recorded


def result_of(content: object, is_error: bool) -> Result:
    """A tool_result's content (a string or a list of blocks) as a recorded result."""
    if isinstance(content, str):
        blocks = text_content(content)
    elif isinstance(content, list):
        blocks = [b for b in content if isinstance(b, dict)]
    else:
        blocks = []
    result = Result("tool_error" if is_error else "ok", blocks)
    text = result.text
    if is_error:
        match = _MCP_ERROR.match(text.strip())
        if match:
            result.status = "jsonrpc_error"
            result.error = {"code": int(match.group(1)), "message": match.group(2)}
            return result
        if "<tool_use_error>" in text:
            result.status = "client_error"
            return result
    result.structured = structured_of(text)
    return result
