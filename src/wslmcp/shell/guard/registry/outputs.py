"""What a program prints, for the few programs a careful reader can evaluate without running them.

``echo``, ``printf`` (``%s %b %%``), ``pwd``, ``cat`` of its standard input, ``command -v``/``which``/
``type -P`` (the name itself), ``tr`` of plain sets, ``wslpath`` of a Windows path and ``base64 -d``;
and for a listing (``ls``, ``find``, ``fd``, and filters of one: ``listings``) a word standing for the
names it prints. Anything else prints what only a run can tell: ``None``.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable

from wslmcp.shell.guard.reader import decode_ansi_c
from wslmcp.shell.guard.registry.listings import LISTERS, filtered
from wslmcp.shell.guard.values import basename

_Printer = Callable[[list[str], str | None, str | None], str | None]


def static_output(name: str, args: list[str], stdin: str | None, cwd: str | None) -> str | None:
    """What ``name ARGS`` prints given ``stdin`` (None: unknown) in ``cwd``, when knowable."""
    printer = _PRINTERS.get(name) or LISTERS.get(name)
    return printer(args, stdin, cwd) if printer is not None else filtered(name, stdin)


def passes_file_through(name: str, args: list[str]) -> str | None:
    """The one file a program copies to its output unchanged (``cat FILE``), else None."""
    operands = [a for a in args if not a.startswith("-")]
    if name == "cat" and len(operands) == 1:
        return operands[0]
    return None


def copies_stdin_to_files(name: str) -> bool:
    """Does ``name`` write its standard input into the files it names (``tee``, ``sponge``)?"""
    return name in ("tee", "sponge")


def _echo(args: list[str], stdin: str | None, cwd: str | None) -> str:
    newline, escapes = True, False
    while args and re.fullmatch(r"-[neE]+", args[0]):
        flags = args.pop(0)
        newline = newline and "n" not in flags
        escapes = escapes or "e" in flags
    text = " ".join(args)
    if escapes:
        text = decode_ansi_c(text)
    return text + ("\n" if newline else "")


def printf_text(args: list[str]) -> str | None:
    """What ``printf ARGS`` prints, for the formats the guard evaluates (``%s %b %%``)."""
    if not args:
        return None
    fmt, rest = args[0], args[1:]
    if fmt == "--" and rest:
        fmt, rest = rest[0], rest[1:]
    specs = re.findall(r"%.", fmt)
    if any(s not in ("%s", "%b", "%%") for s in specs):
        return None
    consumers = sum(1 for s in specs if s != "%%")
    out: list[str] = []
    position = 0
    while True:
        chunk, position = _printf_once(fmt, rest, position)
        out.append(chunk)
        if not consumers or position >= len(rest):
            return "".join(out)


def _printf_once(fmt: str, rest: list[str], position: int) -> tuple[str, int]:
    pieces: list[str] = []
    for token in re.split(r"(%.)", fmt):
        if token == "%%":
            pieces.append("%")
        elif token in ("%s", "%b"):
            value = rest[position] if position < len(rest) else ""
            position += 1
            pieces.append(decode_ansi_c(value) if token == "%b" else value)
        else:
            pieces.append(decode_ansi_c(token))
    return "".join(pieces), position


def _printf(args: list[str], stdin: str | None, cwd: str | None) -> str | None:
    return printf_text(args)


def _pwd(args: list[str], stdin: str | None, cwd: str | None) -> str | None:
    return cwd + "\n" if cwd else None


def _cat(args: list[str], stdin: str | None, cwd: str | None) -> str | None:
    return stdin if all(a in ("-", "/dev/stdin") for a in args) else None


def _which(args: list[str], stdin: str | None, cwd: str | None) -> str | None:
    return basename(args[0]) + "\n" if len(args) == 1 else None


def _command_v(args: list[str], stdin: str | None, cwd: str | None) -> str | None:
    return basename(args[1]) + "\n" if len(args) == 2 and args[0] in ("-v", "-P", "-p") else None


def _tr_set(text: str) -> str | None:
    if "[" in text or "\\" in text:
        return None
    out: list[str] = []
    k = 0
    while k < len(text):
        if k + 2 < len(text) and text[k + 1] == "-":
            a, b = ord(text[k]), ord(text[k + 2])
            if b < a or b - a > 256:
                return None
            out.extend(chr(c) for c in range(a, b + 1))
            k += 3
        else:
            out.append(text[k])
            k += 1
    return "".join(out)


def _tr(args: list[str], stdin: str | None, cwd: str | None) -> str | None:
    """``tr SET1 SET2`` and ``tr -d SET`` of a known input, with plain characters and ranges."""
    if stdin is None:
        return None
    if len(args) == 2 and args[0] == "-d":
        gone = _tr_set(args[1])
        return None if gone is None else "".join(ch for ch in stdin if ch not in gone)
    if len(args) != 2 or args[0].startswith("-"):
        return None
    first, second = _tr_set(args[0]), _tr_set(args[1])
    if not first or not second:
        return None
    second = second + second[-1] * max(0, len(first) - len(second))
    return stdin.translate(str.maketrans(first, second[: len(first)]))


def _wslpath(args: list[str], stdin: str | None, cwd: str | None) -> str | None:
    """``wslpath C:\\x`` as the Linux path it prints (``/mnt/c/x``); Linux paths print unchanged."""
    if not args or not args[-1] or not all(a in ("-a", "-u") for a in args[:-1]):
        return None
    m = re.match(r"^([A-Za-z]):[\\/]?(.*)$", args[-1])
    if m is None:
        return args[-1] + "\n" if args[-1].startswith("/") else None
    rest = m.group(2).replace("\\", "/")
    return f"/mnt/{m.group(1).lower()}/{rest}\n"


def _base64(args: list[str], stdin: str | None, cwd: str | None) -> str | None:
    if not args or not set(args) <= {"-d", "--decode", "-D", "-i", "--ignore-garbage"} or stdin is None:
        return None
    try:
        return base64.b64decode("".join(stdin.split()), validate=False).decode("utf-8", "replace")
    except (binascii.Error, ValueError):
        return None


_PRINTERS: dict[str, _Printer] = {
    "echo": _echo,
    "printf": _printf,
    "pwd": _pwd,
    "cat": _cat,
    "which": _which,
    "command": _command_v,
    "type": _command_v,
    "tr": _tr,
    "wslpath": _wslpath,
    "base64": _base64,
}
