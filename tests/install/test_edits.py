"""The in-place editors: what they change is our entries and nothing else, in any style of file."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import examples
from wslmcp.install import json_edit, toml_edit
from wslmcp.install.json_edit import Malformed

OURS = {
    "type": "stdio",
    "command": "/home/me/.venv/bin/wslmcp",
    "args": ["shell"],
    "env": {"WSL_DISTRO": "Ubuntu"},
}

keys = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=8)
scalars = st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.text(max_size=12)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3),
    max_leaves=8,
)
servers = st.dictionaries(
    keys.filter(lambda k: not k.startswith("wsl-")), st.dictionaries(keys, scalars, max_size=3), max_size=3
)
indents = st.sampled_from([None, 2, 4, "\t"])


@given(
    before=st.dictionaries(keys.filter(lambda k: k != "mcpServers"), values, max_size=4),
    table=st.none() | servers,
    indent=indents,
    crlf=st.booleans(),
)
@settings(max_examples=examples(150), deadline=None)
def test_adding_then_removing_our_entries_gives_the_file_back(
    before: dict[str, Any], table: dict[str, Any] | None, indent: int | str | None, crlf: bool
) -> None:
    document = dict(before) if table is None else {**before, "mcpServers": table}
    text = json.dumps(document, indent=indent, ensure_ascii=False) + "\n"
    if crlf:
        text = text.replace("\n", "\r\n")
    added = json_edit.edit(text, "mcpServers", {"wsl-observe": OURS, "wsl-shell": OURS}, jsonc=False)
    expected = {**document, "mcpServers": {**(table or {}), "wsl-observe": OURS, "wsl-shell": OURS}}
    assert json.loads(added) == expected
    assert list(json.loads(added)) == list(expected)  # the keys keep their order
    if crlf and indent is not None:
        assert "\n" not in added.replace("\r\n", "")
    removed = json_edit.edit(added, "mcpServers", {"wsl-observe": None, "wsl-shell": None}, jsonc=False)
    assert removed == text if table is not None else json.loads(removed) == {**document, "mcpServers": {}}


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ('{"mcpServers": {', "not valid JSON"),
        ("[]", "top level is not a JSON object"),
        ('{"mcpServers": []}', "'mcpServers' is not an object"),
        ('{"mcpServers": {"wsl-shell": {}, "wsl-shell": {}}}', "names 'wsl-shell' more than once"),
        ('{"a": 1, // no comments in plain JSON\n}', "not valid JSON"),
    ],
)
def test_a_file_that_cannot_be_edited_says_why(text: str, why: str) -> None:
    with pytest.raises(Malformed, match=why):
        json_edit.edit(text, "mcpServers", {"wsl-shell": OURS}, jsonc=False)


def test_json_with_comments_keeps_them_and_their_places() -> None:
    text = '{\n  // servers\n  "servers": {\n    "a": {"command": "x"}, // a\n    /* b next */\n    "b": {"command": "y"},\n  },\n}\n'
    added = json_edit.edit(text, "servers", {"wsl-observe": OURS}, jsonc=True)
    assert added.startswith(
        '{\n  // servers\n  "servers": {\n    "a": {"command": "x"}, // a\n    /* b next */\n    "b": {"command": "y"},\n    "wsl-observe": {\n'
    )
    assert added.endswith("    },\n  },\n}\n")
    assert json_edit.edit(added, "servers", {"wsl-observe": None}, jsonc=True) == text
    # an entry of ours replaced in place, its neighbours untouched
    changed = json_edit.edit(added, "servers", {"wsl-observe": {**OURS, "args": ["observe"]}}, jsonc=True)
    assert changed.replace('"observe"', '"shell"') == added


def test_codex_toml_keeps_comments_order_and_the_keys_a_user_added() -> None:
    text = '# mine\nmodel = "o3" # model\n\n[mcp_servers.wsl-shell]\ncommand = "old" # was\nargs = ["shell"]\nstartup_timeout_sec = 30 # slow host\n\n[profiles.x]\nmodel = "o4"\n'
    entry = {"command": "/new/wslmcp", "args": ["shell"], "env": {"WSL_DISTRO": "Ubuntu"}}
    edited = toml_edit.edit(
        text, "mcp_servers", {"wsl-shell": entry, "wsl-observe": {**entry, "args": ["observe"]}}
    )
    assert edited.startswith(
        '# mine\nmodel = "o3" # model\n\n[mcp_servers.wsl-shell]\ncommand = "/new/wslmcp" # was\nargs = ["shell"]\nstartup_timeout_sec = 30 # slow host\nenv = {WSL_DISTRO = "Ubuntu"}\n'
    )
    assert toml_edit.check(edited)["profiles"] == {"x": {"model": "o4"}}
    assert toml_edit.check(edited)["mcp_servers"]["wsl-observe"] == {**entry, "args": ["observe"]}
    with pytest.raises(Malformed, match="not valid TOML"):
        toml_edit.edit("[mcp_servers\n", "mcp_servers", {"wsl-shell": entry})
    with pytest.raises(Malformed, match="'mcp_servers' is not a table"):
        toml_edit.edit("mcp_servers = 3\n", "mcp_servers", {"wsl-shell": entry})
