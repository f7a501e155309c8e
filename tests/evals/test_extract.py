"""Extraction of Claude Code transcripts and Codex rollouts into wslmcp-trace/1, and its round trip."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.evals.transcripts import (
    cc_block,
    cc_result,
    cc_text,
    cc_use,
    cc_user,
    cx_call,
    cx_meta,
    cx_msg,
    cx_output,
    write_jsonl,
)
from wslmcp.boundaries.client_files import LocalClientFiles
from wslmcp.evals import extract, trace
from wslmcp.evals.trace import Call, Message, TraceError

SUMMARY = {"snapshot": {"snapshot_id": "abc-1"}, "data": {"host_cpu_percent": 25.4}}


def read(path: Path) -> trace.Trace:
    return extract.read(LocalClientFiles(), str(path))


def test_claude_code_blocks_parallel_calls_errors_thinking_and_sidechains(tmp_path: Path) -> None:
    rows = [
        cc_user("Which process is using the most CPU right now?"),
        cc_block("m1", {"type": "thinking", "thinking": "SECRET plan"}),
        cc_text("m1", "Looking."),
        cc_use("m1", "t1", "mcp__wsl-observe__get_system_summary", {"max_age_ms": 0}),
        cc_use("m1", "t2", "mcp__wsl-observe__list_resources", {"limit": -1}),
        cc_result("t1", [{"type": "text", "text": json.dumps(SUMMARY)}]),
        cc_result("t2", "MCP error -32602: invalid argument: limit must be 0..1000", True),
        cc_use("m2", "t3", "mcp__wsl-observe__nope", {}),
        cc_result(
            "t3",
            "<tool_use_error>Error: No such tool available: mcp__wsl-observe__nope</tool_use_error>",
            True,
        ),
        cc_use("m3", "t4", "Bash", {"command": "ps"}),
        cc_result("t4", "ps output"),
        cc_use("m3", "t9", "mcp__wsl-observe__list_resources", {}, isSidechain=True),
        cc_text("m4", "The busiest is gw_sh."),
        {"type": "summary", "summary": "x"},
    ]
    got = read(write_jsonl(tmp_path / "s.jsonl", rows))
    assert got.source["format"] == "claude-code" and got.source["client_version"] == "2.1.14"
    texts = [e.text for e in got.events if isinstance(e, Message)]
    assert texts == ["Which process is using the most CPU right now?", "Looking.", "The busiest is gw_sh."]
    calls = got.calls
    assert [(c.n, c.server, c.tool, c.group) for c in calls] == [
        (1, "wsl-observe", "get_system_summary", 1),
        (2, "wsl-observe", "list_resources", 1),
        (3, "wsl-observe", "nope", 2),
        (4, None, "Bash", 3),
    ]
    assert calls[0].result.status == "ok" and calls[0].result.structured == SUMMARY
    assert calls[1].result.status == "jsonrpc_error" and calls[1].result.error is not None
    assert calls[1].result.error["code"] == -32602
    assert calls[2].result.status == "client_error"
    assert calls[3].result.status == "ok" and calls[3].result.structured is None


def test_claude_code_configured_server_names_win_longest_first(tmp_path: Path) -> None:
    rows = [cc_user("q"), cc_use("m1", "t1", "mcp__wsl__observe__list_resources", {})]
    path = write_jsonl(tmp_path / "s.jsonl", rows)
    assert read(path).calls[0].server == "wsl"
    got = extract.read(LocalClientFiles(), str(path), servers=["wsl__observe"])
    assert (got.calls[0].server, got.calls[0].tool) == ("wsl__observe", "list_resources")


def test_claude_code_without_version_or_mostly_garbage_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps({"type": "user", "message": {"content": "hi"}}) + "\n", encoding="utf-8")
    with pytest.raises(TraceError, match="no version marker"):
        read(path)
    path.write_text(json.dumps(cc_user("hi")) + "\nnot json\n", encoding="utf-8")
    with pytest.raises(TraceError, match="unparseable"):
        read(path)


def test_codex_namespace_json_string_arguments_envelopes_and_context(tmp_path: Path) -> None:
    envelope = json.dumps({"content": [{"type": "text", "text": json.dumps(SUMMARY)}], "isError": False})
    err = json.dumps({"content": [{"type": "text", "text": "unknown session 'Ubuntu#3'"}], "isError": True})
    rows = [
        cx_meta(),
        cx_msg("user", "<environment_context>cwd=/home</environment_context>"),
        cx_msg("user", "Is Docker responsible?"),
        {"type": "response_item", "payload": {"type": "reasoning", "summary": [{"text": "hidden"}]}},
        cx_call("c1", "get_system_summary", {"max_age_ms": 0}, namespace="mcp__wsl-observe"),
        cx_call("c2", "wsl_exec", {"session": "Ubuntu#3", "command": "ls"}, namespace="mcp__wsl-shell"),
        cx_output("c1", envelope),
        cx_output("c2", err),
        cx_call("c3", "shell", {"command": ["ps"]}),
        cx_output("c3", "plain text"),
        cx_msg("assistant", "No."),
    ]
    got = read(write_jsonl(tmp_path / "rollout-1.jsonl", rows))
    assert got.source["format"] == "codex" and got.source["session_id"] == "rollout-1"
    assert [e.text for e in got.events if isinstance(e, Message)] == ["Is Docker responsible?", "No."]
    c1, c2, c3 = got.calls
    assert (c1.server, c1.tool, c1.arguments, c1.group) == (
        "wsl-observe",
        "get_system_summary",
        {"max_age_ms": 0},
        1,
    )
    assert c2.group == 1 and c3.group == 2
    assert c1.result.structured == SUMMARY and c1.result.status == "ok"
    assert c2.result.status == "tool_error" and "Ubuntu#3" in c2.result.text
    assert c3.server is None and c3.result.text == "plain text"


def test_codex_without_session_meta_is_read_as_claude_code_and_refused(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "rollout-2.jsonl", [cx_msg("user", "hi")])
    with pytest.raises(TraceError, match="no version marker"):
        read(path)


def test_round_trip_through_wslmcp_trace(tmp_path: Path) -> None:
    rows = [
        cc_user("q"),
        cc_use("m1", "t1", "mcp__wsl-observe__get_system_summary", {"max_age_ms": 0}),
        cc_result("t1", [{"type": "text", "text": json.dumps(SUMMARY)}]),
        cc_text("m2", "answer"),
    ]
    first = read(write_jsonl(tmp_path / "s.jsonl", rows))
    out = tmp_path / "t.jsonl"
    out.write_text("".join(line + "\n" for line in trace.dump(first)), encoding="utf-8")
    again = read(out)
    assert again.events == first.events
    assert {k: v for k, v in again.source.items() if k != "path"} == {
        k: v for k, v in first.source.items() if k != "path"
    } | {"format": "claude-code"}


def test_neutral_trace_unknown_major_and_missing_results(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps({"schema": "wslmcp-trace/2"}) + "\n", encoding="utf-8")
    with pytest.raises(TraceError, match="unsupported trace schema"):
        read(path)
    rows = [
        {"schema": "wslmcp-trace/1", "source": {}},
        {"type": "user", "text": "q"},
        {"type": "call", "server": "o", "tool": "list_resources", "arguments": {}},
    ]
    got = read(write_jsonl(path, rows))
    call = got.calls[0]
    assert isinstance(call, Call) and call.n == 1 and call.result.status == "missing"


def test_claude_code_own_user_texts_start_no_investigation(tmp_path: Path) -> None:
    rows = [
        cc_user("<command-name>/mcp</command-name>"),
        cc_user("Which process is busiest?"),
        cc_use("m1", "t1", "mcp__o__list_resources", {}),
        cc_user("[Request interrupted by user]"),
        {
            "type": "user",
            "version": "2.1.14",
            "isMeta": True,
            "message": {"role": "user", "content": "Caveat: ..."},
        },
    ]
    got = read(write_jsonl(tmp_path / "s.jsonl", rows))
    assert [e.text for e in got.events if isinstance(e, Message)] == ["Which process is busiest?"]


def test_a_file_of_no_json_objects_is_not_called_empty(tmp_path: Path) -> None:
    files = LocalClientFiles()
    garbage, blank = tmp_path / "garbage.jsonl", tmp_path / "blank.jsonl"
    garbage.write_text("not json\n[1, 2]\n")
    blank.write_text("\n\n")
    with pytest.raises(TraceError, match=r"garbage\.jsonl: no JSON records: 2 of 2 lines unparseable"):
        extract.read(files, str(garbage))
    with pytest.raises(TraceError, match=r"blank\.jsonl: empty: no JSON records"):
        extract.read(files, str(blank))


OBSERVE_REFUSAL = "invalid arguments for list_resources: limit must be 0..1000"


@pytest.mark.parametrize(
    "text",
    [
        OBSERVE_REFUSAL,  # older transcripts: observe answered the sentence
        json.dumps({"error": {"code": "invalid_arguments", "message": OBSERVE_REFUSAL}}),  # today: its JSON
    ],
    ids=["sentence", "json"],
)
def test_a_refusal_of_arguments_is_read_in_either_text_form(text: str) -> None:
    from wslmcp.evals.extract import claude, codex
    from wslmcp.evals.rubric.protocol import _refusal

    recorded = (
        claude.result_of([{"type": "text", "text": text}], True),
        codex.output_of({"content": text, "success": False}),
    )
    for result in recorded:
        assert result.rejected_arguments, result
        assert _refusal(result) == f"arguments refused: {OBSERVE_REFUSAL}"
    other = json.dumps({"error": {"code": "not_found", "message": "x"}})
    assert not claude.result_of([{"type": "text", "text": other}], True).rejected_arguments
