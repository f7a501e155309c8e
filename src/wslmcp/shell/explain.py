"""`wslmcp shell explain`: what the guard would decide, for operators checking a policy and for tests.

Reads the policy from the same ``WSL_*`` variables as the server, runs nothing, prints one JSON
object ``{"verdict", "rule", "segment", "reason"}`` and exits 0 (2 on a configuration or usage error).

    wslmcp shell explain [--json] [--cwd DIR] COMMAND       the decision wsl_exec would take
    wslmcp shell explain --json --path PATH --access read|write   the file tools' path guard
    wslmcp shell explain --json --local PATH --access read|write  the local side of upload/download
    wslmcp shell explain --json --cwd PATH                   the working-directory guard
    wslmcp shell explain --sandbox                           the sandbox's profile (unless WSL_SANDBOX=off)
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from collections.abc import Sequence

from wslmcp.cliargs import parser
from wslmcp.shell.config import ConfigError, load_config
from wslmcp.shell.guard import Decision, Guard
from wslmcp.shell.sandbox import explain as explain_sandbox
from wslmcp.shell.sandbox import profile_for

PROG = "wslmcp shell explain"


def _parser() -> argparse.ArgumentParser:
    p = parser(
        PROG,
        "Print the guard's decision as one JSON object, without running anything. The policy comes from the "
        "same WSL_* variables as the server. Exit status 0 whatever the verdict; 2 on a configuration error.",
    )
    p.add_argument(
        "--json", action="store_true", help="print JSON (always the output format; accepted for scripts)"
    )
    target = p.add_mutually_exclusive_group()
    target.add_argument("--path", metavar="PATH", help="check a path in the distro as the file tools would")
    target.add_argument(
        "--local",
        metavar="PATH",
        help="check a local path as wsl_upload (read) or wsl_download (write) would",
    )
    p.add_argument("--access", choices=("read", "write"), help="the access to check with --path or --local")
    p.add_argument(
        "--sandbox",
        action="store_true",
        help="print the sandbox profile (what it makes writable, puts back after each command, keeps read-only and hides) as JSON",
    )
    p.add_argument(
        "--cwd",
        metavar="DIR",
        help="alone: check DIR as a working directory; with COMMAND: the cwd argument of wsl_exec",
    )
    p.add_argument(
        "--effects", action="store_true", help="with COMMAND: add what the guard found it does, as data"
    )
    p.add_argument("command", nargs=argparse.REMAINDER, help="the command, as wsl_exec would receive it")
    return p


def _as_typed(word: str) -> str:
    return shlex.quote(word) if not word or any(c.isspace() or c in "'\"" for c in word) else word


def _command(args: argparse.Namespace) -> tuple[list[str], str]:
    words: list[str] = list(args.command)
    if words and words[0] == "--":
        words = words[1:]
    # one word is the command text as wsl_exec receives it; several are joined as typed, a word
    # holding blanks or quotes quoted back as the one argument the caller's shell made of it
    return words, words[0] if len(words) == 1 else " ".join(_as_typed(w) for w in words)


def decide(
    guard: Guard, args: argparse.Namespace, default_cwd: str | None, p: argparse.ArgumentParser
) -> Decision:
    words, command = _command(args)
    if args.effects and not words:
        p.error("--effects needs a COMMAND")
    if args.path is not None or args.local is not None:
        if words:
            p.error("give either a COMMAND or --path/--local, not both")
        if args.access is None:
            p.error("--path and --local need --access read|write")
        if args.cwd is not None:
            p.error("--cwd does not apply to --path or --local")
        if args.path is not None:
            return guard.check_path(args.path, args.access)
        return guard.check_local_path(args.local, args.access)
    if args.access is not None:
        p.error("--access applies only to --path or --local")
    if not words:
        if args.cwd is None:
            p.error("nothing to explain: give a COMMAND, --path, --local or --cwd")
        return guard.check_cwd(args.cwd)
    return guard.check_command(command, args.cwd if args.cwd is not None else default_cwd)


def main(argv: Sequence[str]) -> int:
    """The ``wslmcp shell explain`` entry point: the server's ``WSL_*`` configuration comes from the
    environment wiring reads."""
    from wslmcp import wiring

    p = _parser()
    args = p.parse_args(list(argv))
    try:
        config = load_config(wiring.environment())
    except ConfigError as exc:
        print(f"{PROG}: configuration error: {exc}", file=sys.stderr)
        return 2
    if args.sandbox:
        if args.command or args.path or args.local or args.cwd or args.access or args.effects:
            p.error("--sandbox takes no other argument")
        shown = {
            "mode": config.sandbox.mode,
            **explain_sandbox(profile_for(config.policy, config.sandbox, config.cwd)),
        }
        print(json.dumps(shown, ensure_ascii=False))
        return 0
    guard = Guard(config.policy)
    decision = decide(guard, args, config.cwd, p)
    out: dict[str, object] = dict(decision.as_json())
    if args.effects:
        cwd = args.cwd if args.cwd is not None else config.cwd
        out["effects"] = guard.effects(_command(args)[1], cwd)
    print(json.dumps(out, ensure_ascii=False))
    return 0
