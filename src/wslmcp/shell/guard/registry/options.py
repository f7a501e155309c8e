"""Command-line option parsing the way getopt-style tools read their arguments."""

from __future__ import annotations

import functools
from collections.abc import Collection
from dataclasses import dataclass, field

from wslmcp.shell.guard.registry.tables import spec
from wslmcp.shell.guard.values import Arg


@dataclass
class Parsed:
    """``opts`` as (``-x`` or ``--long``, value or None); ``operands`` in order; ``rest`` is what follows
    the first operand when parsing stopped there (``stop_first``)."""

    opts: list[tuple[str, str | None]] = field(default_factory=list)
    operands: list[Arg] = field(default_factory=list)
    rest: list[Arg] = field(default_factory=list)

    def has(self, *names: str) -> bool:
        return any(name in names for name, _ in self.opts)

    def values(self, *names: str) -> list[str]:
        return [value for name, value in self.opts if name in names and value is not None]

    def short_cluster_has(self, letters: str) -> bool:
        return any(len(name) == 2 and name[1] in letters for name, _ in self.opts)


def parse(
    args: list[Arg],
    short_values: str = "",
    long_values: Collection[str] = (),
    stop_first: bool = False,
    numeric_options: bool = False,
) -> Parsed:
    """Parse ``args``. ``short_values`` are the short letters that take a value (attached or next);
    ``long_values`` the long names that take the next word when not written ``--name=value``.
    ``stop_first`` stops at the first operand (wrappers: the command starts there)."""
    out = Parsed()
    i = 0
    while i < len(args):
        text = args[i].text
        if text == "--":
            if stop_first:
                out.rest = args[i + 1 :]
            else:
                out.operands.extend(args[i + 1 :])
            break
        if text.startswith("--") and len(text) > 2:
            name, eq, value = text[2:].partition("=")
            if eq:
                out.opts.append(("--" + name, value))
            elif name in long_values and i + 1 < len(args):
                out.opts.append(("--" + name, args[i + 1].text))
                i += 1
            else:
                out.opts.append(("--" + name, None))
        elif text.startswith("-") and len(text) > 1:
            if numeric_options and text[1:].isascii() and text[1:].isdigit():
                out.opts.append((text, None))
                i += 1
                continue
            j = 1
            while j < len(text):
                ch = text[j]
                if ch in short_values:
                    value = text[j + 1 :]
                    if not value and i + 1 < len(args):
                        value = args[i + 1].text
                        i += 1
                    out.opts.append(("-" + ch, value))
                    break
                out.opts.append(("-" + ch, None))
                j += 1
        else:
            if stop_first:
                out.rest = args[i:]
                break
            out.operands.append(args[i])
        i += 1
    return out


def parse_as(name: str, args: list[Arg], stop_first: bool = False, numeric_options: bool = False) -> Parsed:
    """Parse ``args`` with the value-taking options the registry records for ``name`` (the same
    words parse the same way everywhere, so the result is shared: read it, do not change it)."""
    return _parse_as(name, tuple(args), stop_first, numeric_options)


@functools.lru_cache(maxsize=1024)
def _parse_as(name: str, args: tuple[Arg, ...], stop_first: bool, numeric_options: bool) -> Parsed:
    known = spec(name)
    return parse(list(args), known.short, known.long, stop_first, numeric_options)
