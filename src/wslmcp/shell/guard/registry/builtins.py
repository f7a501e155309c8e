"""How commands change what the commands after them see: the shell's state, as effects.

``cd``/``pushd`` enter a directory; ``export``/``declare``/``local``/``readonly``/``typeset``,
``printf -v``, ``read``/``mapfile`` set variables; ``unset`` removes them; ``alias`` and
``hash -p`` give a name new meaning; ``set --`` sets the positional parameters; ``mount --bind``
and ``ln`` make a path reach another; ``cp``/``mv``/``install``/``ln`` copy a program under a new
name. Paths are returned as written; the flow pass resolves them against its working directory.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable

from wslmcp.shell.guard.effects import Alias, Copy, Effect, Enter, Hash, Link, Positional, Unset, Var
from wslmcp.shell.guard.registry.outputs import printf_text
from wslmcp.shell.guard.registry.tables import is_a
from wslmcp.shell.guard.values import UNKNOWN, Arg

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PLAIN_READ = frozenset({"-r", "-s", "-e", "-rs", "-sr", "-er", "-re"})

Tracker = Callable[[str, list[Arg], "Context"], list[Effect]]


class Context:
    """What a state change may depend on: the command's static stdin, the IFS it sees, ``$0``."""

    def __init__(self, stdin: str | None, ifs: str | None, shell_name: str) -> None:
        self.stdin = stdin
        self.ifs = ifs
        self.shell_name = shell_name


def state_effects(name: str, args: list[Arg], context: Context, wrapped: bool) -> list[Effect]:
    """What ``name ARGS`` changes for the commands after it. ``wrapped``: it runs under a wrapper
    (``sudo cd``, ``env export``), so as a separate program that changes nothing here."""
    if wrapped and is_a(name, "shell_state"):
        return []
    tracker = _TRACKERS.get(name)
    if tracker is None and is_a(name, "declarer"):
        tracker = _declare
    return tracker(name, args, context) if tracker is not None else []


def _cd(name: str, args: list[Arg], context: Context) -> list[Effect]:
    operands = [a for a in args if not re.fullmatch(r"-[LPe@]+", a.text)]
    if not operands:
        return [Enter("~")]
    target = operands[0]
    if target.text == "-" or not target.static:
        return [Enter(None)]
    return [Enter(target.text)]


def _popd(name: str, args: list[Arg], context: Context) -> list[Effect]:
    return [Enter(None)]


def _declare(name: str, args: list[Arg], context: Context) -> list[Effect]:
    texts = [a.text for a in args]
    nameref = any(re.fullmatch(r"-\w*n\w*", t) for t in texts)
    array = any(re.fullmatch(r"-\w*[aA]\w*", t) for t in texts)
    exporting = name == "export" or any(re.fullmatch(r"-\w*x\w*", t) for t in texts)
    found: list[Effect] = []
    for a in args:
        m = re.match(r"([A-Za-z_][A-Za-z0-9_]*)(?:=(.*))?$", a.text, re.S)
        if not m:
            continue
        if nameref or array:
            found.append(Var(m.group(1), UNKNOWN, exporting))  # namerefs and arrays: their uses are unknown
        else:
            found.append(Var(m.group(1), m.group(2), exporting))
    return found


def _unset(name: str, args: list[Arg], context: Context) -> list[Effect]:
    return [Unset(a.text) for a in args]


def _alias(name: str, args: list[Arg], context: Context) -> list[Effect]:
    found: list[Effect] = []
    for a in args:
        alias, eq, expansion = a.text.partition("=")
        if eq:
            found.append(Alias(alias, expansion))  # an unknown part makes its use unresolved
    return found


def _hash(name: str, args: list[Arg], context: Context) -> list[Effect]:
    """``hash -p PATH NAME``: NAME now runs PATH."""
    texts = [a.text for a in args]
    if len(texts) >= 3 and texts[0] == "-p":
        return [Hash(alias, texts[1]) for alias in texts[2:]]
    return []


def _set(name: str, args: list[Arg], context: Context) -> list[Effect]:
    texts = [a.text for a in args]
    if "--" in texts:
        return [Positional((context.shell_name, *texts[texts.index("--") + 1 :]))]
    return []


def _printf(name: str, args: list[Arg], context: Context) -> list[Effect]:
    texts = [a.text for a in args]
    if len(texts) < 2 or texts[0] != "-v":
        return []
    value = printf_text(texts[2:]) if len(texts) > 2 else None
    known = value is not None and "[" not in texts[1]
    return [Var(texts[1].split("[", 1)[0], value if known and value is not None else UNKNOWN)]


def _read(name: str, args: list[Arg], context: Context) -> list[Effect]:
    texts = [a.text for a in args]
    reading = is_a(name, "line_reader")
    fields = None
    if context.stdin is not None and reading:
        fields = read_fields(context.stdin.split("\n", 1)[0], context.ifs)
    names = [t for t in texts if _NAME.fullmatch(t)]
    array = not reading or any(re.fullmatch(r"-\w*a", t) for t in texts)
    if not names and reading:
        names = ["REPLY"]
    plain = all(t in _PLAIN_READ for t in texts if t.startswith("-"))
    found: list[Effect] = []
    for k, var in enumerate(names):
        if fields is not None and not array and plain:
            value = fields[k] if k < len(names) - 1 else " ".join(fields[k:])
            found.append(Var(var, value if k < len(fields) else ""))
        else:
            found.append(Var(var, UNKNOWN))
    return found


def read_fields(line: str, ifs: str | None) -> list[str] | None:
    """``line`` split into fields as ``read`` splits it with ``ifs``; None when IFS is unknown."""
    if ifs is None or not ifs.strip(" \t\n"):
        return line.split() if ifs is None or ifs else [line]
    if UNKNOWN in ifs:
        return None
    return [f.strip(" \t\n") for f in re.split("[" + re.escape(ifs) + "]", line)]


def _mount(name: str, args: list[Arg], context: Context) -> list[Effect]:
    texts = [a.text for a in args]
    if not any(t in ("--bind", "-B", "--rbind", "-R") for t in texts):
        return []
    operands = [a for a in args if not a.text.startswith("-")]
    if len(operands) == 2 and all(a.static for a in operands):
        return [Link(operands[1].text, operands[0].text)]
    return []


def _copy(name: str, args: list[Arg], context: Context) -> list[Effect]:
    operands = [a for a in args if not a.text.startswith("-")]
    if len(operands) < 2 or not all(a.static for a in operands):
        return []
    dest = operands[-1].text
    found: list[Effect] = []
    for src in operands[:-1]:
        if len(operands) == 2:
            found.append(Copy(dest, src.text))
            if name == "ln":
                found.append(Link(dest, src.text))
        found.append(Copy(dest, src.text, into=True))
    return found


def alias_of_hash(path: str) -> str:
    """The alias text a hashed name stands for (``hash -p /sbin/reboot ls``: ``ls`` runs ``/sbin/reboot``)."""
    return shlex.quote(path)


_TRACKERS: dict[str, Tracker] = {
    "cd": _cd,
    "pushd": _cd,
    "popd": _popd,
    "unset": _unset,
    "alias": _alias,
    "hash": _hash,
    "set": _set,
    "printf": _printf,
    "read": _read,
    "mapfile": _read,
    "readarray": _read,
    "mount": _mount,
    "cp": _copy,
    "mv": _copy,
    "install": _copy,
    "ln": _copy,
}
