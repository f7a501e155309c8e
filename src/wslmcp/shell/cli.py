"""`wslmcp shell`: the MCP server over stdio, `--check`, and `wslmcp shell explain ...`."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence


def main(argv: Sequence[str]) -> int:
    args = list(argv)
    if args and args[0] == "explain":
        from wslmcp.shell.explain import main as explain_main

        return explain_main(args[1:])
    from wslmcp.shell.serve import main as serve_main

    return serve_main(args, os.environ)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
