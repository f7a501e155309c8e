"""What the shell server's tools cost an agent, counted as our profiler counts them (o200k_base over
the provider wire form a client sends, ``wire_tokens``), against what the ten tools cost before
the workbench joined them; and every description says when to use its tool instead of wsl_exec."""

from __future__ import annotations

from wslmcp.profile import wire_tokens
from wslmcp.profile.model import QueryResult
from wslmcp.shell.tools import SERVER

# tools/list of the ten tools at 57b4ed8 (before issue 22), counted the same way: the Anthropic wire
# as Claude Code sends it, the instructions included (docs/shell.md, "What the descriptions cost").
TEN_TOOLS_ANTHROPIC = 2298
TEN_TOOLS_OPENAI = 2228


def _advertised(cli: str, wire: str) -> int:
    result = QueryResult(
        cli,  # type: ignore[arg-type]
        "wsl",
        "ok",
        instructions=SERVER.instructions,
        tools=tuple(tool.listing() for tool in SERVER.tools),
    )
    loaded = wire_tokens.load()
    assert loaded.encoder.exact, loaded.note
    [entry] = [e for e in wire_tokens.entries(result, "upfront", loaded.encoder) if e["wire"] == wire]
    return int(entry["advertised_max"])


def test_the_seventeen_tools_cost_at_most_half_again_the_ten() -> None:
    assert len(SERVER.tools) == 17
    assert _advertised("claude-code", "anthropic") <= 1.5 * TEN_TOOLS_ANTHROPIC
    assert _advertised("codex", "openai") <= 1.5 * TEN_TOOLS_OPENAI


def test_each_description_says_when_to_use_it_instead_of_wsl_exec() -> None:
    others = [tool for tool in SERVER.tools if tool.name != "wsl_exec"]
    assert [tool.name for tool in others if "wsl_exec" not in tool.description] == []
