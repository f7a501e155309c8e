"""`wslmcp observe`: the read-only observability MCP server over stdio."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from wslmcp.cliargs import usage_line
from wslmcp.observe.options import HELP, UsageError, parse_options


def main(argv: Sequence[str]) -> int:
    try:
        options = parse_options(argv)
    except UsageError as exc:
        sys.stderr.write(usage_line("wslmcp observe", str(exc)))
        return 2
    if options.help:
        sys.stdout.write(HELP)
        return 0
    from wslmcp import stdio, wiring
    from wslmcp.observe.tools import SERVER
    from wslmcp.scenario.fields import ScenarioError

    try:
        wired = wiring.wire(options.replay)
    except (ScenarioError, OSError) as exc:
        print(f"wslmcp observe: error: {exc}", file=sys.stderr)
        return 2
    if wired.host.observe_args:
        try:
            options = parse_options(argv, wired.host.observe_args)
        except UsageError as exc:
            print(f"wslmcp observe: error: the scenario's observe.args: {exc}", file=sys.stderr)
            return 2
    if options.distro is not None and not wired.host.windows_native:
        print(
            "wslmcp observe: error: --distro is only supported on Windows (inside WSL the primary "
            "distribution is the one the server runs in)",
            file=sys.stderr,
        )
        return 2

    def start() -> stdio.Lifespan:
        from wslmcp.observe.assembly import build
        from wslmcp.observe.handlers import running

        service = build(wired.boundaries, wired.host, options)
        return lambda: running(service)

    return stdio.run(SERVER, start)
