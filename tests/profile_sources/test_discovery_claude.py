"""Claude Code config discovery: one test per rule of mcp-top §3.1/§3.2."""

from __future__ import annotations

from wslmcp.profile.model import ShadowedEntry

from .conftest import Layout


def _names(layout: Layout) -> dict[str, str]:
    return {s.name: s.scope for s in layout.one("claude-code").servers}


def test_user_scope_from_root_mcp_servers(layout: Layout) -> None:
    path = layout.write(".claude.json", {"mcpServers": {"a": {"command": "x"}}})
    found = layout.one("claude-code")
    assert [(s.name, s.scope, s.source_path, s.transport) for s in found.servers] == [
        ("a", "user", str(path), "stdio")
    ]
    assert found.warnings == ()


def test_local_scope_from_matching_projects_entry(layout: Layout) -> None:
    layout.write(
        ".claude.json",
        {
            "projects": {
                str(layout.project): {"mcpServers": {"mine": {"command": "x"}}},
                "/some/other/project": {"mcpServers": {"theirs": {"command": "y"}}},
            }
        },
    )
    assert _names(layout) == {"mine": "user-project"}


def test_project_key_match_normalises_trailing_slash_and_dots(layout: Layout) -> None:
    layout.write(
        ".claude.json",
        {
            "projects": {
                str(layout.project) + "/": {"mcpServers": {"a": {"command": "x"}}},
                str(layout.project) + "/./sub/..": {"mcpServers": {"b": {"command": "x"}}},
            }
        },
    )
    assert _names(layout) == {"a": "user-project", "b": "user-project"}


