"""§6: definition token estimates (chars/4 per component, Claude names and 2 KB truncation)."""

from __future__ import annotations

import json
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import examples
from wslmcp.profile.definitions import token_range
from wslmcp.profile.model import QueryResult
from wslmcp.profile.tokens import Tokens, estimate_definition, estimate_text, fmt, total, truncate_utf8


def ok(tools: list[dict[str, object]], instructions: str | None = None) -> QueryResult:
    return QueryResult("claude-code", "srv", "ok", instructions=instructions, tools=tuple(tools))


def test_estimate_counts_code_points_not_utf16_units() -> None:
    assert estimate_text("🚀🚀🚀🚀🚀") == Tokens(2, False)
    assert estimate_text("") == Tokens(0, False)


def test_definition_is_compact_json_with_python_number_rendering_and_escapes() -> None:
    tool = {"name": "t", "n": 1e5, "s": "a\tb\u0001/\u2028"}
    serialized = '{"name":"t","n":100000.0,"s":"a\\tb\\u0001/\u2028"}'
    assert estimate_definition(tool) == Tokens(math.ceil(len(serialized) / 4), False)


def test_empty_sum_is_the_only_exact_count() -> None:
    assert total([]) == Tokens(0, True)
    assert total([Tokens(3, False)]) == Tokens(3, False)
    high, low = token_range(ok([]), "srv", "claude-code", "unknown")
    assert high == low == Tokens(0, True)


def test_readme_case_study_numbers() -> None:
    tools = [
        {"name": "first_tool", "description": "First tool.", "inputSchema": {"type": "object"}},
        {"name": "second_tool", "description": "Second tool.", "inputSchema": {"type": "object"}},
    ]
    high, low = token_range(ok(tools, "Fake server instructions."), "unused-server", "claude-code", "unknown")
    names = [f"mcp__unused-server__{t['name']}" for t in tools]
    assert low == Tokens(7 + sum(math.ceil(len(n) / 4) for n in names), False)
    assert low.value == 23
    assert high is not None and high.value == 7 + sum(
        estimate_definition({**t, "name": n}).value for t, n in zip(tools, names, strict=True)
    )


def test_upfront_regime_counts_whole_definitions_in_the_floor() -> None:
    tools = [{"name": "a", "description": "x" * 100}]
    high, low = token_range(ok(tools), "s", "claude-code", "upfront")
    assert high == low


def test_always_load_meta_applies_to_every_cli() -> None:
    tools = [{"name": "a", "description": "x" * 100, "_meta": {"anthropic/alwaysLoad": True}}]
    for cli in ("claude-code", "codex", "cursor"):
        high, low = token_range(QueryResult(cli, "s", "ok", tools=tuple(tools)), "s", cli, "unknown")  # type: ignore[arg-type]
        assert high == low


def test_nameless_tool_adds_nothing_to_the_floor() -> None:
    high, low = token_range(ok([{"description": "no name"}]), "s", "claude-code", "unknown")
    assert low == Tokens(0, True)
    assert high is not None and high.value > 0


def test_claude_truncates_descriptions_and_instructions_at_2kb_other_clis_do_not() -> None:
    long = "é" * 3000  # 6000 UTF-8 bytes
    tools = [{"name": "a", "description": long}]
    claude_high, _ = token_range(ok(tools, long), "s", "claude-code", "unknown")
    codex_high, _ = token_range(
        QueryResult("codex", "s", "ok", instructions=long, tools=tuple(tools)), "s", "codex", "unknown"
    )
    cut = "é" * 1024
    expected = estimate_text(cut).value + estimate_definition({"name": "mcp__s__a", "description": cut}).value
    assert claude_high == Tokens(expected, False)
    assert codex_high == Tokens(estimate_text(long).value + estimate_definition(tools[0]).value, False)


def test_truncation_drops_a_partial_multibyte_character() -> None:
    assert truncate_utf8("a" + "€" * 3, 5) == "a€"  # 1 + 3 bytes fit, the next € (3 bytes) does not


def test_failed_query_has_no_range() -> None:
    assert token_range(QueryResult("codex", "s", "error", "boom"), "s", "codex", "unknown") == (None, None)


def test_fmt_marks_estimates() -> None:
    assert fmt(Tokens(1234, False)) == "~1,234"
    assert fmt(Tokens(0, True)) == "0"


tool_strategy = st.fixed_dictionaries(
    {"name": st.text(max_size=20), "description": st.text(max_size=3000)},
    optional={"_meta": st.just({"anthropic/alwaysLoad": True}), "inputSchema": st.just({"type": "object"})},
)


@settings(max_examples=examples(60), deadline=None)
@given(
    tools=st.lists(tool_strategy, max_size=5),
    instructions=st.none() | st.text(max_size=3000),
    cli=st.sampled_from(["claude-code", "codex", "cursor"]),
    regime=st.sampled_from(["upfront", "deferred", "unknown"]),
)
def test_floor_never_exceeds_advertised(
    tools: list[dict[str, object]], instructions: str | None, cli: str, regime: str
) -> None:
    result = QueryResult(cli, "srv", "ok", instructions=instructions, tools=tuple(tools))  # type: ignore[arg-type]
    high, low = token_range(result, "srv", cli, regime)
    assert high is not None and low is not None
    assert low.value <= high.value
    json.dumps(tools)  # the inputs stay JSON


def test_lone_surrogate_in_a_claude_description_is_counted_not_fatal() -> None:
    """mcp-top 0.5.0 aborts the whole report here (UTF-8 encoding error); we count it (docs/profile.md)."""
    tools = [{"name": "a", "description": "bad \ud800 text"}]
    high, low = token_range(ok(tools), "s", "claude-code", "unknown")
    assert high == estimate_definition({"name": "mcp__s__a", "description": "bad \ud800 text"})
    assert low == estimate_text("mcp__s__a")
