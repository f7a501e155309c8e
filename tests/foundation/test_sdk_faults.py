"""The MCP SDK faults ``wslmcp.serving`` works around, watched on the SDK's own stdio server.

Each test states what a correct server does and is expected to fail on the pinned SDK (strict: an
upstream fix turns it into an unexpected pass, which fails the run, so the workaround can shrink).
Our servers pass the same checks: ``tests/faults/test_transport.py``."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.stdio_client import Server

SDK_SERVER = [sys.executable, str(Path(__file__).resolve().parents[1] / "servers" / "minimal_sdk_server.py")]
DROPPED = "mcp 2.3 drops a line its validation refuses and answers nothing (wslmcp.serving.judge answers it)"


@pytest.fixture
def sdk_server() -> Iterator[Server]:
    server = Server(SDK_SERVER)
    yield server
    server.close()


def _answered_before_the_next_ping(server: Server, line: bytes) -> bool:
    server.send_line(line)
    server.ping("after")
    return bool(server.answers(7))


@pytest.mark.xfail(strict=True, raises=AssertionError, reason=DROPPED)
@pytest.mark.parametrize(
    "line",
    [
        b'{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"cursor":"\\ud800"}}',
        b'{"jsonrpc":"2.0","id":7,"method":"tools/list","params":"text"}',
        b'[{"jsonrpc":"2.0","id":7,"method":"tools/list"}]',
    ],
    ids=["lone-surrogate", "params-not-an-object", "batch"],
)
def test_every_request_gets_an_answer(sdk_server: Server, line: bytes) -> None:
    sdk_server.handshake()
    assert _answered_before_the_next_ping(sdk_server, line)


@pytest.mark.xfail(
    strict=True,
    raises=AssertionError,
    reason="mcp 2.3 answers -32602 'Invalid request parameters', naming no cause",
)
def test_a_request_before_initialize_is_told_why_it_is_refused(sdk_server: Server) -> None:
    answer = sdk_server.request(7, "tools/list")
    assert "initializ" in answer["error"]["message"]
