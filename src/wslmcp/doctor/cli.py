"""``wslmcp doctor``: is this host ready for an agent? One line per check, each failure with the
command that fixes it. Exit status 0 when nothing is wrong (warnings and skipped checks included),
1 when something is, 2 for a usage error."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from wslmcp.cliargs import ArgumentParser, parser
from wslmcp.doctor import checks
from wslmcp.doctor.checks import Line

if TYPE_CHECKING:
    from wslmcp.install.plan import Home
    from wslmcp.wiring import Wired

PROG = "wslmcp doctor"
MARKS = {"ok": "OK  ", "fail": "FAIL", "warn": "WARN", "skip": "SKIP"}


def build_parser() -> ArgumentParser:
    p = parser(
        PROG,
        "Check this host for wslmcp: versions, WSL, the sandbox, ripgrep, Docker, PDH and your MCP clients.",
    )
    p.add_argument("--distro", help="the distro to check (default: the one this runs in)")
    p.add_argument("--user", help="the Linux user the shell server runs commands as (WSL_USER)")
    p.add_argument("--home", metavar="DIR", help="this side's home (default: ~)")
    p.add_argument(
        "--windows-home", metavar="DIR", help="the Windows user's home (inside WSL: found through interop)"
    )
    p.add_argument(
        "--no-other-side", action="store_true", help="inside WSL, leave the Windows side's clients alone"
    )
    p.add_argument("--no-start", action="store_true", help="do not start the clients' entries")
    p.add_argument(
        "--timeout", type=float, default=20.0, metavar="SECONDS", help="per-entry start-up check (20)"
    )
    p.add_argument("--json", action="store_true", help="report as JSON")
    return p  # fmt: skip


def render(lines: Sequence[Line]) -> str:
    width = max(len(line.name) for line in lines)
    out = []
    for line in lines:
        out.append(f"{MARKS[line.status]}  {line.name:<{width}}  {line.detail}")
        if line.fix and line.status in ("fail", "warn"):
            out.append(f"{'':<{width + 8}}fix: {line.fix}")
    failed = sum(line.status == "fail" for line in lines)
    out += ["", "nothing is wrong" if not failed else f"{failed} check(s) failed"]
    return "\n".join(out) + "\n"


async def _checks(args: argparse.Namespace, wired: Wired, homes: list[Home]) -> list[Line]:
    from wslmcp.install.cli import installed_program

    b, host = wired.boundaries, wired.host
    lines = checks.versions(host, " ".join(installed_program(host.platform == "windows")))
    lines.append(await checks.wsl(b, host))
    distro = args.distro or host.distro or (None if host.platform == "windows" else "local")
    if distro is None:
        lines.append(Line("distro", "skip", "no distro named", "wslmcp doctor --distro NAME"))
    else:
        env = {"WSL_DISTRO": distro, **({"WSL_USER": args.user} if args.user else {})}
        lines += await checks.distro(b, host, env)
    lines.append(await checks.docker(b))
    lines.append(checks.pdh(b, host))
    start = not args.no_start and host.platform != "windows"  # (the launcher needs a POSIX host)
    if b.config_files is not None:
        launcher = b.mcp_launcher if start else None
        lines += await asyncio.to_thread(checks.clients, b.config_files, launcher, homes, args.timeout)
    return lines


def main(argv: Sequence[str]) -> int:
    from wslmcp import wiring
    from wslmcp.install.cli import UsageError, homes_of

    args = build_parser().parse_args(list(argv))
    wired = wiring.wire(None, wiring.environment())
    try:
        if not args.timeout > 0:
            raise UsageError("--timeout must be greater than 0")
        homes = homes_of(args, wired.host, wired.boundaries)
    except UsageError as exc:
        sys.stderr.write(f"{PROG}: {exc}\n")
        return 2
    lines = asyncio.run(_checks(args, wired, homes))
    failed = any(line.status == "fail" for line in lines)
    if args.json:
        body = {"ok": not failed, "checks": [vars(line) | {"fix": line.fix or None} for line in lines]}
        sys.stdout.write(json.dumps(body, indent=2) + "\n")
    else:
        sys.stdout.write(render(lines))
    return 1 if failed else 0
