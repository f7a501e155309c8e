"""`wslmcp shell [--check] [--replay DIR]` and `wslmcp shell explain ...`: configuration, wiring,
assembly, then the stdio server or the check."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Mapping, Sequence

from wslmcp.boundaries.shell_transport import TransportError
from wslmcp.cliargs import parser
from wslmcp.scenario.manifest import ScenarioError
from wslmcp.shell.config import VARIABLES, ConfigError

PROG = "wslmcp shell"


def _epilog() -> str:
    rows = "\n".join(f"  {name:<24}default: {default}" for name, default in VARIABLES)
    return (
        "Configuration comes from the environment (one server entry per distro and user):\n"
        + rows
        + "\n\nSubcommand: wslmcp shell explain ... (ask the guard about a command or path).\n"
        "The server speaks MCP over stdio; stdout carries only JSON-RPC and logs go to stderr."
    )


def serve(argv: Sequence[str], environ: Mapping[str, str]) -> int:
    """The server, or ``--check``, with its configuration read from ``environ``."""
    p = parser(PROG, "MCP server that runs commands and moves files in one WSL distro as one Linux user.")
    p.epilog = _epilog()
    p.add_argument("--check", action="store_true", help="probe the distro once, print the result and exit")
    p.add_argument("--replay", metavar="DIR", help="serve from a scenario's recorded wsl.exe exchanges")
    args = p.parse_args(list(argv))
    from wslmcp import wiring
    from wslmcp.shell.assembly import Options, build

    try:
        wired = wiring.wire(args.replay, environ)
        assembly = build(wired.boundaries, wired.host, Options(quiet=args.check))
    except (ConfigError, TransportError, ScenarioError) as exc:
        sys.stderr.write(f"{PROG}: {exc}\n")
        return 1
    if args.check:
        try:
            from wslmcp.shell.replies import render_check

            text, ok = render_check(asyncio.run(assembly.service.check()))
        except Exception as exc:  # e.g. a replayed scenario that did not record the check
            text, ok = f"  FAILED  {type(exc).__name__}: {exc}", False
        sys.stdout.write(text + "\n")
        return 0 if ok else 1
    log = assembly.log
    cfg = assembly.config
    if not cfg.configured:
        log.warn("no distro is registered; set WSL_DISTRO and restart", env_vars=["WSL_DISTRO"])
    else:
        log.info(
            "shell profile loaded",
            distro=cfg.distro,
            user=cfg.user_label,
            transport=assembly.service.transport_kind,
            readonly=cfg.policy.readonly,
            allow_windows=cfg.policy.allow_windows,
        )
    from wslmcp import stdio
    from wslmcp.shell.server import build_server

    server = build_server(assembly.service)
    log.info("mcp server ready on stdio", server="wslmcp-shell")

    async def run() -> None:
        await assembly.service.startup()
        try:
            await stdio.serve(server, log=log.warn)
        finally:
            await assembly.service.shutdown()

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run())
    log.info("shutting down")
    return 0


def main(argv: Sequence[str]) -> int:
    from wslmcp import wiring

    args = list(argv)
    if args and args[0] == "explain":
        from wslmcp.shell.explain import main as explain_main

        return explain_main(args[1:], wiring.environment())
    return serve(args, wiring.environment())
