"""``wslmcp install``: add (``--uninstall``: remove) wslmcp's server entries in every MCP client's
configuration, on this side of WSL and the other, then start each entry as its client would.

Exit status: 0 when every file was written (or needed nothing) and every entry answered; 1 when a
file was refused or an entry did not answer; 2 for a usage error (nothing is read or written).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from wslmcp.cliargs import ArgumentParser, parser
from wslmcp.clients import NAMES
from wslmcp.install.entries import SERVERS, Installed
from wslmcp.install.plan import Home, Request

if TYPE_CHECKING:
    from wslmcp.boundaries.bundle import Boundaries, Host

PROG = "wslmcp install"
_PREFIX = re.compile(r"[A-Za-z0-9_-]*")


def build_parser() -> ArgumentParser:
    p = parser(PROG, "Add wslmcp's MCP servers (observe, shell) to the configuration of your MCP clients.")
    p.epilog = (
        f"clients: {', '.join(NAMES)}. Each file is edited in place (everything else in it kept), written "
        "atomically with a backup beside it (FILE.wslmcp-backup), and each entry is then started as its "
        "client would start it. A second run changes nothing. See docs/install.md."
    )
    p.add_argument(
        "--client",
        action="append",
        choices=NAMES,
        metavar="NAME",
        help="only this client (repeatable; default: every client found)",
    )
    p.add_argument(
        "--server", action="append", choices=SERVERS, help="only this server (repeatable; default: both)"
    )
    p.add_argument(
        "--name",
        default="wsl-",
        metavar="PREFIX",
        help="entry names: PREFIXobserve, PREFIXshell (default wsl-)",
    )
    p.add_argument("--uninstall", action="store_true", help="remove our entries instead")
    p.add_argument(
        "--scope",
        choices=("user", "project"),
        default="user",
        help="user files (default) or the project's (.mcp.json, .vscode/mcp.json, ...)",
    )
    p.add_argument(
        "--project", metavar="DIR", help="the project for --scope project (default: the current directory)"
    )
    p.add_argument("--home", metavar="DIR", help="this side's home (default: ~)")
    p.add_argument(
        "--windows-home",
        metavar="DIR",
        help="the Windows user's home (inside WSL: found through interop by default)",
    )
    p.add_argument("--no-other-side", action="store_true", help="inside WSL, leave the Windows side alone")
    shell = p.add_argument_group(
        "shell server settings (its WSL_* variables, checked as the server checks them)"
    )
    shell.add_argument("--distro", help="WSL_DISTRO (default: the distro this runs in)")
    shell.add_argument("--user", help="WSL_USER: the Linux user commands run as")
    shell.add_argument("--cwd", help="WSL_CWD: the directory commands start in")
    shell.add_argument(
        "--allowed-paths", metavar="PATHS", help="WSL_ALLOWED_PATHS: comma list of writable roots"
    )
    shell.add_argument("--sandbox", metavar="MODE", help="WSL_SANDBOX")
    shell.add_argument("--readonly", action="store_true", help="WSL_READONLY=true")
    p.add_argument(
        "--dry-run", action="store_true", help="print the unified diff of every file; write nothing"
    )
    p.add_argument("--json", action="store_true", help="report as JSON")
    p.add_argument("--no-check", action="store_true", help="do not start the entries after writing")
    p.add_argument(
        "--timeout", type=float, default=20.0, metavar="SECONDS", help="per-entry start-up check (20)"
    )
    return p  # fmt: skip


@dataclass(frozen=True)
class Setting:
    request: Request
    installed: Installed
    dry_run: bool
    check: bool
    timeout_s: float


class UsageError(ValueError):
    pass


def shell_env(args: argparse.Namespace, default_distro: str | None) -> dict[str, str]:
    """The shell entry's ``WSL_*`` variables, checked by the shell server's own parser."""
    from wslmcp.shell.config import ConfigError, load_config

    given = {
        "WSL_DISTRO": args.distro or default_distro,
        "WSL_USER": args.user,
        "WSL_CWD": args.cwd,
        "WSL_ALLOWED_PATHS": args.allowed_paths,
        "WSL_SANDBOX": args.sandbox,
        "WSL_READONLY": "true" if args.readonly else None,
    }
    env = {k: v for k, v in given.items() if v is not None}
    if "WSL_DISTRO" not in env:
        raise UsageError("the shell server needs a distro: give --distro NAME")
    try:
        load_config(env)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    return env


def installed_program(windows: bool) -> tuple[str, ...]:
    """This wslmcp's command: the console script that runs now (or the one beside the interpreter),
    by absolute path; else the interpreter with ``-m wslmcp``."""
    name = "wslmcp.exe" if windows else "wslmcp"
    here = os.path.abspath(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    if os.path.basename(here).lower() in (name, "wslmcp") and os.path.isfile(here):
        return (here,)
    beside = os.path.join(os.path.dirname(os.path.abspath(sys.executable)), name)
    return (beside,) if os.path.isfile(beside) else (os.path.abspath(sys.executable), "-m", "wslmcp")


def _user() -> str | None:
    try:
        import pwd
    except ImportError:  # Windows
        return None
    return pwd.getpwuid(os.getuid()).pw_name


def _directory(path: str, option: str) -> str:
    full = os.path.abspath(os.path.expanduser(path))
    if not os.path.isdir(full):
        raise UsageError(f"{option} {path}: no such directory")
    return full


def homes_of(args: argparse.Namespace, host: Host, boundaries: Boundaries) -> list[Home]:
    """This side's home (``--home``, else the host's), then the Windows side's when known:
    ``--windows-home``, or inside WSL the one interop names (unless ``--no-other-side``)."""
    windows = host.platform == "windows"
    homes = [Home("windows" if windows else "linux", _directory(args.home or host.home, "--home"))]
    if args.windows_home is not None:
        if windows:
            raise UsageError("--windows-home is for a run inside WSL; on Windows the home is this side's")
        homes.append(Home("windows", _directory(args.windows_home, "--windows-home")))
    elif host.distro is not None and not args.no_other_side and boundaries.windows_home is not None:
        found = boundaries.windows_home.find()
        if found is not None and os.path.isdir(found):
            homes.append(Home("windows", found))
    return homes


def settle(args: argparse.Namespace, environ: Mapping[str, str]) -> tuple[Setting, Boundaries]:
    """What to do, from the options and this machine (``UsageError`` before anything is touched)."""
    from wslmcp import wiring

    wired = wiring.wire(None, environ)
    host, boundaries = wired.host, wired.boundaries
    windows = host.platform == "windows"
    homes = homes_of(args, host, boundaries)
    if not _PREFIX.fullmatch(args.name):
        raise UsageError(f"--name {args.name!r}: letters, digits, '-' and '_' only (as every client accepts)")
    if not args.timeout > 0:
        raise UsageError("--timeout must be greater than 0")
    servers = tuple(dict.fromkeys(args.server or SERVERS))
    default_distro = host.distro or (None if windows else "local")
    env = shell_env(args, default_distro) if "shell" in servers and not args.uninstall else {}
    request = Request(
        homes=tuple(homes),
        project=_directory(args.project or host.project, "--project"),
        clients=tuple(dict.fromkeys(args.client or ())),
        servers=servers,
        prefix=args.name,
        scope=args.scope,
        uninstall=args.uninstall,
        shell_env=env,
    )
    installed = Installed(homes[0].side, installed_program(windows), host.distro, _user())
    check = not args.no_check and not windows  # (the launcher needs a POSIX host)
    return Setting(request, installed, args.dry_run, check, args.timeout), boundaries


def main(argv: Sequence[str]) -> int:
    from wslmcp import wiring
    from wslmcp.install import report, service

    args = build_parser().parse_args(list(argv))
    try:
        setting, boundaries = settle(args, wiring.environment())
    except UsageError as exc:
        sys.stderr.write(f"{PROG}: {exc}\n")
        return 2
    files = boundaries.config_files
    if files is None:  # pragma: no cover - wiring builds it on every real host
        sys.stderr.write(f"{PROG}: no client files to write here\n")
        return 2
    launcher = boundaries.mcp_launcher if setting.check else None
    done = service.run(
        setting.request,
        setting.installed,
        files,
        launcher,
        dry_run=setting.dry_run,
        timeout_s=setting.timeout_s,
    )
    if args.json:
        sys.stdout.write(json.dumps(report.as_json(done), indent=2) + "\n")
    else:
        if setting.dry_run:
            sys.stdout.write("".join(report.diff(p) for p in done.files))
        sys.stdout.write(report.human(done))
    return 0 if done.ok else 1
