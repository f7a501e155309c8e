"""The pure initialize + tools/list exchange: what it sends and how it judges replies, no process."""

from __future__ import annotations

import json
from typing import Any

import pytest

from wslmcp.boundaries import mcp_exchange
from wslmcp.boundaries.mcp_exchange import ToolsListing


def line(obj: object) -> bytes:
    return json.dumps(obj).encode()


def result(rid: object, value: object) -> bytes:
    return line({"jsonrpc": "2.0", "id": rid, "result": value})


INIT = {"protocolVersion": "2025-06-18", "serverInfo": {"name": "s", "version": "1"}, "instructions": "hi"}


def opened() -> ToolsListing:
    listing = ToolsListing("9.9")
    listing.opening()
    return listing


def test_the_opening_is_initialize_id_1_offering_the_sdk_s_newest_handshake_revision() -> None:
    from mcp_types.version import LATEST_HANDSHAKE_VERSION

    first = ToolsListing("9.9").opening()
    assert first == {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": LATEST_HANDSHAKE_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "wslmcp", "version": "9.9"},
        },
    }
    assert mcp_exchange.encode(first).endswith(b"}\n") and b", " not in mcp_exchange.encode(first)


def test_after_initialize_comes_the_notification_then_pages_until_no_cursor() -> None:
    listing = opened()
    sent = listing.receive_line(result(1, INIT))
    assert sent == [
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}},
    ]
    page = {"tools": [{"name": "a"}, 5, "x", None, {"description": "nameless"}], "nextCursor": "c2"}
    assert listing.receive_line(result(2, page)) == [
        {"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"cursor": "c2"}}
    ]
    assert not listing.finished
    assert listing.receive_line(result(3.0, {"tools": [{"name": "b"}], "nextCursor": ""})) == []
    assert (listing.finished, listing.failure) == (True, None)
    answer = listing.answer("n")
    assert (answer.server_name, answer.server_version, answer.protocol_version, answer.instructions) == (
        "s",
        "1",
        "2025-06-18",
        "hi",
    )
    assert answer.tools == ({"name": "a"}, {"description": "nameless"}, {"name": "b"})


@pytest.mark.parametrize(
    ("init_reply", "list_reply", "reason"),
    [
        ({"error": {"code": -32603, "message": "secret"}}, None, "initialize failed (code -32603)"),
        ({"error": {"code": "x"}}, None, "initialize failed (no code)"),
        ({"error": {"code": True}}, None, "initialize failed (no code)"),
        ({"error": "flat"}, None, "initialize failed (no code)"),
        ({"result": INIT}, {"error": {"code": 1.5}}, "tools/list failed (no code)"),
        ({"result": INIT}, {"result": {"tools": []}, "error": {"code": 7}}, "tools/list failed (code 7)"),
        ({"result": INIT}, {"result": [1]}, "tools/list response has no result object"),
        ({"result": INIT}, {"result": {"tools": {}}}, "tools/list response has no tools list"),
        (
            {"result": INIT},
            {"result": {"tools": [], "nextCursor": 3}},
            "tools/list nextCursor is not a string",
        ),
    ],
)
def test_replies_are_judged_in_mcp_top_s_words(
    init_reply: dict[str, Any], list_reply: dict[str, Any] | None, reason: str
) -> None:
    listing = opened()
    listing.receive_line(line({"jsonrpc": "2.0", "id": 1, **init_reply}))
    if list_reply is not None:
        listing.receive_line(line({"jsonrpc": "2.0", "id": 2, **list_reply}))
    assert (listing.finished, listing.failure) == (True, reason)
    answer = listing.answer("n")
    assert (answer.error, answer.tools, answer.server_name) == (reason, (), None)
    assert "secret" not in repr(answer)


def test_an_initialize_result_that_is_not_an_object_leaves_the_server_unnamed() -> None:
    listing = opened()
    listing.receive_line(result(1, None))
    listing.receive_line(result(2, {"tools": [{"name": "t"}]}))
    answer = listing.answer("n")
    assert (answer.error, answer.server_name, answer.protocol_version, [t["name"] for t in answer.tools]) == (
        None,
        None,
        None,
        ["t"],
    )


def test_junk_is_counted_and_stray_responses_and_notifications_are_not() -> None:
    listing = opened()
    for junk in (b"banner", b'{"broken', b"[1, 2]", line({"id": 1}), line({"jsonrpc": "1.0", "method": "x"})):
        assert listing.receive_line(junk) == []
    assert listing.receive_line(b"  \r") == []  # blank: neither junk nor a message
    assert listing.receive_line(result(999, {})) == []  # a foreign id: ignored
    assert (
        listing.receive_line(line({"jsonrpc": "2.0", "method": "notifications/message", "params": {}})) == []
    )
    assert listing.junk_lines == 5 and not listing.finished
    assert listing.junk_detail() == "ignored 5 stdout line(s) that were not JSON-RPC"


def test_a_lone_surrogate_and_invalid_utf8_are_text_not_failures() -> None:
    listing = opened()
    listing.receive_line(result(1, INIT))
    listing.receive_line(b'{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"\\ud800\xff"}]}}')
    assert listing.failure is None and listing.tools == [{"name": "\ud800\ufffd"}]


def test_the_server_s_own_requests_are_answered_not_obeyed() -> None:
    listing = opened()
    assert listing.receive_line(line({"jsonrpc": "2.0", "id": "p", "method": "ping"})) == [
        {"jsonrpc": "2.0", "id": "p", "result": {}}
    ]
    assert listing.receive_line(line({"jsonrpc": "2.0", "id": 7, "method": "roots/list"})) == [
        {"jsonrpc": "2.0", "id": 7, "error": {"code": -32601, "message": "Method not found"}}
    ]
    assert listing.method == "initialize" and listing.request_id == 1


def test_transport_reasons_and_the_first_outcome_wins() -> None:
    listing = opened()
    listing.receive_line(result(1, INIT))
    assert listing.closed_reason() == "server closed stdout before response id 2"
    listing.fail(mcp_exchange.timeout_reason(1.0))
    listing.fail(mcp_exchange.exceeded_reason(10))
    assert listing.failure == "timeout after 1 seconds"
    assert listing.receive_line(result(2, {"tools": [{"name": "late"}]})) == [] and listing.tools == []
    listing.junk_lines = 2
    assert listing.failure_detail(3) == "2 stdout line(s) were not JSON-RPC; server exited with code 3"
    assert listing.failure_detail(-9) == "2 stdout line(s) were not JSON-RPC; server killed by signal 9"
    assert mcp_exchange.timeout_reason(1.5) == "timeout after 1.5 seconds"
