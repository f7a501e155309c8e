"""The real launcher side by side with mcp-top 0.5.0's own client, on the same real stdio servers.

For each server behaviour both clients query the same command: the error text (or its absence),
the tools as kept and the instructions must be equal. Only the answers mcp-top gives a
deliberate different meaning to are left out (see ``docs/profile.md``).
"""

from __future__ import annotations

from typing import Any

import pytest

from wslmcp.boundaries.mcp_launcher import ServerSpec
from wslmcp.boundaries.mcp_stdio import StdioMcpLauncher

from .conftest import PYTHON, SERVER

mcpclient = pytest.importorskip("mcp_top.mcpclient", reason="mcp-top==0.5.0 (dev extra) is the parity oracle")
mcp_config = pytest.importorskip("mcp_top.config")

DEADLINE_S = 30.0

BEHAVIOURS = {
    "well": ("--instructions", "Use me.", "--tools", "3"),
    "paged": ("--tools", "7", "--page-size", "3"),
    "odd-entries": ("--odd-entries", "--tools", "3", "--page-size", "2"),
    "surrogate": ("--surrogate",),
    "schemaless-tool": ("--mode", "badtool"),
    "junk-first": ("--junk", "4", "--tools", "1"),
    "loose-initialize": ("--mode", "looseinit", "--protocol", "1999-01-01"),
    "initialize-not-an-object": ("--mode", "nullinit"),
    "error-with-code": ("--mode", "error"),
    "error-with-text-code": ("--mode", "error", "--error-code", '"x"'),
    "error-with-bool-code": ("--mode", "error", "--error-code", "true"),
    "list-error-without-code": ("--mode", "listerror", "--error-code", "null"),
    "list-result-not-an-object": ("--mode", "noresult"),
    "no-tools-list": ("--mode", "notools"),
    "ids-as-floats": ("--mode", "floatid"),
    "result-and-error": ("--mode", "resulterror"),
    "exits": ("--mode", "exit"),
    "crashes": ("--mode", "crash"),
    "no-final-newline": ("--mode", "nonewline"),
}


def _theirs(args: tuple[str, ...]) -> dict[str, Any]:
    cfg = mcp_config.ServerConfig(
        name="srv",
        scope="user",
        source_path="/dev/null",
        transport="stdio",
        command=PYTHON,
        args=[SERVER, *args],
        env={},
        url=None,
    )
    got = mcpclient.list_server_tools(cfg, timeout=DEADLINE_S)
    return {"error": got.error, "tools": got.tools, "instructions": got.instructions}


@pytest.mark.parametrize("behaviour", sorted(BEHAVIOURS))
def test_the_launcher_reads_each_server_like_mcp_top(behaviour: str) -> None:
    args = BEHAVIOURS[behaviour]
    answer = StdioMcpLauncher().query(
        ServerSpec(name="srv", command=PYTHON, args=(SERVER, *args)), DEADLINE_S
    )
    ours = {
        "error": answer.error,
        "tools": [dict(t) for t in answer.tools],
        "instructions": answer.instructions,
    }
    assert ours == _theirs(args)
