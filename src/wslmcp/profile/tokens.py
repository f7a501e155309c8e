"""Token estimates for tool definitions, instructions and recorded results.

Every count is chars/4 (definitions, instructions) or bytes/4 (recorded results), rounded up, and
flagged ``exact=False``. The only exact count is the empty sum: a queried server that kept no tools
and sent no instructions costs exactly 0.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

CLAUDE_TEXT_LIMIT_BYTES = 2048


@dataclass(frozen=True)
class Tokens:
    value: int
    exact: bool

    def as_json(self) -> dict[str, Any]:
        return {"value": self.value, "exact": self.exact}


def estimate_text(text: str) -> Tokens:
    """ceil(code points / 4)."""
    return Tokens(math.ceil(len(text) / 4), False)


def estimate_bytes(byte_count: int) -> Tokens:
    return Tokens(math.ceil(byte_count / 4), False)


def compact_json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def estimate_definition(definition: Mapping[str, Any]) -> Tokens:
    return estimate_text(compact_json(definition))


def total(parts: Iterable[Tokens]) -> Tokens:
    items = list(parts)
    if not items:
        return Tokens(0, True)
    return Tokens(sum(p.value for p in items), all(p.exact for p in items))


def truncate_utf8(text: str, limit: int | None) -> str:
    """Cut to the first ``limit`` UTF-8 bytes, dropping a trailing partial character."""
    if limit is None:
        return text
    raw = text.encode("utf-8", "surrogatepass")
    if len(raw) <= limit:
        return text
    return raw[:limit].decode("utf-8", "ignore")


def fmt(tokens: Tokens) -> str:
    text = f"{tokens.value:,}"
    return text if tokens.exact else f"~{text}"
