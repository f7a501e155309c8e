"""`wslmcp observe`: placeholder until its issue lands."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from wslmcp.cliargs import parser


def main(argv: Sequence[str]) -> int:
    parser(
        "wslmcp observe", "read-only observability MCP server (host, WSL, containers, processes)."
    ).parse_args(list(argv))
    print("wslmcp observe: not available in this build yet", file=sys.stderr)
    return 2
