"""The observe server's tools/list in the provider wire form, counted by the profiler's o200k_base
counter (docs/profile.md): six tools stay within 1.6 x what the four cost before the history tools,
with the instructions (measured on the four: Claude Code's Anthropic wire 1,159 tokens, Codex's
OpenAI wire 1,115) and as the catalogue alone (names, descriptions, input schemas: 907 and 863)."""

from __future__ import annotations

import json

import pytest

from wslmcp.observe.tools import INSTRUCTIONS, TOOLS
from wslmcp.profile.model import QueryResult
from wslmcp.profile.wire_tokens import O200K, entries, load, wire_tool

FOUR_TOOLS = {"claude-code": 1159, "codex": 1115}
FOUR_TOOLS_ARRAY = {"claude-code": 907, "codex": 863}  # the tools array alone, compact JSON


@pytest.mark.parametrize("cli", sorted(FOUR_TOOLS))
def test_six_tools_cost_at_most_1_6_times_the_four(cli: str) -> None:
    loaded = load()
    if loaded.encoder.method != O200K:
        pytest.skip(f"the o200k_base vocabulary is not available here: {loaded.note}")
    listed = tuple(t.listing() for t in TOOLS)
    query = QueryResult(
        cli=cli, server="wslmcp-observe", status="ok", instructions=INSTRUCTIONS, tools=listed
    )  # type: ignore[arg-type]
    own = {"claude-code": "anthropic", "codex": "openai"}[cli]
    count = next(e["advertised_max"] for e in entries(query, "upfront", loaded.encoder) if e["wire"] == own)
    assert len(listed) == 6
    assert count <= 1.6 * FOUR_TOOLS[cli], f"{count} tokens"


@pytest.mark.parametrize("cli", sorted(FOUR_TOOLS_ARRAY))
def test_the_catalogue_alone_costs_at_most_1_6_times_the_four(cli: str) -> None:
    loaded = load()
    if loaded.encoder.method != O200K:
        pytest.skip(f"the o200k_base vocabulary is not available here: {loaded.note}")
    wire = {"claude-code": "anthropic", "codex": "openai"}[cli]
    array = [wire_tool(t.listing(), "wslmcp-observe", cli, None, wire) for t in TOOLS]
    count = loaded.encoder.count(json.dumps(array, separators=(",", ":")))
    assert count <= 1.6 * FOUR_TOOLS_ARRAY[cli], f"{count} tokens"
