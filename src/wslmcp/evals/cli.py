"""`wslmcp eval`: placeholder until its issue lands."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from wslmcp.cliargs import parser


def main(argv: Sequence[str]) -> int:
    parser(
        "wslmcp eval", "replay an agent's recorded tool calls against a scenario and grade them."
    ).parse_args(list(argv))
    print("wslmcp eval: not available in this build yet", file=sys.stderr)
    return 2
