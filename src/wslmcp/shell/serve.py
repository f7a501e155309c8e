"""`wslmcp shell [--check] [--replay DIR]`: configuration, wiring, then the stdio server or the check."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from wslmcp.boundaries.clock import Clock
from wslmcp.boundaries.shell_transport import TransportError
from wslmcp.cliargs import parser
from wslmcp.scenario.manifest import ScenarioError
from wslmcp.shell.config import VARIABLES, ConfigError, ShellConfig, load_config
from wslmcp.shell.guard import Guard
from wslmcp.shell.log import Log
from wslmcp.shell.runner import Runner
from wslmcp.shell.service import ShellService

PROG = "wslmcp shell"


def _epilog() -> str:
    rows = "\n".join(f"  {name:<24}default: {default}" for name, default in VARIABLES)
    return (
        "Configuration comes from the environment (one server entry per distro and user):\n"
        + rows
        + "\n\nSubcommand: wslmcp shell explain ... (ask the guard about a command or path).\n"
        "The server speaks MCP over stdio; stdout carries only JSON-RPC and logs go to stderr."
    )


@dataclass
class Assembly:
    config: ShellConfig
    service: ShellService
    log: Log
    clock: Clock


def assemble(
    env: Mapping[str, str], replay_dir: str | os.PathLike[str] | None = None, *, log_level: str | None = None
) -> Assembly:
    """Config, transport, guard, runner and service. Raises ConfigError / TransportError."""
    from wslmcp import wiring

    config = load_config(env)
    if log_level is not None and "WSL_MCP_LOG_LEVEL" not in env:
        config = replace(config, log_level="silent")
    boundaries = wiring.replay(Path(replay_dir)) if replay_dir else wiring.real()
    log = Log(config.log_level, sys.stderr, boundaries.clock)
    runner = None
    if config.distro is not None:
        transport = wiring.shell_transport(config.transport, config.distro, config.user, boundaries, env)
        runner = Runner(transport, wiring.run_tokens(boundaries))
    service = ShellService(
        config,
        runner=runner,
        guard=Guard(config.policy),
        clock=boundaries.clock,
        log=log,
        local_files=boundaries.local_files,
    )
    return Assembly(config, service, log, boundaries.clock)


def _replay_env(scenario_dir: str) -> dict[str, str]:
    """A scenario's recorded server environment (its ``shell.env``), so a replay serves as recorded."""
    from wslmcp.scenario.loader import Scenario

    env = Scenario.load(scenario_dir).section("shell").get("env", {})
    return {str(k): str(v) for k, v in env.items()} if isinstance(env, Mapping) else {}


def main(argv: Sequence[str], environ: Mapping[str, str]) -> int:
    """The CLI entry (``wslmcp.shell.cli`` passes the process environment)."""
    p = parser(PROG, "MCP server that runs commands and moves files in one WSL distro as one Linux user.")
    p.epilog = _epilog()
    p.add_argument("--check", action="store_true", help="probe the distro once, print the result and exit")
    p.add_argument("--replay", metavar="DIR", help="serve from a scenario's recorded wsl.exe exchanges")
    args = p.parse_args(list(argv))
    env: Mapping[str, str] = environ
    try:
        if args.replay:
            env = {**environ, **_replay_env(args.replay)}
        assembly = assemble(env, args.replay, log_level="silent" if args.check else None)
    except (ConfigError, TransportError, ScenarioError) as exc:
        sys.stderr.write(f"{PROG}: {exc}\n")
        return 1
    if args.check:
        try:
            text, ok = asyncio.run(assembly.service.check())
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
    from wslmcp.shell.server import build_server

    server = build_server(assembly.service)
    log.info("mcp server ready on stdio", server="wslmcp-shell")

    async def serve() -> None:
        await assembly.service.startup()
        try:
            await server.run_stdio_async()
        finally:
            await assembly.service.shutdown()

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve())
    log.info("shutting down")
    return 0
