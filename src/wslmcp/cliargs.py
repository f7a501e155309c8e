"""Argument parsing shared by every subcommand: one-line errors, exit status 2, one help layout.

Every help (each subcommand's, each of their subcommands', and observe's hand-written one) is laid
out at ``WIDTH`` columns whatever the terminal, says ``-h, --help  show this help message and
exit``, and keeps descriptions and epilogs as written except for a line longer than the width,
which is wrapped under its own indentation.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from typing import Any, NoReturn

WIDTH = 100  # columns of every help text
HELP_LINE = "show this help message and exit"


class Formatter(argparse.RawDescriptionHelpFormatter):
    """argparse's layout at ``WIDTH`` columns; descriptions and epilogs as written, a long line wrapped."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, width=WIDTH, max_help_position=32)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n".join(_wrapped(line, width, indent) for line in text.splitlines())


def _wrapped(line: str, width: int, indent: str) -> str:
    if len(indent + line) <= width:
        return indent + line
    lead = indent + line[: len(line) - len(line.lstrip())]
    return textwrap.fill(line.strip(), width, initial_indent=lead, subsequent_indent=lead)


class ArgumentParser(argparse.ArgumentParser):
    """An argparse parser whose usage errors are one line on stderr and exit status 2, laid out by
    ``Formatter`` and without abbreviated options (its subcommands' parsers too).

    argparse normally prints the whole usage block before the message; a script reading stderr
    wants the reason alone, and a server's stdout must stay empty.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", Formatter)
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(usage_line(self.prog, message))
        raise SystemExit(2)


def usage_line(prog: str, message: str) -> str:
    """The one-line usage error every subcommand writes to stderr (exit status 2)."""
    return f"{prog}: error: {message} (see --help)\n"


def parser(prog: str, description: str) -> ArgumentParser:
    return ArgumentParser(prog=prog, description=description)