def test_relative_project_never_matches_absolute_keys(layout: Layout, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    layout.write(".claude.json", {"projects": {str(layout.project): {"mcpServers": {"a": {"command": "x"}}}}})
    layout.write(".mcp.json", {"mcpServers": {"shared": {"command": "x"}}}, base="project")
    monkeypatch.chdir(layout.project)
    from wslmcp.boundaries.client_files import LocalClientFiles
    from wslmcp.profile.configs import discover

    found = discover(LocalClientFiles(), str(layout.home), ".", "claude-code").clis[0]
    assert {s.name: s.scope for s in found.servers} == {"shared": "project"}


def test_non_object_projects_entry_is_ignored(layout: Layout) -> None:
    layout.write(".claude.json", {"projects": {str(layout.project): ["not", "an", "object"]}})
    found = layout.one("claude-code")
    assert found.servers == () and found.warnings == ()


def test_project_scope_from_mcp_json(layout: Layout) -> None:
    path = layout.write(".mcp.json", {"mcpServers": {"shared": {"command": "x"}}}, base="project")
    servers = layout.one("claude-code").servers
    assert [(s.name, s.scope, s.source_path) for s in servers] == [("shared", "project", str(path))]


def test_precedence_local_beats_project_silently_and_keeps_the_chain(layout: Layout) -> None:
    user = layout.write(
        ".claude.json",
        {"projects": {str(layout.project): {"mcpServers": {"s": {"command": "local"}}}}},
    )
    shared = layout.write(".mcp.json", {"mcpServers": {"s": {"command": "project"}}}, base="project")
    found = layout.one("claude-code")
    (server,) = found.servers
    assert (server.scope, server.command, server.source_path) == ("user-project", "local", str(user))
    assert server.shadowed == (ShadowedEntry("project", str(shared), True),)
    assert found.warnings == ()  # lower precedence arriving later: no warning


def test_precedence_local_overrides_user_with_a_warning_and_keeps_position(layout: Layout) -> None:
    path = layout.write(
        ".claude.json",
        {
            "mcpServers": {"first": {"command": "u"}, "second": {"command": "u", "enabled": False}},
            "projects": {
                str(layout.project): {"mcpServers": {"second": {"command": "l"}, "third": {"command": "l"}}}
            },
        },
    )
    found = layout.one("claude-code")
    assert [(s.name, s.scope) for s in found.servers] == [
        ("first", "user"),
        ("second", "user-project"),
        ("third", "user-project"),
    ]
    assert found.warnings == ("server 'second' from user-project overrides user",)
    assert found.servers[1].shadowed == (ShadowedEntry("user", str(path), False),)


def test_project_overrides_user_and_chain_is_sorted_highest_first(layout: Layout) -> None:
    path = layout.write(
        ".claude.json",
        {
            "mcpServers": {"s": {"command": "u"}},
            "projects": {str(layout.project): {"mcpServers": {"s": {"command": "l"}}}},
        },
    )
    shared = layout.write(".mcp.json", {"mcpServers": {"s": {"command": "p"}}}, base="project")
    (server,) = layout.one("claude-code").servers
    assert server.scope == "user-project"
    assert server.shadowed == (
        ShadowedEntry("project", str(shared), True),
        ShadowedEntry("user", str(path), True),
    )


def test_same_scope_twice_keeps_the_later_definition_with_a_warning(layout: Layout) -> None:
    p = str(layout.project)
    layout.write(
        ".claude.json",
        {
            "projects": {
                p: {"mcpServers": {"s": {"command": "first"}}},
                p + "/": {"mcpServers": {"s": {"command": "second"}}},
            }
        },
    )
    found = layout.one("claude-code")
    assert [s.command for s in found.servers] == ["second"]
    assert found.warnings == (
        "server 's' defined more than once at user-project scope -- keeping the later definition",
    )
    assert found.servers[0].shadowed == ()


def test_spec_warnings_of_a_section_come_before_its_merge_warnings(layout: Layout) -> None:
    path = layout.write(
        ".claude.json",
        {
            "mcpServers": {"dup": {"command": "u"}},
            "projects": {
                str(layout.project): {
                    "mcpServers": {"dup": {"command": "v"}, "zz": {"command": "w", "args": 5}}
                }
            },
        },
    )
    assert layout.one("claude-code").warnings == (
        f"{path}: server 'zz' args is not a list -- ignored",
        "server 'dup' from user-project overrides user",
    )


def test_reserved_names_are_marked_and_exact_case(layout: Layout) -> None:
    names = ["workspace", "claude-in-chrome", "computer-use", "Claude Preview", "Claude Browser", "Workspace"]
    layout.write(".claude.json", {"mcpServers": {n: {"command": "x"} for n in names}})
    reserved = {s.name: s.reserved for s in layout.one("claude-code").servers}
    assert reserved == {n: n != "Workspace" for n in names}


def test_transport_rules(layout: Layout) -> None:
    layout.write(
        ".claude.json",
        {
            "mcpServers": {
                "typed-http": {"type": "http", "url": "http://x"},
                "typed-sse": {"type": "sse", "url": "http://x"},
                "typed-odd": {"type": "websocket", "command": "x"},
                "by-command": {"command": "x"},
                "by-url": {"url": "http://x"},
                "neither": {"args": ["a"]},
            }
        },
    )
    transports = {s.name: s.transport for s in layout.one("claude-code").servers}
    assert transports == {
        "typed-http": "http",
        "typed-sse": "sse",
        "typed-odd": "unknown",
        "by-command": "stdio",
        "by-url": "http",
        "neither": "unknown",
    }


def test_field_warnings_in_order_and_values_applied(layout: Layout) -> None:
    path = layout.write(
        ".claude.json",
        {
            "mcpServers": {
                "a": {
                    "command": "x",
                    "args": "not-a-list",
                    "env": {"K": 1, "L": "ok"},
                    "enabled": "yes",
                    "alwaysLoad": 3,
                    "enabled_tools": "t",
                    "disabled_tools": 5,
                    "startup_timeout_sec": -1,
                    "cwd": 7,
                },
                "b": 5,
                "it's": {"command": "y", "env": [1]},
            }
        },
    )
    found = layout.one("claude-code")
    w = f"{path}: server"
    assert found.warnings == (
        f"{w} 'a' enabled is not a boolean -- treating server as disabled",
        f"{w} 'a' alwaysLoad is not a boolean -- ignored",
        f"{w} 'a' args is not a list -- ignored",
        f"{w} 'a' env key 'K' has non-string value -- dropped",
        f"{w} 'a' enabled_tools is not a list -- ignored (no tool filter applied)",
        f"{w} 'a' disabled_tools is not a list -- ignored (no tool filter applied)",
        f"{w} 'a' startup_timeout_sec is not a positive finite number -- ignored",
        f"{w} 'b' spec is not an object",
        f'{w} "it\'s" env is not an object -- ignored',
    )
    a = found.servers[0]
    assert (a.enabled, a.always_load, a.args, a.env_keys, a.enabled_tools, a.disabled_tools) == (
        False,
        None,
        (),
        ("L",),
        None,
        None,
    )
    assert (a.startup_timeout_s, a.cwd) == (None, None)


def test_valid_fields_are_kept(layout: Layout) -> None:
    layout.write(
        ".claude.json",
        {
            "mcpServers": {
                "a": {
                    "command": "x",
                    "args": ["1", 2, "3"],
                    "enabled": True,
                    "alwaysLoad": True,
                    "enabled_tools": ["t1", 5],
                    "disabled_tools": [],
                    "startup_timeout_sec": 2,
                    "cwd": "/tmp",
                }
            }
        },
    )
    (a,) = layout.one("claude-code").servers
    assert (a.args, a.always_load, a.enabled_tools, a.disabled_tools) == (("1", "3"), True, ("t1",), ())
    assert (a.startup_timeout_s, a.cwd, a.has_command) == (2.0, "/tmp", True)


def test_startup_timeout_rejects_bool_nan_inf_and_zero(layout: Layout) -> None:
    layout.write(
        ".claude.json",
        '{"mcpServers": {"a": {"command": "x", "startup_timeout_sec": true},'
        ' "b": {"command": "x", "startup_timeout_sec": NaN}, "c": {"command": "x", "startup_timeout_sec": Infinity},'
        ' "d": {"command": "x", "startup_timeout_sec": 0}, "e": {"command": "x", "startup_timeout_sec": 0.5}}}',
    )
    found = layout.one("claude-code")
    assert [s.startup_timeout_s for s in found.servers] == [None, None, None, None, 0.5]
    assert len(found.warnings) == 4


def test_mcp_servers_not_an_object_warns(layout: Layout) -> None:
    path = layout.write(".claude.json", {"mcpServers": ["a"]})
    assert layout.one("claude-code").warnings == (f"{path}: mcpServers is not an object",)


def test_windows_style_project_keys_match_with_forward_slashes(layout: Layout) -> None:
    layout.write(
        ".claude.json", {"projects": {"C:\\Users\\me\\proj\\": {"mcpServers": {"win": {"command": "x"}}}}}
    )
    from wslmcp.boundaries.client_files import LocalClientFiles
    from wslmcp.profile.configs import discover

    found = discover(LocalClientFiles(), str(layout.home), "C:/Users/me/proj", "claude-code").clis[0]
    assert [(s.name, s.scope) for s in found.servers] == [("win", "user-project")]
