"""What an entry of ours says: how a client on one side of WSL starts wslmcp, and whether an entry
found in a file is ours.

An entry on the side where wslmcp is installed runs it by its absolute path. A Windows client, when
wslmcp lives in a distro, runs ``wsl.exe -d DISTRO -u USER -- /abs/path/wslmcp observe|shell``, with
the shell's ``WSL_*`` variables carried across by ``WSLENV``. A client in a distro cannot start a
Windows ``wslmcp.exe``: that is refused with the reason. Pure.
"""

from __future__ import annotations

import ntpath
import posixpath
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from wslmcp.clients import ConfigFile, Side

SERVERS = ("observe", "shell")
#: The keys of an entry that are ours to write; any other key a user added to it is kept.
OWN_KEYS = ("type", "command", "args", "env")


@dataclass(frozen=True)
class Installed:
    """This wslmcp: the side it runs on, the command that starts it (an absolute path, or the
    interpreter and ``-m wslmcp``), and inside WSL the distro and the user it runs as."""

    side: Side
    program: tuple[str, ...]
    distro: str | None = None
    user: str | None = None


@dataclass(frozen=True)
class Launch:
    command: str
    args: tuple[str, ...]
    env: Mapping[str, str] = field(default_factory=dict)


class Unreachable(ValueError):
    """No entry on that side can start this wslmcp; the message says why and what to do."""


def launch(installed: Installed, side: Side, server: str, env: Mapping[str, str]) -> Launch:
    """How a client on ``side`` starts ``server``, with ``env`` (the shell's ``WSL_*`` variables)."""
    program = installed.program
    if side == installed.side:
        return Launch(program[0], (*program[1:], server), dict(env))
    if side == "linux":
        raise Unreachable(
            "a client inside a WSL distro cannot start wslmcp installed on Windows; install wslmcp in "
            "the distro (python3 -m venv ~/.local/wslmcp && ~/.local/wslmcp/bin/pip install wslmcp) "
            "and run 'wslmcp install' there"
        )
    if installed.distro is None or installed.user is None:
        raise Unreachable(
            "wslmcp runs on plain Linux, not in a WSL distro, so a Windows client cannot reach it; run "
            "'wslmcp install' inside the distro (or install wslmcp on Windows)"
        )
    carried = dict(env)
    if carried:
        carried["WSLENV"] = ":".join(carried)
    return Launch("wsl.exe", ("-d", installed.distro, "-u", installed.user, "--", *program, server), carried)


def entry(config: ConfigFile, started: Launch, current: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The entry ``config``'s client reads for ``started``; the keys a user added to ``current`` (an
    entry of ours already there) are kept, in their place."""
    ours: dict[str, Any] = {"type": "stdio"} if config.typed else {}
    ours["command"] = started.command
    ours["args"] = list(started.args)
    if started.env:
        ours["env"] = dict(started.env)
    if current is None:
        return ours
    merged = {k: v for k, v in current.items() if k not in OWN_KEYS or k in ours}
    merged.update(ours)
    return merged


def _program_name(word: str) -> str:
    base = ntpath.basename(posixpath.basename(word)).lower()
    return base.removesuffix(".exe")


def is_ours(found: object, server: str) -> bool:
    """Whether an entry found in a file starts wslmcp's ``server`` (by path, ``-m wslmcp``, or
    through ``wsl.exe``), whoever wrote it."""
    if not isinstance(found, Mapping):
        return False
    command, args = found.get("command"), found.get("args", [])
    if not isinstance(command, str) or not isinstance(args, Sequence) or isinstance(args, str):
        return False
    argv = [command, *(a for a in args if isinstance(a, str))]
    for i, word in enumerate(argv[:-1]):
        starts = _program_name(word) == "wslmcp" or (word == "-m" and argv[i + 1] == "wslmcp")
        if starts:
            rest = argv[i + 1 :] if word != "-m" else argv[i + 2 :]
            return rest[:1] == [server]
    return False


def started(found: Mapping[str, Any]) -> Launch:
    """How a client starts an entry found in a file (its command, args and env as written)."""
    env = found.get("env")
    return Launch(
        str(found.get("command", "")),
        tuple(str(a) for a in found.get("args", []) if isinstance(a, str)),
        {str(k): str(v) for k, v in env.items()} if isinstance(env, Mapping) else {},
    )
