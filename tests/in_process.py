"""The servers built in process, as the replay layer builds them, for the SDK's in-memory client."""

from __future__ import annotations

import json
from typing import Any

from mcp.server.lowlevel import Server

from wslmcp.observe import handlers as observe_handlers
from wslmcp.observe.service import ObserveService
from wslmcp.observe.tools import SERVER as OBSERVE
from wslmcp.serving import build_server
from wslmcp.shell import handlers as shell_handlers
from wslmcp.shell.service import ShellService
from wslmcp.shell.tools import SERVER as SHELL


def observe_server(service: ObserveService) -> Server[Any]:
    return build_server(OBSERVE, observe_handlers.dispatch(service))


def shell_server(service: ShellService) -> Server[Any]:
    return build_server(SHELL, shell_handlers.dispatch(service))


def refused_arguments(result: Any, *, json_text: bool = False) -> str:
    """The message of a call refused for its arguments, as a 2025-11-25 client receives it (a tool
    error coded ``invalid_arguments``, its text the message, or with ``json_text`` (observe) the
    JSON of its structuredContent); fails on any other answer."""
    assert result.is_error is True, result
    message: str = result.structured_content["error"]["message"]
    assert result.structured_content == {"error": {"code": "invalid_arguments", "message": message}}
    text = result.content[0].text
    assert (json.loads(text) == result.structured_content) if json_text else (text == message), text
    return message
