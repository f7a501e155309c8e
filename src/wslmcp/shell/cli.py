"""`wslmcp shell [--check] [--replay DIR]` and `wslmcp shell explain ...`: configuration, wiring,
assembly, then the stdio server or the check."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from wslmcp.cliargs import parser
from wslmcp.scenario.fields import ScenarioError
from wslmcp.shell.config import VARIABLES, ConfigError, ShellConfig
from wslmcp.shell.log import Log

if TYPE_CHECKING:
    from wslmcp.wiring import Wired

PROG = "wslmcp shell"


def _epilog() -> str:
    column = max(len(name) for name, _ in VARIABLES) + 2
    rows = "\n".join(f"  {name:<{column}}default: {default}" for name, default in VARIABLES)
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
    from wslmcp.boundaries.shell_transport import TransportError
    from wslmcp.shell.config import load_config

    try:
        wired = wiring.wire(args.replay, environ)
        config = load_config(wired.host.shell_env)
    except (ConfigError, ScenarioError) as exc:
        sys.stderr.write(f"{PROG}: {exc}\n")
        return 1
    if args.check:
        return _check(wired, config)
    from wslmcp import stdio
    from wslmcp.shell.tools import SERVER

    log = Log(config.log_level, sys.stderr, wired.boundaries.clock)

    def start() -> stdio.Lifespan:
        from wslmcp.shell.assembly import Options, build
        from wslmcp.shell.handlers import running

        service = build(wired.boundaries, wired.host, Options(config=config, log=log)).service
        _log_start(log, config, service.transport_kind)
        return lambda: running(service)

    try:
        status = stdio.run(SERVER, start, note=log.warn)
    except TransportError as exc:
        sys.stderr.write(f"{PROG}: {exc}\n")
        return 1
    log.info("shutting down")
    return status


def _check(wired: Wired, config: ShellConfig) -> int:
    from wslmcp.boundaries.shell_transport import TransportError
    from wslmcp.shell.assembly import Options, build
    from wslmcp.shell.replies import render_check

    try:
        assembly = build(wired.boundaries, wired.host, Options(quiet=True, config=config))
        text, ok = render_check(asyncio.run(assembly.service.check()))
    except TransportError as exc:
        sys.stderr.write(f"{PROG}: {exc}\n")
        return 1
    except Exception as exc:  # e.g. a replayed scenario that did not record the check
        text, ok = f"  FAILED  {type(exc).__name__}: {exc}", False
    sys.stdout.write(text + "\n")
    return 0 if ok else 1


def _log_start(log: Log, config: ShellConfig, transport_kind: str) -> None:
    if not config.configured:
        log.warn("no distro is registered; set WSL_DISTRO and restart", env_vars=["WSL_DISTRO"])
        return
    log.info(
        "shell profile loaded",
        distro=config.distro,
        user=config.user_label,
        transport=transport_kind,
        readonly=config.policy.readonly,
        allow_windows=config.policy.allow_windows,
    )


def main(argv: Sequence[str]) -> int:
    from wslmcp import wiring

    args = list(argv)
    if args and args[0] == "explain":
        from wslmcp.shell.explain import main as explain_main

        return explain_main(args[1:])
    return serve(args, wiring.environment())
