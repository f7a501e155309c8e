"""Small text helpers for what people read in a terminal: counts with the right plural, and any
text fitted onto one line of a table."""

from __future__ import annotations

import re

_SPACE = re.compile(r"\s+")


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``1 trace``, ``2 traces``; ``plural`` for nouns that do not just take an ``s``."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def one_line(text: str, limit: int = 200) -> str:
    """``text`` with every run of whitespace (newlines too) as one space, cut at a word boundary
    with an ellipsis when longer than ``limit`` characters."""
    flat = _SPACE.sub(" ", text).strip()
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut).rstrip() + "…"
