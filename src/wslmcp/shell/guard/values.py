"""Expanded words: what a word becomes, with markers where its value is only known at run time.

A value the guard cannot know (an unset or run-time variable, the output of a real command) is
carried as ``UNKNOWN`` (may be empty) or ``UNKNOWN_SET`` (known to be non-empty, e.g. ``${x:?}``).
``Arg.worst`` is the value with every ``UNKNOWN`` taken as empty: ``rm -rf "$DIR/"`` is judged
as ``rm -rf /``, which is exactly what it does when ``DIR`` is unset.
"""

from __future__ import annotations

from dataclasses import dataclass

UNKNOWN = "\x00"
UNKNOWN_SET = "\x01"


@dataclass(frozen=True)
class Arg:
    """One expanded word. ``glob`` is true when unquoted glob characters remain in it."""

    text: str
    glob: bool = False

    @property
    def static(self) -> bool:
        return UNKNOWN not in self.text and UNKNOWN_SET not in self.text

    @property
    def worst(self) -> str:
        """The value with unknown parts that may be empty taken as empty."""
        return self.text.replace(UNKNOWN, "").replace(UNKNOWN_SET, "_")

    @property
    def shown(self) -> str:
        return shown(self.text)


def shown(text: str) -> str:
    return text.replace(UNKNOWN, "…").replace(UNKNOWN_SET, "…")


def known(text: str | None) -> bool:
    """Is ``text`` wholly known (no run-time part)?"""
    return text is not None and UNKNOWN not in text and UNKNOWN_SET not in text


def basename(text: str) -> str:
    return text.rstrip("/").rsplit("/", 1)[-1] if text.rstrip("/") else text
