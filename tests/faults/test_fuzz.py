"""Generated JSON-RPC frames and tool arguments over real stdio, against observe (replaying a bundled
scenario) and shell (a local bash, read-only, a few harmless commands): every request with a usable
id gets exactly one answer, stdout carries only JSON-RPC, and the server keeps serving."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import examples
from tests.faults.rig import Server, observe_command, shell_command, shell_env

OBSERVE_TOOLS = ["get_system_summary", "list_resources", "inspect_resource", "list_children"]
OBSERVE_KEYS = ["max_age_ms", "snapshot_id", "resource_id", "limit", "sort", "environment", "kind", "query"]
# No tool that writes or moves local files: generated paths must not land anywhere.
SHELL_TOOLS = [
    "wsl_list_hosts",
    "wsl_connect",
    "wsl_disconnect",
    "wsl_list_sessions",
    "wsl_exec",
    "wsl_list_dir",
    "wsl_read_file",
]
SHELL_KEYS = ["command", "session", "cwd", "timeoutMs", "path", "maxBytes"]
METHODS = [
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "prompts/list",
    "logging/setLevel",
    "completion/complete",
    "notifications/initialized",
    "notifications/cancelled",
    "server/discover",
]

# Text with lone surrogates (category Cs) and control characters among the rest.
TEXT = st.text(st.characters(categories=["L", "N", "P", "S", "Zs", "Cc", "Cs"]), max_size=12)
SCALARS = st.none() | st.booleans() | st.integers(-(2**64), 2**64) | st.floats(allow_nan=False) | TEXT
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=10,
)
IDS = st.integers(-(10**6), 10**6) | TEXT | st.sampled_from([True, False, None, 1.5, {"a": 1}, [1]])


def arguments(keys: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    return st.dictionaries(st.sampled_from(keys) | TEXT, VALUES, max_size=4)


def call_params(tools: list[str], keys: list[str]) -> st.SearchStrategy[object]:
    return st.fixed_dictionaries(
        {"name": st.sampled_from(tools) | TEXT},
        optional={"arguments": arguments(keys) | VALUES, "_meta": VALUES},
    )


def requests(tools: list[str], keys: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    params = call_params(tools, keys) | VALUES
    return st.fixed_dictionaries(
        {"jsonrpc": st.sampled_from(["2.0", "2.0", "2.0", "1.0"]), "method": st.sampled_from(METHODS) | TEXT},
        optional={"id": IDS, "params": params},
    )


def frames(tools: list[str], keys: list[str]) -> st.SearchStrategy[tuple[object, str]]:
    """(frame, encoding): a request or notification, a batch, any JSON value, or raw bytes."""
    one = requests(tools, keys)
    shapes = (
        one
        | one
        | one
        | st.lists(one, max_size=3)
        | VALUES
        | st.binary(max_size=40).map(lambda b: b.replace(b"\n", b" "))
    )
    return st.tuples(shapes, st.sampled_from(["ascii", "utf-8"]))


_fresh = itertools.count(1_000_000_000)


def with_fresh_ids(frame: object) -> tuple[object, list[object]]:
    """Give every request with a usable id a fresh one (so answers can be counted across examples);
    returns the frame and the ids that must each get exactly one answer."""
    expected: list[object] = []

    def fix(item: object) -> object:
        if isinstance(item, dict) and "method" in item and "id" in item:
            rid = item["id"]
            if isinstance(rid, int) and not isinstance(rid, bool):
                item = {**item, "id": next(_fresh)}
                expected.append(item["id"])
            elif isinstance(rid, str):
                item = {**item, "id": f"s{next(_fresh)}"}
                expected.append(item["id"])
        return item

    if isinstance(frame, list):
        return [fix(e) for e in frame], expected
    return fix(frame), expected


def encode(frame: object, encoding: str) -> bytes:
    if isinstance(frame, bytes):
        return frame
    if encoding == "ascii":
        return json.dumps(frame, ensure_ascii=True).encode()
    return json.dumps(frame, ensure_ascii=False).encode(
        "utf-8", "surrogatepass"
    )  # lone surrogates: invalid UTF-8


def exercise(server: Server, frame: object, encoding: str) -> None:
    fixed, expected = with_fresh_ids(frame)
    server.send_line(encode(fixed, encoding))
    probe = f"probe-{next(_fresh)}"
    assert "result" in server.ping(probe), "the server stopped serving"
    for rid in expected:
        server.wait_for(rid)
        assert len(server.answers(rid)) == 1, (rid, server.answers(rid))
    assert server.only_jsonrpc_on_stdout() == []


@pytest.fixture(scope="module")
def observe_server() -> Iterator[Server]:
    server = Server(observe_command())
    server.handshake()
    yield server
    assert server.close() == 0


@pytest.fixture(scope="module")
def shell_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    home = tmp_path_factory.mktemp("fuzz-shell")
    env = shell_env(
        home,
        WSL_READONLY="true",
        WSL_ALLOW_COMMANDS="echo,true,ls",
        WSL_ALLOWED_PATHS=str(home),
        WSL_EXEC_TIMEOUT_MS="2000",
    )
    server = Server(shell_command(), env, cwd=home)
    server.handshake()
    yield server
    assert server.close() == 0


FUZZ = settings(
    max_examples=examples(120),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@FUZZ
@given(generated=frames(OBSERVE_TOOLS, OBSERVE_KEYS))
def test_observe_answers_every_generated_request_once(
    observe_server: Server, generated: tuple[object, str]
) -> None:
    exercise(observe_server, *generated)


@FUZZ
@given(generated=frames(SHELL_TOOLS, SHELL_KEYS))
def test_shell_answers_every_generated_request_once(
    shell_server: Server, generated: tuple[object, str]
) -> None:
    exercise(shell_server, *generated)


def test_no_id_was_ever_answered_twice(observe_server: Server, shell_server: Server) -> None:
    for server in (observe_server, shell_server):
        counts = server.id_counts()
        assert [rid for rid, n in counts.items() if n > 1 and rid != "null"] == []
