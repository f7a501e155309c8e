"""`wslmcp profile`: placeholder until its issue lands."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from wslmcp.cliargs import parser


def main(argv: Sequence[str]) -> int:
    parser(
        "wslmcp profile", "profile the MCP servers configured for Claude Code, Codex and Cursor."
    ).parse_args(list(argv))
    print("wslmcp profile: not available in this build yet", file=sys.stderr)
    return 2
