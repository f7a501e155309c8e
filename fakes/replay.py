"""Strict replay: the shared machinery every fake uses."""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from wslmcp.boundaries.replay_miss import NotRecorded


class ReplayMiss(NotRecorded):
    """A fake was asked for something its scenario does not hold."""

    def __init__(self, boundary: str, scenario: str, asked: str, offered: Sequence[str]) -> None:
        self.boundary, self.scenario, self.asked, self.offered = boundary, scenario, asked, list(offered)
        shown = self.offered
        listing = "; ".join(shown[:8]) + (f"; … {len(shown) - 8} more" if len(shown) > 8 else "")
        super().__init__(
            f"{boundary} replay of scenario {scenario!r}: not recorded: {asked}. "
            f"The scenario offers: {listing or 'nothing for this boundary'}"
        )


def closest_first(asked: str, offered: list[str]) -> list[str]:
    """Order alternatives so the likeliest intended ones come first (for keyed, unordered offers)."""
    close = difflib.get_close_matches(asked, offered, n=3, cutoff=0.3)
    return close + [o for o in offered if o not in close]
