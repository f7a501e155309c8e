"""Cursor config discovery (mcp-top §3.4): user and project mcp.json, project wins."""

from __future__ import annotations

from wslmcp.profile.model import ShadowedEntry

from .conftest import Layout


def test_user_and_project_files_project_wins_with_warning(layout: Layout) -> None:
    user = layout.write(".cursor/mcp.json", {"mcpServers": {"a": {"command": "u"}, "b": {"url": "http://u"}}})
    proj = layout.write(
        ".cursor/mcp.json", {"mcpServers": {"a": {"command": "p"}, "c": {"command": "p"}}}, base="project"
    )
    found = layout.one("cursor")
    assert [(s.name, s.scope, s.source_path, s.command) for s in found.servers] == [
        ("a", "project", str(proj), "p"),
        ("b", "user", str(user), None),
        ("c", "project", str(proj), "p"),
    ]
    assert found.servers[0].shadowed == (ShadowedEntry("user", str(user), True),)
    assert found.warnings == ("server 'a' from project overrides user",)
    assert found.files_read == (str(user), str(proj))


def test_empty_file_warns(layout: Layout) -> None:
    path = layout.write(".cursor/mcp.json", " \n\t")
    assert layout.one("cursor").warnings == (f"{path}: exists but is empty -- no servers read",)


def test_undecodable_file_is_could_not_read(layout: Layout) -> None:
    path = layout.write(".cursor/mcp.json", b'{"mcpServers": {}, "x": "\xff"}')
    assert layout.one("cursor").warnings == (
        f"could not read {path}: 'utf-8' codec can't decode byte 0xff in position 25: invalid start byte",
    )


def test_cursor_never_marks_reserved_names(layout: Layout) -> None:
    layout.write(".cursor/mcp.json", {"mcpServers": {"workspace": {"command": "x"}}})
    assert [s.reserved for s in layout.one("cursor").servers] == [False]
