"""Differential: our transcript adapters against mcp-top 0.5.0's on generated files.

Hypothesis writes transcripts mixing valid records, duplicates, odd types, garbage lines, blank and
whitespace-only lines, CR line ends and (sometimes) undecodable bytes; both adapters read the same
file and must agree on status, reason, damage counts, calls, result pairing and the last timestamp.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tests.conftest import examples
from wslmcp.boundaries.client_files import LocalClientFiles
from wslmcp.profile.transcripts import claude, codex
from wslmcp.profile.transcripts.jsonl import parse_timestamp

mcp_top_claude = pytest.importorskip("mcp_top.adapters.claude_code")
mcp_top_codex = pytest.importorskip("mcp_top.adapters.codex")

FILES = LocalClientFiles()
ids = st.sampled_from(["t1", "t2", "t3", None, 7])
names = st.sampled_from(["mcp__a__x", "mcp__a__b__y", "mcp__x", "Read", "mcp____z", None])
stamps = st.sampled_from(
    ["2026-01-10T10:00:00Z", "2026-01-10T12:00:00+02:00", "2026-01-09 08:00:00", "nope", 5, None]
)
contents = st.sampled_from(
    [
        "text",
        "h\u00e9llo",
        "\ud800",
        None,
        {"o": 1},
        [{"type": "text", "text": "ab"}],
        [{"type": "image"}],
        [{"type": "text", "text": "ab"}, {"type": "image"}],
    ]
)


@st.composite
def claude_record(draw: st.DrawFn) -> Any:
    kind = draw(st.sampled_from(["assistant", "user", "other"]))
    record: dict[str, Any] = {"type": kind, "timestamp": draw(stamps)}
    version = draw(st.sampled_from(["2.1.0", "2.0", "1.9", 3, None, "absent", "absent"]))
    if version != "absent":
        record["version"] = version
    if kind == "assistant":
        blocks = [
            {"type": "tool_use", "id": draw(ids), "name": draw(names)} for _ in range(draw(st.integers(0, 3)))
        ]
        record["message"] = {"content": blocks}
        record["isSidechain"] = draw(st.booleans())
    elif kind == "user":
        record["message"] = {
            "content": [{"type": "tool_result", "tool_use_id": draw(ids), "content": draw(contents)}]
        }
    return record


@st.composite
def codex_record(draw: st.DrawFn) -> Any:
    kind = draw(st.sampled_from(["session_meta", "response_item", "response_item", "event_msg"]))
    if kind == "session_meta":
        payload: Any = {
            "cwd": draw(st.sampled_from(["/w/p/", "", None, "/w/./q"])),
            "cli_version": draw(st.sampled_from(["1", 2])),
        }
    else:
        item = draw(st.sampled_from(["function_call", "custom_tool_call", "function_call_output"]))
        payload = {"type": item, "call_id": draw(ids)}
        if item == "function_call_output":
            payload["output"] = draw(st.sampled_from(["out", "\ud800", {"x": 1}, None]))
        else:
            payload["name"] = draw(st.sampled_from(["look", None, 5]))
            payload["namespace"] = draw(st.sampled_from(["mcp__srv", "mcp__", "collaboration", None]))
    if draw(st.integers(0, 9)) == 0:
        payload = "not a dict"
    return {"timestamp": draw(stamps), "type": kind, "payload": payload}


def lines(record: st.SearchStrategy[Any]) -> st.SearchStrategy[bytes]:
    line = st.one_of(
        record.map(lambda r: json.dumps(r).encode()),
        record.map(lambda r: json.dumps(r).encode()),
        st.sampled_from([b"", b"   ", b"{broken", b"[1, 2]", b"\xc2\xa0", b'"str"', b"\xff"]),
    )
    ending = st.sampled_from([b"\n", b"\n", b"\r\n", b"\r"])
    return st.lists(st.tuples(line, ending), max_size=14).map(lambda parts: b"".join(a + b for a, b in parts))


def calls_of(calls: list[Any]) -> list[tuple[Any, ...]]:
    return [(c.raw, c.kind, c.server, c.tool, c.sidechain, c.result_kind, c.result_bytes) for c in calls]


def last(value: Any) -> Any:
    return None if value is None else parse_timestamp(value)


@settings(
    max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=lines(claude_record()))
def test_claude_adapter_agrees_with_mcp_top(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / ".claude" / "projects" / "slug" / "s.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    ours = claude.parse(FILES, str(path), str(tmp_path), ["a", "a__b"])
    theirs = mcp_top_claude.parse_session(str(path), {"a", "a__b"})
    event(f"{theirs.status}: {str(theirs.skip_reason)[:24]}")
    assert (ours.status, ours.skip_reason) == (theirs.status, theirs.skip_reason)
    if theirs.status == "parsed":
        assert (ours.bad_lines, ours.duplicate_tool_use, ours.unpaired_results) == (
            theirs.bad_lines,
            theirs.duplicate_tool_use,
            theirs.unpaired_results,
        )
        assert calls_of(ours.calls) == calls_of(theirs.tool_calls)
        assert ours.last_ts == last(theirs.last_ts)


@settings(
    max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=lines(codex_record()))
def test_codex_adapter_agrees_with_mcp_top(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / ".codex" / "sessions" / "rollout-x.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    ours = codex.parse(FILES, str(path))
    theirs = mcp_top_codex.parse_session(str(path), set())
    event(f"{theirs.status}: {str(theirs.skip_reason)[:24]}")
    assert (ours.status, ours.skip_reason) == (theirs.status, theirs.skip_reason)
    if theirs.status == "parsed":
        assert (ours.bad_lines, ours.duplicate_tool_use, ours.unpaired_results, ours.project) == (
            theirs.bad_lines,
            theirs.duplicate_tool_use,
            theirs.unpaired_results,
            theirs.project,
        )
        assert calls_of(ours.calls) == calls_of(theirs.tool_calls)
        assert ours.last_ts == last(theirs.last_ts)


@pytest.mark.parametrize("size", [100, 8190, 8191, 8194, 16383, 70000])
@pytest.mark.parametrize("bad", [b"\xff", b"\xe2\x82", b"\xe2\x82\xac\xff", b"\xf0\x9f\x9a"])
@pytest.mark.parametrize("tail", [b"\n", b""])
def test_decode_error_text_matches_across_chunk_boundaries(
    tmp_path: Path, size: int, bad: bytes, tail: bytes
) -> None:
    line = b'{"type":"user","version":"2.1.0"}\n'
    body = (line * (size // len(line) + 1))[:size]
    body = body[: body.rfind(b"\n") + 1]
    path = tmp_path / ".claude" / "projects" / "slug" / "s.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(body + b"x" * (size - len(body)) + bad + tail)
    ours = claude.parse(FILES, str(path), str(tmp_path), [])
    assert ours.skip_reason is not None and ours.skip_reason.startswith(
        "unreadable: 'utf-8' codec can't decode"
    )
    assert ours.skip_reason == mcp_top_claude.parse_session(str(path)).skip_reason


def _same_reading(path: Path, ours: Any) -> None:
    """``wslmcp eval`` reads the file as the profiler does: readable or not alike, and the same calls
    (a subagent's aside) with the same attribution, in order."""
    from wslmcp.evals import extract
    from wslmcp.evals.trace import TraceError

    try:
        trace = extract.read(FILES, str(path), ["a", "a__b"])
    except TraceError:
        assert ours.status == "skipped"
        return
    assert ours.status == "parsed"
    assert [(c.server, c.tool or c.raw) for c in ours.calls if not c.sidechain] == [
        (c.server, c.tool) for c in trace.calls
    ]


@settings(
    max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=lines(claude_record()))
def test_the_eval_reads_a_claude_transcript_as_the_profiler_does(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / ".claude" / "projects" / "slug" / "s.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    _same_reading(path, claude.parse(FILES, str(path), str(tmp_path), ["a", "a__b"]))


@settings(
    max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=lines(codex_record()))
def test_the_eval_reads_a_codex_rollout_as_the_profiler_does(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / ".codex" / "sessions" / "rollout-x.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    _same_reading(path, codex.parse(FILES, str(path)))
