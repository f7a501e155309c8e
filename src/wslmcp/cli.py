"""The one entry point. Each subcommand lives in its own package and is imported only when used."""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Sequence

from wslmcp import __version__
from wslmcp.cliargs import ArgumentParser, parser

SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "observe": (
        "wslmcp.observe.cli",
        "read-only observability MCP server (host, WSL, containers, processes)",
    ),
    "shell": ("wslmcp.shell.cli", "MCP server that runs commands and moves files in one WSL distro"),
    "profile": ("wslmcp.profile.cli", "profile the MCP servers configured for Claude Code, Codex and Cursor"),
    "install": (
        "wslmcp.install.cli",
        "add wslmcp's servers to your MCP clients' configuration (both sides of WSL)",
    ),
    "doctor": (
        "wslmcp.doctor.cli",
        "check this host for wslmcp: versions, WSL, sandbox, ripgrep, Docker, clients",
    ),
    "scenario": ("wslmcp.replay.cli", "list, show, validate, record and replay scenarios"),
    "eval": ("wslmcp.evals.cli", "replay an agent's recorded tool calls against a scenario and grade them"),
}


def _top_parser() -> ArgumentParser:
    epilog = "subcommands:\n" + "\n".join(f"  {name:<10}{text}" for name, (_, text) in SUBCOMMANDS.items())
    top = parser("wslmcp", "Toolkit for AI agents on Windows 11 + WSL2 hosts.")
    top.epilog = epilog + "\n\nRun 'wslmcp COMMAND --help' for a command's options."
    top.add_argument("--version", action="version", version=f"wslmcp {__version__}")
    top.add_argument("command", choices=sorted(SUBCOMMANDS), metavar="COMMAND", help="one of the subcommands")
    return top


def main(argv: Sequence[str] | None = None) -> int:
    """Run a subcommand. A reader that stops early (``wslmcp scenario list | head -1``) ends the
    command quietly, as ``head`` meant."""
    try:
        return _dispatch(list(sys.argv[1:] if argv is None else argv))
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # the interpreter's last flush must not fail again
        os.close(devnull)
        return 0


def _dispatch(args: list[str]) -> int:
    top = _top_parser()
    if not args:
        top.print_help()
        return 0
    if args[0].startswith("-") and args[0] not in ("-h", "--help", "--version"):
        top.error(f"unrecognized arguments: {' '.join(args)}")
    if args[0].startswith("-"):
        top.parse_args(args)  # --help or --version: argparse answers and exits
        return 2
    name, rest = args[0], args[1:]
    if name not in SUBCOMMANDS:
        top.parse_args([name])
        return 2
    module = importlib.import_module(SUBCOMMANDS[name][0])
    result: int = module.main(rest)
    return result
