"""Codex's recorded outputs and arguments as the neutral trace's (the rollout itself is read by the
client's one reader, ``profile.transcripts.codex.CodexReading``).

``arguments`` is a JSON string. An output is a string: an MCP envelope ``{"content": [...],
"isError": ...}`` (or a bare list of content blocks) gives the text blocks; anything else is the
text itself.
"""

from __future__ import annotations

import json
import re
from typing import Any

from wslmcp.evals.trace import Result, structured_of, text_content

_MCP_ERROR = re.compile(r"(?:MCP error|tool call error:.*?) ?(-3\d{4}): ?(.*)", re.DOTALL)


def arguments_of(recorded: object) -> Any:
    """A call's ``arguments`` (or ``input``): a JSON string as the value it holds (a string that is
    not JSON stays as it is), none as ``{}``."""
    if not isinstance(recorded, str):
        return recorded if recorded is not None else {}
    try:
        return json.loads(recorded) if recorded.strip() else {}
    except ValueError:
        return recorded


def output_of(output: object, is_error: bool = False) -> Result:
    """A function_call_output's ``output`` as a recorded result (the rollout marks no error: the
    output says it, ``is_error`` is taken as every client's result conversion takes it)."""
    is_error = False
    structured: dict[str, Any] | None = None
    if isinstance(output, dict):  # older rollouts: {"content": str, "success": bool}
        is_error = output.get("success") is False
        output = output.get("content", "")
    if not isinstance(output, str):
        return Result("ok", [])
    blocks = text_content(output)
    try:
        parsed = json.loads(output) if output.lstrip()[:1] in ("{", "[") else None
    except ValueError:
        parsed = None
    if isinstance(parsed, dict) and isinstance(parsed.get("content"), list):
        blocks = [b for b in parsed["content"] if isinstance(b, dict)]
        is_error = is_error or parsed.get("isError") is True or parsed.get("is_error") is True
        if isinstance(parsed.get("structuredContent"), dict):
            structured = parsed["structuredContent"]
    elif isinstance(parsed, list) and all(isinstance(b, dict) and "type" in b for b in parsed):
        blocks = parsed
    result = Result("tool_error" if is_error else "ok", blocks)
    match = _MCP_ERROR.match(result.text.strip())
    if match:
        result.status = "jsonrpc_error"
        result.error = {"code": int(match.group(1)), "message": match.group(2)}
        return result
    result.structured = structured or structured_of(result.text)
    return result
