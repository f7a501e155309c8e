"""Differential discovery: random config homes, our discovery + gate vs mcp-top 0.5.0 ``--no-query``.

Every generated home is read by both; the config warnings (text and order), the servers (name,
scope, transport) and the not-queried reasons must be identical.
"""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import examples
from wslmcp.boundaries.client_files import LocalClientFiles
from wslmcp.profile.configs import discover
from wslmcp.profile.querying import plan

mcp_top_cli = pytest.importorskip("mcp_top.cli", reason="mcp-top==0.5.0 (dev extra) is the oracle")

names = st.sampled_from(["a", "b", "it's", 'q"t', "workspace", "Claude Browser", "dup", "x.y"])
scalars = st.none() | st.booleans() | st.integers(-2, 3) | st.sampled_from([0.5, -1.5, "s", "", "true"])
str_lists = st.lists(st.sampled_from(["t1", "t2", "--flag"]) | st.integers(0, 2), max_size=3)
field_values = {
    "type": st.sampled_from(["stdio", "http", "sse", "ws"]) | scalars,
    "command": st.sampled_from(["cmd"]) | scalars,
    "url": st.sampled_from(["http://x"]) | scalars,
    "args": str_lists | scalars,
    "env": st.dictionaries(st.sampled_from(["K", "L"]), st.sampled_from(["v"]) | scalars, max_size=2)
    | scalars,
    "enabled": scalars,
    "alwaysLoad": scalars,
    "enabled_tools": str_lists | scalars,
    "disabled_tools": str_lists | scalars,
    "startup_timeout_sec": scalars,
    "cwd": st.sampled_from(["/nonexistent-dir"]) | scalars,
}
specs = st.fixed_dictionaries({}, optional=field_values) | scalars
tables = st.dictionaries(names, specs, max_size=4)


def _toml_value(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float | str):
        return json.dumps(value)
    if isinstance(value, list):
        items = [_toml_value(v) for v in value]
        return "[" + ", ".join(i for i in items if i is not None) + "]"
    if isinstance(value, dict):
        items = [(k, _toml_value(v)) for k, v in value.items()]
        return "{ " + ", ".join(f"{k} = {v}" for k, v in items if v is not None) + " }"
    raise TypeError(value)


def _toml(table: dict[str, Any]) -> str:
    out = []
    for name, spec in table.items():
        if not isinstance(spec, dict):
            continue  # a non-table entry has no TOML spelling under [mcp_servers.NAME]
        out.append(f"[mcp_servers.{json.dumps(name)}]")
        for key, value in spec.items():
            text = _toml_value(value)
            if text is not None:
                out.append(f"{key} = {text}")
    return "\n".join(out) + "\n"


def _mcp_top(home: Path, project: Path) -> dict[str, Any]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = mcp_top_cli.main(["--home", str(home), "--project", str(project), "--no-query", "--json"])
    assert code == 0
    doc: dict[str, Any] = json.loads(out.getvalue())
    return doc


@settings(max_examples=examples(150), deadline=None)
@given(user=tables, local=tables, shared=tables, codex=tables, cursor_user=tables, cursor_project=tables)
def test_discovery_and_gate_match_mcp_top(  # noqa: PLR0917
    user: dict[str, Any],
    local: dict[str, Any],
    shared: dict[str, Any],
    codex: dict[str, Any],
    cursor_user: dict[str, Any],
    cursor_project: dict[str, Any],
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home, project = Path(tmp, "home"), Path(tmp, "project")
        for d in (home / ".codex", home / ".cursor", project / ".cursor"):
            d.mkdir(parents=True)
        (home / ".claude.json").write_text(
            json.dumps({"mcpServers": user, "projects": {str(project): {"mcpServers": local}}})
        )
        (project / ".mcp.json").write_text(json.dumps({"mcpServers": shared}))
        (home / ".codex" / "config.toml").write_text(_toml(codex))
        (home / ".cursor" / "mcp.json").write_text(json.dumps({"mcpServers": cursor_user}))
        (project / ".cursor" / "mcp.json").write_text(json.dumps({"mcpServers": cursor_project}))

        theirs = _mcp_top(home, project)
        ours = discover(LocalClientFiles(), str(home), str(project), "all")

    assert [c["cli"] for c in theirs["clis"]] == [c.cli for c in ours.clis]
    for their_cli, our_cli in zip(theirs["clis"], ours.clis, strict=True):
        assert their_cli["coverage"]["config_warnings"] == list(our_cli.warnings)
        their_rows = {
            s["server"]: (s["scope"], s["transport"], s["def_status"], s["def_error"])
            for s in their_cli["servers"]
        }
        our_rows = {}
        for server in our_cli.servers:
            gated = plan(server, no_query=True, query_project=False)
            assert gated is not None
            our_rows[server.name] = (server.scope, server.transport, gated.status, gated.error)
        assert our_rows == their_rows


FILES = (
    ".claude.json",
    "P/.mcp.json",
    ".codex/config.toml",
    "P/.codex/config.toml",
    ".cursor/mcp.json",
    "P/.cursor/mcp.json",
)
contents = st.one_of(
    st.binary(max_size=40),
    st.sampled_from(
        [
            b"",
            b"  \n",
            b"{}",
            b"[]",
            b"\xef\xbb\xbf{}",
            b'{"mcpServers": 3}',
            b"[mcp_servers]\n",
            b"mcp_servers = 1\n",
            b'{"a": "\xff"}',
            b"[mcp_servers.a\n",
            b'{"mcpServers": {"a": {}}}\r\n,',
        ]
    ),
    st.none(),
)


@settings(max_examples=examples(150), deadline=None)
@given(st.tuples(*[contents] * len(FILES)))
def test_garbage_files_warn_like_mcp_top(blobs: tuple[bytes | None, ...]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home, project = Path(tmp, "home"), Path(tmp, "project")
        home.mkdir()
        project.mkdir()
        for rel, blob in zip(FILES, blobs, strict=True):
            if blob is None:
                continue
            path = project / rel[2:] if rel.startswith("P/") else home / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(blob)
        theirs = _mcp_top(home, project)
        ours = discover(LocalClientFiles(), str(home), str(project), "all")
    assert [c["cli"] for c in theirs["clis"]] == [c.cli for c in ours.clis]
    for their_cli, our_cli in zip(theirs["clis"], ours.clis, strict=True):
        assert their_cli["coverage"]["config_warnings"] == list(our_cli.warnings)
        assert sorted(s["server"] for s in their_cli["servers"]) == sorted(s.name for s in our_cli.servers)
