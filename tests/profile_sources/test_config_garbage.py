"""Garbage and unreadable config files: one warning each, never an exception, nothing invented."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import examples
from wslmcp.profile.configs import discover
from wslmcp.profile.configs.reading import read_json, read_toml

from .conftest import Layout


def test_invalid_json_reports_python_error_with_universal_newlines(layout: Layout) -> None:
    path = layout.write(".claude.json", '{"mcpServers": {"a": {"command": "x"}}, \r\n"x": 3,}')
    found = layout.one("claude-code")
    assert found.servers == ()
    assert found.warnings == (
        f"could not parse {path}: Expecting property name enclosed in double quotes: line 2 column 8 (char 48)",
    )
    assert found.provenance_incomplete


def test_bom_is_a_parse_error(layout: Layout) -> None:
    path = layout.write(".claude.json", b"\xef\xbb\xbf{}")
    assert layout.one("claude-code").warnings == (
        f"could not parse {path}: Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)",
    )


def test_claude_undecodable_is_could_not_parse(layout: Layout) -> None:
    path = layout.write(".claude.json", b'{"a": "\xff"}')
    assert layout.one("claude-code").warnings == (
        f"could not parse {path}: 'utf-8' codec can't decode byte 0xff in position 7: invalid start byte",
    )


@pytest.mark.parametrize("root", ["[]", "3", '"text"', "null"])
def test_root_not_an_object(layout: Layout, root: str) -> None:
    path = layout.write(".mcp.json", root, base="project")
    assert layout.one("claude-code").warnings == (f"{path}: config root is not an object",)


def test_a_directory_where_a_file_should_be_is_could_not_read(layout: Layout) -> None:
    (layout.home / ".cursor" / "mcp.json").mkdir(parents=True)
    path = layout.home / ".cursor" / "mcp.json"
    assert layout.one("cursor").warnings == (f"could not read {path}: [Errno 21] Is a directory: '{path}'",)


def test_deep_nesting_is_a_parse_error_not_a_crash(layout: Layout) -> None:
    path = layout.write(".claude.json", "[" * 100_000 + "]" * 100_000)
    (warning,) = layout.one("claude-code").warnings
    assert warning.startswith(f"could not parse {path}: ")


def test_garbage_in_one_file_keeps_the_others(layout: Layout) -> None:
    layout.write(".claude.json", "{not json")
    layout.write(".mcp.json", {"mcpServers": {"ok": {"command": "x"}}}, base="project")
    found = layout.one("claude-code")
    assert [s.name for s in found.servers] == ["ok"]
    assert len(found.warnings) == 1


@settings(
    max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.binary(max_size=300))
def test_arbitrary_bytes_never_raise(layout: Layout, data: bytes) -> None:
    for rel in (".claude.json", ".codex/config.toml", ".cursor/mcp.json"):
        layout.write(rel, data)
    result = layout.discover("all")
    for cli in result.clis:
        assert all(isinstance(w, str) for w in cli.warnings)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=12,
)


@settings(
    max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(servers=st.dictionaries(st.text(max_size=6), json_values, max_size=4))
def test_arbitrary_server_specs_never_raise(layout: Layout, servers: dict[str, object]) -> None:
    layout.write(".claude.json", json.dumps({"mcpServers": servers}))
    found = layout.one("claude-code")
    assert len(found.servers) == sum(isinstance(v, dict) for v in servers.values())


def test_missing_files_are_silent(layout: Layout) -> None:
    from wslmcp.boundaries.client_files import LocalClientFiles

    files = LocalClientFiles()
    assert read_json(files, str(layout.home / "nope.json")).exists is False
    assert read_toml(files, str(layout.home / "nope.toml")).warning is None
    result = discover(files, str(layout.home), str(layout.project), "cursor")
    assert result.clis[0].servers == () and result.clis[0].warnings == ()
