"""Hostile input to the shell server: strict argument types on every tool (refused before anything
runs: a tool error coded invalid_arguments for a 2025-11-25 client), rejected input quoted back truncated, and "not configured" from every session tool.

The wrong-type calls are generated from the tools' own input schemas (every property, every JSON
value its schema does not allow), so a tool or argument added later is covered without a new case.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.in_process import refused_arguments
from tests.shell.conftest import WrappedLocal, build
from tests.shell.test_stdio import _params
from wslmcp.arguments import QUOTE_CHARS, InvalidArguments, check_schema

# one JSON value of each kind, as a client can send it
JSON_VALUES: dict[str, Any] = {
    "true": True,
    "false": False,
    "zero": 0,
    "one": 1,
    "float": 1.5,
    "integral float": 500.0,
    "numeric string": "500",
    "empty string": "",
    "string": "x",
    "null": None,
    "list": [1],
    "object": {"a": 1},
}


def _allows(prop: dict[str, Any], value: Any) -> bool:
    """Whether JSON Schema (the subset the tools use) accepts ``value``: the oracle, written from
    the JSON Schema rules, independent of the validator under test."""
    for alt in prop.get("anyOf", [prop]):
        kind = alt.get("type")
        if kind == "null" and value is None:
            return True
        if kind == "boolean" and type(value) is bool:
            return True
        if kind == "string" and type(value) is str and len(value) >= alt.get("minLength", 0):
            return True
        if kind == "integer" and type(value) is int and value >= alt.get("minimum", value):
            return True
    return False


def _wrong_calls(tools: list[Any], marker: Path) -> list[tuple[str, dict[str, Any], str]]:
    """(tool, arguments, what is wrong) for every property and every value its schema refuses; the
    other arguments are valid and would touch ``marker`` if the call ran."""
    valid: dict[str, dict[str, Any]] = {
        "wsl_exec": {"command": f"touch {marker}"},
        "wsl_write_file": {"path": str(marker), "content": "ran"},
        "wsl_upload": {"localPath": str(marker.parent / "src.txt"), "remotePath": str(marker)},
        "wsl_download": {"remotePath": str(marker.parent / "src.txt"), "localPath": str(marker)},
        "wsl_list_dir": {"path": str(marker.parent)},
        "wsl_read_file": {"path": str(marker.parent / "src.txt")},
        "wsl_disconnect": {"session": "box#1"},
    }
    calls = []
    for tool in tools:
        base = valid.get(tool.name, {})
        for key, prop in tool.input_schema.get("properties", {}).items():
            for label, value in JSON_VALUES.items():
                if not _allows(prop, value):
                    calls.append((tool.name, {**base, key: value}, f"{key}={label}"))
    return calls


async def test_every_wrong_type_on_every_tool_is_refused_and_nothing_runs(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    (tmp_path / "src.txt").write_text("source")
    async with Client(_params(WSL_DISTRO="Ubuntu", WSL_NAME="box")) as client:
        tools = (await client.list_tools()).tools
        calls = _wrong_calls(tools, marker)
        labels = {label for _, _, label in calls}
        # the faults of issue 14 are among the generated cases
        assert {"timeoutMs=true", "timeoutMs=numeric string", "maxBytes=true", "append=one"} <= labels
        for tool, arguments, label in calls:
            refused_arguments(await client.call_tool(tool, arguments))
            assert not marker.exists(), (tool, label)
        # the server keeps serving, and a right call still runs
        ok = await client.call_tool("wsl_exec", {"command": f"touch {marker}", "timeoutMs": 5000})
        assert not ok.is_error and marker.exists()


async def test_every_argument_is_advertised_with_one_plain_json_type() -> None:
    """An optional argument is one that may be left out (as the reference's ``timeoutMs?: integer >
    0``), not ``anyOf [integer, null]``: clients that type a value from the schema (the MCP
    Inspector CLI sends ``--tool-arg timeoutMs=500`` as 500 only when the property says
    ``integer``) could otherwise not set it at all."""
    async with Client(_params(WSL_DISTRO="Ubuntu")) as client:
        for tool in (await client.list_tools()).tools:
            for key, prop in tool.input_schema.get("properties", {}).items():
                assert prop.get("type") in ("string", "integer", "boolean", "array"), (tool.name, key, prop)
                assert "anyOf" not in prop and prop.get("default", "") is not None, (tool.name, key, prop)


async def test_undeclared_and_missing_arguments_are_refused(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    async with Client(_params(WSL_DISTRO="Ubuntu")) as client:
        for tool in (await client.list_tools()).tools:
            assert tool.input_schema.get("additionalProperties") is False, tool.name
        message = refused_arguments(
            await client.call_tool("wsl_exec", {"command": f"touch {marker}", "timeout_ms": 800})
        )
        assert "timeout_ms" in message and "timeoutMs" in message
        assert "Nothing was run" in message
        message = refused_arguments(await client.call_tool("wsl_list_hosts", {"x" * 1_000_000: 1}))
        assert "takes no arguments" in message
        assert len(message) < 4 * QUOTE_CHARS  # the 1 MB name is not echoed back
        assert "command" in refused_arguments(await client.call_tool("wsl_exec", {}))
        assert not marker.exists()


def test_the_validator_is_strict_about_json_types() -> None:
    schema = {
        "properties": {
            "n": {"anyOf": [{"type": "integer", "exclusiveMinimum": 0}, {"type": "null"}]},
            "b": {"type": "boolean"},
            "s": {"type": "string", "minLength": 1},
        },
        "required": ["s"],
    }
    check_schema("t", schema, {"s": "a", "n": 5, "b": False})
    check_schema("t", schema, {"s": "a", "n": None})
    for bad in ({"s": "a", "n": True}, {"s": "a", "n": "5"}, {"s": "a", "n": 5.0}, {"s": "a", "n": 0}):
        with pytest.raises(InvalidArguments, match="n must be"):
            check_schema("t", schema, bad)
    for bad in ({"s": "a", "b": 1}, {"s": "a", "b": "true"}, {"s": "a", "b": None}):
        with pytest.raises(InvalidArguments, match="b must"):
            check_schema("t", schema, bad)
    for bad in ({"s": 1}, {"s": ""}, {"s": None}, {}):
        with pytest.raises(InvalidArguments, match=r"\bs\b"):
            check_schema("t", schema, bad)


@pytest.mark.parametrize(
    ("prop", "value", "said"),
    [
        ({"type": "string", "minLength": 1}, "", "x must not be empty"),
        ({"type": "string", "minLength": 2}, "a", "x must be at least 2 characters long"),
        ({"type": "string", "minLength": 1, "maxLength": 3}, "abcd", "x must be 1..3 characters long"),
        ({"type": "array", "minItems": 1}, [], "x must not be empty"),
        ({"type": "array", "minItems": 2}, [1], "x must hold at least 2 items"),
        ({"type": "array", "maxItems": 1}, [1, 2], "x must hold 0..1 items"),
    ],
)
def test_a_length_is_said_in_plain_words(prop: dict[str, object], value: object, said: str) -> None:
    with pytest.raises(InvalidArguments) as err:
        check_schema("t", {"properties": {"x": prop}}, {"x": value})
    assert str(err.value) == said


async def test_a_huge_refused_command_is_quoted_back_truncated(tmp_path: Path) -> None:
    transport = WrappedLocal()
    b = build({"WSL_DENY_PATTERNS": "forbidden-word"}, transport=transport)
    command = "echo forbidden-word " + "y" * 1_000_000
    reply = await b.service.exec(command, cwd=str(tmp_path))
    assert reply.is_error and "Nothing was run in the distro." in reply.text
    assert len(reply.text) < 10 * QUOTE_CHARS, len(reply.text)
    assert "more characters)" in reply.text
    assert transport.calls == 0
    logged = b.log.getvalue()
    assert len(logged) < 20 * QUOTE_CHARS, len(logged)


async def test_huge_session_ids_cwds_and_paths_are_quoted_back_truncated(tmp_path: Path) -> None:
    b = build()
    huge = "z" * 1_000_000
    replies = [
        await b.service.exec("true", session=huge),
        await b.service.exec("true", cwd="rel/" + huge),
        await b.service.connect("rel/" + huge),
        await b.service.disconnect(huge),
        await b.service.read_file("rel/" + huge),
        await b.service.list_dir(str(tmp_path), session=huge),
    ]
    for reply in replies:
        assert reply.is_error and len(reply.text) < 10 * QUOTE_CHARS, reply.text[:300]


async def test_without_a_distro_list_sessions_says_not_configured_like_every_tool() -> None:
    b = build({"WSL_DISTRO": ""})
    sessions = await b.service.list_sessions()
    exec_reply = await b.service.exec("true")
    assert sessions.is_error and exec_reply.is_error
    assert sessions.text == exec_reply.text.replace("wsl_exec", "wsl_list_sessions")
    assert "not configured" in sessions.text
