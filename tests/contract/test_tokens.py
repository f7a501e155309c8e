"""The run-token boundary: the real random source and the replay's counter keep one contract."""

from __future__ import annotations

import re

import pytest

from wslmcp.boundaries.tokens import RandomTokens, TokenSource
from wslmcp.fakes.tokens import CountingTokens


@pytest.fixture(params=["real", "fake"])
def source(request: pytest.FixtureRequest) -> TokenSource:
    return RandomTokens() if request.param == "real" else CountingTokens()


def test_tokens_are_16_lowercase_hex_digits(source: TokenSource) -> None:
    assert all(re.fullmatch(r"[0-9a-f]{16}", source.next()) for _ in range(50))


def test_a_source_never_repeats_a_token(source: TokenSource) -> None:
    drawn = [source.next() for _ in range(2000)]
    assert len(set(drawn)) == len(drawn)


def test_the_replay_counts_from_one_as_the_recorder_did() -> None:
    tokens = CountingTokens()
    assert [tokens.next(), tokens.next(), tokens.next()] == [f"{n:016x}" for n in (1, 2, 3)]


def test_a_replay_miss_hands_its_token_out_again() -> None:
    tokens = CountingTokens()
    first = tokens.next()
    tokens.unused(["-d", "Ubuntu", "--exec", "bash", "-lc", f"export WSLMCP_RUN={first}\necho x"])
    assert tokens.next() == first
    assert tokens.next() == "0000000000000002"
