"""Rows and verdicts: joining definition cost with usage.

verdict: unknown when usage is unsupported or there is no data; else 0 calls is ``prune`` when the
definitions were observed and ``review`` when not; 1-3 calls ``review``; more ``keep``.
Rows sort by verdict (prune, review, keep, unknown), then by advertised cost (largest first), then
by server name.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from wslmcp.profile.tokens import Tokens, estimate_bytes

REVIEW_MAX_CALLS = 3
SEVERITY = {"prune": 0, "review": 1, "keep": 2, "unknown": 3}
NOT_CONFIGURED = "(not configured)"


@dataclass(frozen=True)
class Footprint:
    """Recorded-result bytes of one server's calls: a lower bound, never a context measure."""

    results: int
    total_bytes: int
    total_tokens: Tokens
    max_tokens: Tokens
    p50_tokens: Tokens
    p90_tokens: Tokens

    def as_json(self) -> dict[str, Any]:
        return {
            "results": self.results,
            "lower_bound": True,
            "basis": "recorded_utf8_bytes",
            "token_estimate": "bytes/4",
            "total_bytes": self.total_bytes,
            "total_tokens": self.total_tokens.as_json(),
            "max_tokens": self.max_tokens.as_json(),
            "p50_tokens": self.p50_tokens.as_json(),
            "p90_tokens": self.p90_tokens.as_json(),
        }


def footprint(byte_counts: Sequence[int]) -> Footprint | None:
    if not byte_counts:
        return None
    per_result = sorted(estimate_bytes(b).value for b in byte_counts)
    return Footprint(
        results=len(byte_counts),
        total_bytes=sum(byte_counts),
        total_tokens=estimate_bytes(sum(byte_counts)),
        max_tokens=Tokens(per_result[-1], False),
        p50_tokens=Tokens(nearest_rank(per_result, 50), False),
        p90_tokens=Tokens(nearest_rank(per_result, 90), False),
    )


def nearest_rank(ascending: Sequence[int], percentile: int) -> int:
    rank = math.ceil(percentile / 100 * len(ascending))
    return ascending[max(rank - 1, 0)]


@dataclass
class Row:
    server: str
    scope: str
    transport: str
    advertised_max_tokens: Tokens | None
    upfront_floor_tokens: Tokens | None
    loading_regime: str
    regime_evidence: list[str]
    def_status: str
    def_error: str | None
    tool_count: int | None
    calls: int | None
    usage_status: str
    called_tools: dict[str, int]
    verdict: str
    filtered_tools: int = 0
    recorded_result_footprint: Footprint | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {
            "server": self.server,
            "scope": self.scope,
            "transport": self.transport,
            "advertised_max_tokens": _tokens(self.advertised_max_tokens),
            "upfront_floor_tokens": _tokens(self.upfront_floor_tokens),
            "loading_regime": self.loading_regime,
            "regime_evidence": list(self.regime_evidence),
            "def_status": self.def_status,
            "def_error": self.def_error,
            "tool_count": self.tool_count,
            "calls": self.calls,
            "usage_status": self.usage_status,
            "called_tools": dict(self.called_tools),
            "verdict": self.verdict,
            "filtered_tools": self.filtered_tools,
            "recorded_result_footprint": None
            if self.recorded_result_footprint is None
            else self.recorded_result_footprint.as_json(),
        }


def _tokens(value: Tokens | None) -> dict[str, Any] | None:
    return None if value is None else value.as_json()


def verdict(calls: int | None, def_status: str, usage_status: str) -> str:
    if usage_status in ("unsupported", "no-data") or calls is None:
        return "unknown"
    if calls == 0:
        return "prune" if def_status == "ok" else "review"
    if calls <= REVIEW_MAX_CALLS:
        return "review"
    return "keep"


def sort_rows(rows: list[Row]) -> None:
    rows.sort(
        key=lambda r: (
            SEVERITY.get(r.verdict, len(SEVERITY)),
            -(r.advertised_max_tokens.value if r.advertised_max_tokens is not None else 0),
            r.server,
        )
    )
