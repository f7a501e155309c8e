"""Frames a real client should never send still get exactly one answer each, over real stdio, for
both servers on their shared transport (``wslmcp.stdio``); the server keeps serving afterwards and
stdout carries only JSON-RPC."""

from __future__ import annotations

import itertools
import json

from tests.faults.rig import INITIALIZED, Server, init_frame

SURROGATE_CALL = b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"%s","arguments":{"path":"\\ud800","query":"\\ud83d"}}}'


def tool_of(server: Server) -> bytes:
    return b"list_resources" if "observe" in server.proc.args else b"wsl_list_dir"  # type: ignore[operator]


_pings = itertools.count()


def assert_still_serving(server: Server) -> None:
    assert "result" in server.ping(f"still-there-{next(_pings)}")
    assert server.only_jsonrpc_on_stdout() == []
    counts = server.id_counts()
    assert all(n == 1 for request_id, n in counts.items() if request_id != "null"), counts


def test_a_lone_surrogate_in_an_argument_gets_invalid_params(served: Server) -> None:
    served.send_line(SURROGATE_CALL % tool_of(served))
    reply = served.wait_for(7)
    assert reply["error"]["code"] == -32602
    assert (
        "lone UTF-16 surrogate" in reply["error"]["message"]
        and "params.arguments." in reply["error"]["message"]
    )
    assert_still_serving(served)


def test_params_that_are_not_an_object_get_invalid_request(served: Server) -> None:
    served.send_line(b'{"jsonrpc":"2.0","id":8,"method":"tools/list","params":"text"}')
    reply = served.wait_for(8)
    assert reply["error"]["code"] == -32600 and "params" in reply["error"]["message"]
    assert_still_serving(served)


def test_a_batch_gets_an_error_for_each_request_in_it(served: Server) -> None:
    served.send(
        [
            {"jsonrpc": "2.0", "id": 9, "method": "ping"},
            {"jsonrpc": "2.0", "id": "ten", "method": "tools/list"},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
        ]
    )
    for request_id in (9, "ten"):
        reply = served.wait_for(request_id)
        assert reply["error"]["code"] == -32600 and "batches are not supported" in reply["error"]["message"]
    assert_still_serving(served)


def test_requests_before_initialize_are_told_so(server: Server) -> None:
    server.send({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    reply = server.wait_for(1)
    assert reply["error"]["code"] == -32600
    assert "not initialized" in reply["error"]["message"] and "initialize" in reply["error"]["message"]
    assert "result" in server.ping("early-ping")  # ping is allowed before the handshake
    server.handshake()
    server.send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    assert server.wait_for(2)["result"]["tools"]
    assert_still_serving(server)


def test_a_pipelined_handshake_is_served_in_order(server: Server) -> None:
    """A client that does not wait for the initialize answer: the next request is read only after it."""
    server.send_line(
        b"\n".join(
            json.dumps(f).encode()
            for f in (init_frame(), INITIALIZED, {"jsonrpc": "2.0", "id": 3, "method": "tools/list"})
        )
    )
    assert "result" in server.wait_for("init")
    assert server.wait_for(3)["result"]["tools"]
    assert_still_serving(server)


NULL_ID_FRAMES = [
    (b"not json at all", -32700),
    (b'{"jsonrpc":"2.0","id":true,"method":"ping"}', -32600),
    (b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}', -32600),
    (b'{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', -32600),
    (b"42", -32600),
    (b'"\\ud800"', -32600),
    (b"x" * 1_000_000, -32700),
]


def test_frames_without_a_usable_id_get_one_answer_with_a_null_id(server: Server) -> None:
    """Parse errors and unusable ids are answered with ``id: null``, and a rejected line is quoted
    back truncated (a 1 MB line's refusal stays short)."""
    server.handshake()
    for n, (line, code) in enumerate(NULL_ID_FRAMES, start=1):
        server.send_line(line)
        reply = server.wait_for(None, count=n)
        assert reply["error"]["code"] == code, (line[:60], reply)
        assert len(reply["error"]["message"]) < 400
    assert len(server.answers(None)) == len(NULL_ID_FRAMES)
    assert_still_serving(server)


def test_malformed_notifications_are_dropped_without_an_answer(served: Server) -> None:
    served.send_line(b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":"text"}')
    served.send_line(b'{"jsonrpc":"2.0","id":99,"result":{"unasked":true}}')
    assert_still_serving(served)
    assert served.answers(None) == [] and served.answers(99) == []
