"""observe's catalogue as a model sees it, counted with the profiler's o200k_base counter beside
what its four tools cost before the history tools (measured on that catalogue, git 7e7ceac^),
issue 30 target 4: at most 1.6x. Two measures: the tools array alone (names, descriptions, input
schemas, compact JSON in each provider's wire form) and ``tools/list`` with the server's
instructions as ``wslmcp profile`` counts it (``tests/observe/test_token_budget.py`` holds both)."""

from __future__ import annotations

import json

from tests.observe.test_token_budget import FOUR_TOOLS, FOUR_TOOLS_ARRAY
from wslmcp.observe.tools import INSTRUCTIONS, TOOLS
from wslmcp.profile.model import QueryResult
from wslmcp.profile.wire_tokens import O200K, entries, load, wire_tool


def main() -> None:
    loaded = load()
    if loaded.encoder.method != O200K:
        print(f"   skipped: the o200k_base vocabulary is not available here: {loaded.note}")
        return
    listed = tuple(t.listing() for t in TOOLS)
    for cli, wire in (("claude-code", "anthropic"), ("codex", "openai")):
        array = [wire_tool(t, "wslmcp-observe", cli, None, wire) for t in listed]
        alone = loaded.encoder.count(json.dumps(array, separators=(",", ":")))
        query = QueryResult(
            cli=cli, server="wslmcp-observe", status="ok", instructions=INSTRUCTIONS, tools=listed
        )  # type: ignore[arg-type]
        whole = next(
            e["advertised_max"] for e in entries(query, "upfront", loaded.encoder) if e["wire"] == wire
        )
        for label, got, base in (
            ("tools array", alone, FOUR_TOOLS_ARRAY[cli]),
            ("with instructions", whole, FOUR_TOOLS[cli]),
        ):
            ratio = got / base
            print(
                f"   observe, {wire} wire, {label:<18} six tools {got:5,} tokens   the four before history "
                f"{base:5,}   ratio {ratio:.2f}x; target <= 1.6x -> {'MET' if ratio <= 1.6 else 'MISSED'}"
            )
