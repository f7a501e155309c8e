"""Expanded words: what a word becomes, with markers where its value is only known at run time.

A value the guard cannot know (an unset or run-time variable, the output of a real command) is
carried as ``UNKNOWN`` (may be empty) or ``UNKNOWN_SET`` (known to be non-empty, e.g. ``${x:?}``).
``Arg.worst`` is the value with every ``UNKNOWN`` taken as empty: ``rm -rf "$DIR/"`` is judged
as ``rm -rf /``, which is exactly what it does when ``DIR`` is unset.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote, unquote

UNKNOWN = "\x00"
UNKNOWN_SET = "\x01"
LISTED = "\x03"
"""Opens a name a listing prints at run time (``ls ~``, ``find / -type f``): ``listed_name``."""
_LISTED_RE = re.compile("\x03([^\x03]*)\x03([*?])")
_LISTED_LAST = re.compile("\x03([^\x03]*)\x03([*?])/*$")


@dataclass(frozen=True)
class Arg:
    """One expanded word. ``glob`` is true when unquoted glob characters remain in it."""

    text: str
    glob: bool = False

    @property
    def static(self) -> bool:
        return known(self.text)

    @property
    def worst(self) -> str:
        """The value with unknown parts that may be empty taken as empty (a listed name as ``_``)."""
        return _LISTED_RE.sub("_", self.text).replace(UNKNOWN, "").replace(UNKNOWN_SET, "_")

    @property
    def shown(self) -> str:
        return shown(self.text)


def shown(text: str) -> str:
    text = _LISTED_RE.sub(
        lambda m: f"<{'each' if m.group(2) == '*' else 'some'} name under {unquote(m.group(1))}>", text
    )
    return text.replace(UNKNOWN, "…").replace(UNKNOWN_SET, "…")


def known(text: str | None) -> bool:
    """Is ``text`` wholly known (no run-time part)?"""
    return text is not None and UNKNOWN not in text and UNKNOWN_SET not in text and LISTED not in text


def readable(text: str) -> bool:
    """Is ``text`` known but for the names listings print in it (a script that can be walked:
    ``ls ~ | parallel rm -rf`` runs ``rm -rf`` on each name, which the rules judge)?"""
    return known(_LISTED_RE.sub("", text))


def listed_name(root: str, every: bool) -> str:
    """The text standing for one name a listing of the tree ``root`` prints: every name under it
    (``ls ~``, ``find ~ -type f``) or only some (a test or a filter chose them: ``find ~ -name x``,
    ``ls ~ | grep x``). Blanks in ``root`` are escaped, so the name stays one word when split."""
    return f"{LISTED}{quote(root, safe='/~._-+@:,=')}{LISTED}{'*' if every else '?'}"


def listed_in(text: str) -> tuple[str, bool] | None:
    """The tree a word names entries of (its last component is a listed name), and whether every
    entry (``listed_name``), else None."""
    found = _LISTED_LAST.search(text)
    return (unquote(found.group(1)), found.group(2) == "*") if found else None


def basename(text: str) -> str:
    return text.rstrip("/").rsplit("/", 1)[-1] if text.rstrip("/") else text
