"""§7: transcript reading rules (version gate, grouping keys, garbage tolerance, pairing)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from wslmcp.boundaries.client_files import LocalClientFiles
from wslmcp.profile.transcripts import claude, codex
from wslmcp.profile.transcripts.jsonl import parse_timestamp
from wslmcp.profile.transcripts.names import split_mcp_name

FILES = LocalClientFiles()
Make = Callable[[str, list[Any]], Path]


def use(tid: str, name: str, **extra: Any) -> dict[str, Any]:
    return {
        "type": "assistant",
        "version": "2.1.0",
        "timestamp": "2026-01-10T10:00:00Z",
        "message": {"content": [{"type": "tool_use", "id": tid, "name": name}]},
        **extra,
    }


def result(tid: str | None, content: Any) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "content": content}
    if tid is not None:
        block["tool_use_id"] = tid
    return {"type": "user", "version": "2.1.0", "message": {"content": [block]}}


def parse_claude(tmp_path: Path, path: Path, configured: tuple[str, ...] = ()) -> Any:
    return claude.parse(FILES, str(path), str(tmp_path), list(configured))


@pytest.mark.parametrize(
    ("versions", "reason"),
    [
        (["2.1.207"], None),
        (["2.0"], None),
        (["2.10-beta"], None),
        (["3.0.1"], 'unknown format version "3.0.1"'),
        (["1.9.0"], 'unknown format version "1.9.0"'),
        (["2."], 'unknown format version "2."'),
        (["2.1.0", "1.9.0"], 'unknown format version "1.9.0"'),
        ([], "no version marker found"),
        ([7], "malformed version marker"),
    ],
)
def test_claude_version_gate(tmp_path: Path, jsonl: Make, versions: list[Any], reason: str | None) -> None:
    lines: list[Any] = [{"type": "user", "version": v, "timestamp": "2026-01-10T10:00:00Z"} for v in versions]
    lines.append({"type": "user", "timestamp": "2026-01-10T10:00:00Z"})
    got = parse_claude(tmp_path, jsonl(".claude/projects/slug/s.jsonl", lines))
    assert got.skip_reason == reason
    assert got.status == ("parsed" if reason is None else "skipped")


def test_empty_file_has_no_version_marker(tmp_path: Path, jsonl: Make) -> None:
    assert (
        parse_claude(tmp_path, jsonl(".claude/projects/slug/s.jsonl", [])).skip_reason
        == "no version marker found"
    )


def test_bad_line_ratio_above_ten_percent_skips(tmp_path: Path, jsonl: Make) -> None:
    good = {"type": "user", "version": "2.1.0"}
    ten_percent = parse_claude(tmp_path, jsonl(".claude/projects/s/a.jsonl", [good] * 9 + ["{broken"]))
    assert ten_percent.parsed and ten_percent.bad_lines == 1
    over = parse_claude(tmp_path, jsonl(".claude/projects/s/b.jsonl", [good] * 8 + ["[]", "nope"]))
    assert over.skip_reason == "2 of 10 lines unparseable"


def test_garbage_lines_blank_lines_and_deep_nesting_are_tolerated(tmp_path: Path) -> None:
    path = tmp_path / ".claude/projects/s/a.jsonl"
    path.parent.mkdir(parents=True)
    good = '{"type":"user","version":"2.1.0"}\n'
    path.write_text(good * 20 + "\n   \n\xa0\n" + "[" * 100_000 + "\n" + "[1]\r\n", encoding="utf-8")
    got = parse_claude(tmp_path, path)
    assert got.parsed and got.bad_lines == 2


def test_lone_carriage_return_splits_lines_like_universal_newlines(tmp_path: Path) -> None:
    path = tmp_path / ".claude/projects/s/a.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(b'{"type":"user","version":"2.1.0"}\r{"type":"user","version":"2.1.0"}\r\n' * 5)
    got = parse_claude(tmp_path, path)
    assert got.parsed and got.bad_lines == 0


def test_invalid_utf8_makes_the_whole_file_unreadable(tmp_path: Path) -> None:
    path = tmp_path / ".claude/projects/s/a.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(b'{"type":"user","version":"2.1.0"}\n{"x":"\xff"}\n')
    got = parse_claude(tmp_path, path)
    assert (
        got.skip_reason
        == "unreadable: 'utf-8' codec can't decode byte 0xff in position 40: invalid start byte"
    )


def test_bom_is_a_bad_line_not_a_silent_pass(tmp_path: Path) -> None:
    path = tmp_path / ".claude/projects/s/a.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(
        b'\xef\xbb\xbf{"type":"user","version":"2.1.0"}\n' + b'{"type":"user","version":"2.1.0"}\n' * 9
    )
    assert parse_claude(tmp_path, path).bad_lines == 1


def test_naive_timestamps_are_utc_and_aware_ones_convert() -> None:
    assert parse_timestamp("2026-01-10T10:00:00") == datetime(2026, 1, 10, 10, tzinfo=UTC)
    assert parse_timestamp("2026-01-10T12:00:00+02:00") == datetime(2026, 1, 10, 10, tzinfo=UTC)
    assert parse_timestamp("2026-01-10T10:00:00Z") == datetime(2026, 1, 10, 10, tzinfo=UTC)
    assert parse_timestamp("2026-01-10") == datetime(2026, 1, 10, tzinfo=UTC)
    assert parse_timestamp("yesterday") is None


def test_a_timestamp_no_utc_datetime_can_hold_is_ignored_not_fatal(tmp_path: Path, jsonl: Make) -> None:
    assert parse_timestamp("0001-01-01T00:00:00+01:00") is None  # an hour before year one, in UTC
    assert parse_timestamp("9999-12-31T23:59:59-01:00") is None
    lines = [
        {"type": "user", "version": "2.1.0", "timestamp": "0001-01-01T00:00:00+01:00"},
        {"type": "user", "version": "2.1.0", "timestamp": "2026-01-10T11:00:00Z"},
    ]
    got = parse_claude(tmp_path, jsonl(".claude/projects/s/a.jsonl", lines))
    assert (got.status, got.last_ts) == ("parsed", datetime(2026, 1, 10, 11, tzinfo=UTC))


def test_last_timestamp_is_the_maximum_not_the_last_line(tmp_path: Path, jsonl: Make) -> None:
    lines = [
        {"type": "user", "version": "2.1.0", "timestamp": "2026-01-10T12:00:00+00:00"},
        {"type": "user", "version": "2.1.0", "timestamp": "2026-01-10T11:00:00"},
        {"type": "user", "version": "2.1.0", "timestamp": 5},
    ]
    got = parse_claude(tmp_path, jsonl(".claude/projects/s/a.jsonl", lines))
    assert got.last_ts == datetime(2026, 1, 10, 12, tzinfo=UTC)


def test_claude_discovery_skips_dot_names_and_files_directly_under_projects(
    tmp_path: Path, jsonl: Make
) -> None:
    line = [{"type": "user", "version": "2.1.0"}]
    jsonl(".claude/projects/stray.jsonl", line)
    jsonl(".claude/projects/s/.hidden.jsonl", line)
    jsonl(".claude/projects/s/.dir/x.jsonl", line)
    jsonl(".claude/projects/.dot/x.jsonl", line)
    keep = [
        jsonl(".claude/projects/s/a.jsonl", line),
        jsonl(".claude/projects/s/a/subagents/agent-1.jsonl", line),
    ]
    assert list(claude.find(FILES, str(tmp_path))) == sorted(str(p) for p in keep)


def test_subagents_group_with_their_parent_session(tmp_path: Path) -> None:
    home = str(tmp_path)
    root = f"{home}/.claude/projects"
    assert claude.session_key(f"{root}/slug/uuid.jsonl", home) == "slug/uuid"
    assert claude.session_key(f"{root}/slug/uuid/subagents/agent-x.jsonl", home) == "slug/uuid"
    assert claude.project_of(f"{root}/slug/uuid/subagents/agent-x.jsonl", home) == "slug"


def test_codex_sessions_are_keyed_by_file_name_and_need_rollout_prefix(tmp_path: Path, jsonl: Make) -> None:
    meta = [{"type": "session_meta", "payload": {}}]
    a = jsonl(".codex/sessions/2026/01/rollout-a.jsonl", meta)
    jsonl(".codex/sessions/2026/01/other.jsonl", meta)
    jsonl(".codex/sessions/.hidden/rollout-h.jsonl", meta)
    assert list(codex.find(FILES, str(tmp_path))) == [str(a)]
    assert codex.session_key(str(a)) == "rollout-a"


@pytest.mark.parametrize(
    ("name", "configured", "expected"),
    [
        ("mcp__a__b__c", ("a", "a__b"), ("a__b", "c")),
        ("mcp__a__b__c", (), ("a", "b__c")),
        ("mcp__x", (), None),
        ("mcp____x", (), None),
        ("Read", (), None),
    ],
)
def test_mcp_name_attribution(
    name: str, configured: tuple[str, ...], expected: tuple[str, str] | None
) -> None:
    assert split_mcp_name(name, sorted(configured, key=len, reverse=True)) == expected


def test_duplicate_tool_use_ids_are_excluded_and_their_results_unpaired(tmp_path: Path, jsonl: Make) -> None:
    lines = [use("t1", "mcp__s__a"), use("t1", "mcp__s__a"), result("t1", "out")]
    got = parse_claude(tmp_path, jsonl(".claude/projects/s/a.jsonl", lines))
    assert got.duplicate_tool_use == 1
    assert len(got.calls) == 1 and got.calls[0].result_kind is None
    assert got.unpaired_results == 1


def test_claude_nameless_tool_use_still_consumes_its_id(tmp_path: Path, jsonl: Make) -> None:
    nameless = {
        "type": "assistant",
        "version": "2.1.0",
        "message": {"content": [{"type": "tool_use", "id": "t1"}]},
    }
    got = parse_claude(tmp_path, jsonl(".claude/projects/s/a.jsonl", [nameless, use("t1", "Read")]))
    assert got.calls == [] and got.duplicate_tool_use == 1


@pytest.mark.parametrize(
    ("content", "kind", "size"),
    [
        ("héllo", "paired", 6),
        ([{"type": "text", "text": "ab"}, {"type": "text", "text": "c"}], "paired", 3),
        ([{"type": "text", "text": "ab"}, {"type": "image"}], "partial", 2),
        ([{"type": "image"}], "unsupported", 0),
        ({"structured": True}, "unsupported", 0),
        (None, "unsupported", 0),
        ("\ud800", "unmeasurable", 0),
        ([{"type": "text", "text": "\ud800"}], "unmeasurable", 0),
    ],
)
def test_claude_result_taxonomy(tmp_path: Path, jsonl: Make, content: Any, kind: str, size: int) -> None:
    got = parse_claude(
        tmp_path, jsonl(".claude/projects/s/a.jsonl", [use("t1", "mcp__s__a"), result("t1", content)])
    )
    assert (got.calls[0].result_kind, got.calls[0].result_bytes) == (kind, size)


def test_results_pair_by_id_regardless_of_order_and_second_results_are_unpaired(
    tmp_path: Path, jsonl: Make
) -> None:
    lines = [
        result("t1", "early"),
        use("t1", "mcp__s__a"),
        result("t1", "again"),
        result(None, "x"),
        result("zz", "y"),
    ]
    got = parse_claude(tmp_path, jsonl(".claude/projects/s/a.jsonl", lines))
    assert got.calls[0].result_bytes == 5
    assert got.unpaired_results == 3


def test_sidechain_flag_is_kept(tmp_path: Path, jsonl: Make) -> None:
    got = parse_claude(tmp_path, jsonl(".claude/projects/s/a.jsonl", [use("t1", "Read", isSidechain=True)]))
    assert got.calls[0].sidechain is True


def codex_item(payload: dict[str, Any], kind: str = "response_item") -> dict[str, Any]:
    return {"timestamp": "2026-01-10T10:00:00Z", "type": kind, "payload": payload}


def test_codex_admission_is_structural_without_version_gate(tmp_path: Path, jsonl: Make) -> None:
    meta = codex_item({"cli_version": "99.0", "cwd": "/work/./proj/"}, "session_meta")
    got = codex.parse(FILES, str(jsonl(".codex/sessions/rollout-a.jsonl", [meta])))
    assert got.parsed and got.project == "/work/proj"
    missing = codex.parse(FILES, str(jsonl(".codex/sessions/rollout-b.jsonl", [codex_item({})])))
    assert missing.skip_reason == "no session metadata found"


def test_codex_namespaces_and_call_ids(tmp_path: Path, jsonl: Make) -> None:
    lines = [
        codex_item({"cwd": ""}, "session_meta"),
        codex_item({"type": "function_call", "name": "look", "namespace": "mcp__srv", "call_id": "c1"}),
        codex_item({"type": "function_call", "name": "shell", "call_id": "c2"}),
        codex_item({"type": "custom_tool_call", "name": "x", "namespace": "mcp__", "call_id": "c3"}),
        codex_item({"type": "function_call", "name": "spawn", "namespace": "collaboration", "call_id": "c4"}),
        codex_item({"type": "function_call", "name": 5, "call_id": "c5"}),
        codex_item({"type": "function_call", "name": "again", "namespace": "mcp__srv", "call_id": "c5"}),
        codex_item({"type": "function_call_output", "call_id": "c1", "output": "four"}),
        codex_item({"type": "function_call_output", "call_id": "c2", "output": {"o": 1}}),
    ]
    got = codex.parse(FILES, str(jsonl(".codex/sessions/rollout-a.jsonl", lines)))
    kinds = [(c.kind, c.server, c.tool) for c in got.calls]
    assert kinds == [
        ("mcp", "srv", "look"),
        ("builtin", None, None),
        ("mcp-unattributed", None, None),
        ("builtin", None, None),
        ("mcp", "srv", "again"),  # a nameless call does not consume its id in Codex
    ]
    assert got.project is None  # an empty cwd is unattributed
    assert (got.calls[0].result_kind, got.calls[0].result_bytes) == ("paired", 4)
    assert got.calls[1].result_kind == "unsupported"
