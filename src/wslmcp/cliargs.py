"""Argument parsing shared by every subcommand: one-line errors, exit status 2."""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn


class ArgumentParser(argparse.ArgumentParser):
    """An argparse parser whose usage errors are one line on stderr and exit status 2.

    argparse normally prints the whole usage block before the message; a script reading stderr
    wants the reason alone, and a server's stdout must stay empty.
    """

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(usage_line(self.prog, message))
        raise SystemExit(2)


def usage_line(prog: str, message: str) -> str:
    """The one-line usage error every subcommand writes to stderr (exit status 2)."""
    return f"{prog}: error: {message} (see --help)\n"


def parser(prog: str, description: str) -> ArgumentParser:
    return ArgumentParser(
        prog=prog,
        description=description,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False,
    )
