"""`wslmcp shell`: placeholder until its issue lands."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from wslmcp.cliargs import parser


def main(argv: Sequence[str]) -> int:
    parser("wslmcp shell", "MCP server that runs commands and moves files in one WSL distro.").parse_args(
        list(argv)
    )
    print("wslmcp shell: not available in this build yet", file=sys.stderr)
    return 2
