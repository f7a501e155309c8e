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

from wslmcp.shell.guard.effects import Alias, Copy, Effect, Enter, Hash, Link, Positional, Setting, Unset, Var
from wslmcp.shell.guard.registry.git import config_writes
from wslmcp.shell.guard.registry.options import parse
from wslmcp.shell.guard.registry.outputs import printf_text
from wslmcp.shell.guard.registry.tables import is_a
from wslmcp.shell.guard.registry.variables import literal_pairs, table_entries
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


def _flag(texts: list[str], letter: str) -> bool:
    return any(re.fullmatch(rf"-\w*{letter}\w*", t) for t in texts)


def _declare(name: str, args: list[Arg], context: Context) -> list[Effect]:
    texts = [a.text for a in args]
    unknowable = _flag(texts, "n") or _flag(texts, "[aA]")  # namerefs and arrays: their uses are unknown
    exporting = name == "export" or _flag(texts, "x")
    integer = _flag(texts, "i")
    found: list[Effect] = []
    for a in args:
        m = re.match(r"([A-Za-z_][A-Za-z0-9_]*)(?:=(.*))?$", a.text, re.S)
        if not m:
            continue
        value = m.group(2)
        found.extend(table_entries(m.group(1), literal_pairs(value) if value else []))
        refers = value if _flag(texts, "n") and value and re.fullmatch(r"[A-Za-z_]\w*", value) else None
        found.append(Var(m.group(1), UNKNOWN if unknowable else value, exporting, integer, refers))
    return found


def variable_names(name: str, args: list[Arg]) -> list[str]:
    """The words of ``name ARGS`` that name a variable (bash evaluates a subscript written in one:
    ``printf -v 'a[$(cmd)]'``, ``read``, ``declare``, ``unset``, ``mapfile``, ``getopts``, ``-v``)."""
    texts = [a.text for a in args]
    if is_a(name, "declarer") or name == "unset":
        return [t.split("=", 1)[0] for t in texts if not t.startswith("-")]
    if name == "printf":
        return [texts[k + 1] for k, t in enumerate(texts[:-1]) if t == "-v"]
    if is_a(name, "line_reader") or name in ("mapfile", "readarray"):
        p = parse(args, "adinNptu", ("array", "delim"))
        return [a.text for a in p.operands] + p.values("-a")
    if name == "getopts":
        return texts[1:2]
    if name == "wait":
        return [texts[k + 1] for k, t in enumerate(texts[:-1]) if t == "-p"]
    if name in ("test", "["):
        return [texts[k + 1] for k, t in enumerate(texts[:-1]) if t == "-v"]
    return []


def arithmetic_texts(name: str, args: list[Arg]) -> list[str]:
    """The words of ``name ARGS`` bash evaluates as arithmetic: ``let``'s, and the values
    ``declare -i`` assigns."""
    if name == "let":
        return [a.text for a in args]
    texts = [a.text for a in args]
    if is_a(name, "declarer") and _flag(texts, "i"):
        return [t.split("=", 1)[1] for t in texts if "=" in t and not t.startswith("-")]
    return []


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


def _git(name: str, args: list[Arg], context: Context) -> list[Effect]:
    """``git config KEY VALUE``: the setting later git commands of this script see."""
    return [Setting("git", key, value) for key, value in config_writes(args)]


_TRACKERS: dict[str, Tracker] = {
    "git": _git,
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
