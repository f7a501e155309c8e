"""Codex config discovery (mcp-top §3.3): user config, enabled, tool filters, the project layer."""

from __future__ import annotations

import os

from wslmcp.profile.configs.codex import CAVEAT_REDEFINED, CAVEAT_UNREADABLE

from .conftest import Layout

NOTE = (
    " -- not queried and not merged. Codex applies project layers only to trusted projects"
    " (unobservable here) and layer merge semantics are undocumented, so these are shown as a"
    " conditional inventory only."
)


def test_user_config_servers_are_user_scope_in_file_order(layout: Layout) -> None:
    path = layout.write(
        ".codex/config.toml",
        '[mcp_servers.zeta]\ncommand = "z"\n[mcp_servers.alpha]\ncommand = "a"\nargs = ["--x"]\n'
        '[mcp_servers."dotted.name"]\nurl = "http://x"\n',
    )
    found = layout.one("codex")
    assert [(s.name, s.scope, s.transport, s.source_path) for s in found.servers] == [
        ("zeta", "user", "stdio", str(path)),
        ("alpha", "user", "stdio", str(path)),
        ("dotted.name", "user", "http", str(path)),
    ]
    assert found.servers[1].args == ("--x",)
    assert found.warnings == () and found.project_layer_servers is None


def test_enabled_flag(layout: Layout) -> None:
    path = layout.write(
        ".codex/config.toml",
        '[mcp_servers.on]\ncommand = "x"\n[mcp_servers.off]\ncommand = "x"\nenabled = false\n'
        '[mcp_servers.odd]\ncommand = "x"\nenabled = 1\n',
    )
    found = layout.one("codex")
    assert {s.name: s.enabled for s in found.servers} == {"on": True, "off": False, "odd": False}
    assert found.warnings == (
        f"{path}: server 'odd' enabled is not a boolean -- treating server as disabled",
    )


def test_enabled_tools_and_disabled_tools(layout: Layout) -> None:
    path = layout.write(
        ".codex/config.toml",
        '[mcp_servers.a]\ncommand = "x"\nenabled_tools = ["t1", "t2"]\ndisabled_tools = ["t2"]\n'
        '[mcp_servers.b]\ncommand = "x"\nenabled_tools = []\n'
        '[mcp_servers.c]\ncommand = "x"\nenabled_tools = "t1"\ndisabled_tools = 3\n',
    )
    found = layout.one("codex")
    filters = {s.name: (s.enabled_tools, s.disabled_tools) for s in found.servers}
    assert filters == {"a": (("t1", "t2"), ("t2",)), "b": ((), None), "c": (None, None)}
    assert found.warnings == (
        f"{path}: server 'c' enabled_tools is not a list -- ignored (no tool filter applied)",
        f"{path}: server 'c' disabled_tools is not a list -- ignored (no tool filter applied)",
    )


def test_mcp_servers_not_a_table_warns_with_codex_key(layout: Layout) -> None:
    path = layout.write(".codex/config.toml", "mcp_servers = 5\n")
    assert layout.one("codex").warnings == (f"{path}: mcp_servers is not an object",)


def test_project_layer_is_listed_not_merged_and_caveats_same_names(layout: Layout) -> None:
    layout.write(
        ".codex/config.toml", '[mcp_servers.shared]\ncommand = "u"\n[mcp_servers.mine]\ncommand = "u"\n'
    )
    layer = layout.write(
        ".codex/config.toml",
        '[mcp_servers.zz]\ncommand = "p"\n[mcp_servers.shared]\ncommand = "p"\n[mcp_servers.bad]\nx = 1\n',
        base="project",
    )
    found = layout.one("codex")
    assert [(s.name, s.command, s.scope) for s in found.servers] == [
        ("shared", "u", "user"),
        ("mine", "u", "user"),
    ]
    assert found.project_layer_servers == ("bad", "shared", "zz")
    assert found.warnings == (f"project-layer codex config detected at {layer}: bad, shared, zz{NOTE}",)
    assert {s.name: s.resolution_caveat for s in found.servers} == {"shared": CAVEAT_REDEFINED, "mine": None}


def test_project_layer_warnings_come_first_even_without_a_user_config(layout: Layout) -> None:
    layer = layout.write(".codex/config.toml", "[mcp_servers]\n", base="project")
    found = layout.one("codex")
    assert found.servers == ()
    assert found.warnings == (f"project-layer codex config detected at {layer} (no mcp_servers table){NOTE}",)


def test_project_layer_precedes_user_warnings(layout: Layout) -> None:
    user = layout.write(".codex/config.toml", '[mcp_servers.a]\ncommand = "x"\nenabled = "no"\n')
    layer = layout.write(".codex/config.toml", "mcp_servers = 3\n", base="project")
    assert layout.one("codex").warnings == (
        f"project-layer codex config detected at {layer} (no mcp_servers table){NOTE}",
        f"{user}: server 'a' enabled is not a boolean -- treating server as disabled",
    )


def test_unreadable_project_layer_caveats_every_user_server(layout: Layout) -> None:
    layout.write(".codex/config.toml", '[mcp_servers.a]\ncommand = "x"\n[mcp_servers.b]\ncommand = "y"\n')
    layer = layout.write(".codex/config.toml", "[mcp_servers\n", base="project")
    found = layout.one("codex")
    assert found.warnings == (
        f"could not parse {layer}: Expected ']' at the end of a table declaration (at line 1, column 13)",
        f"project-layer codex config {layer} detected but could not be read -- not queried and not merged",
    )
    assert [s.resolution_caveat for s in found.servers] == [CAVEAT_UNREADABLE, CAVEAT_UNREADABLE]
    assert found.provenance_incomplete


def test_project_layer_that_is_the_user_config_is_skipped(layout: Layout) -> None:
    layout.write(".codex/config.toml", '[mcp_servers.a]\ncommand = "x"\n')
    os.symlink(layout.home / ".codex", layout.project / ".codex")
    found = layout.one("codex")
    assert found.warnings == () and found.project_layer_servers is None
    assert [s.resolution_caveat for s in found.servers] == [None]


def test_unparseable_and_undecodable_user_config(layout: Layout) -> None:
    path = layout.write(".codex/config.toml", "[mcp_servers.a\n")
    (warning,) = layout.one("codex").warnings
    assert warning.startswith(f"could not parse {path}: ")
    layout.write(".codex/config.toml", b'[mcp_servers.a]\ncommand = "\xff"\n')
    (warning,) = layout.one("codex").warnings
    assert warning.startswith(f"could not read {path}: 'utf-8' codec can't decode byte 0xff")
