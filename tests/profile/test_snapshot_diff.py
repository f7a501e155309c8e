"""§13-14: snapshots (allowlist, redaction) and diffs (strict loading, incomparable windows)."""

from __future__ import annotations

import copy
import hashlib
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from wslmcp.boundaries.client_files import LocalClientFiles
from wslmcp.profile import diff, snapshot
from wslmcp.profile.engine import Report, build_cli_report
from wslmcp.profile.model import CliDiscovery, ConfiguredServer, QueryResult
from wslmcp.profile.snapshot import Snapshot
from wslmcp.profile.transcripts.model import ToolCall, Transcript
from wslmcp.profile.usage_windows import count_usage

NOW = datetime(2026, 1, 15, tzinfo=UTC)


def built(report: Report, when: datetime, *, sessions: int, days: int, redact: bool) -> dict[str, Any]:
    """The snapshot's JSON form (what ``wslmcp profile snapshot`` writes)."""
    return snapshot.build(report, when, sessions=sessions, days=days, redact=redact).to_json()


def sample_report(calls: int = 2) -> Report:
    srv = ConfiguredServer(
        "claude-code", "zeta", "user", "/secret/path/.claude.json", "stdio", command="cmd", env={"K": "v"}
    )
    other = ConfiguredServer("claude-code", "alpha", "user", "/secret/path/.claude.json", "stdio")
    found = CliDiscovery("claude-code", (srv, other), warnings=("could not parse /secret/x",))
    results = {srv.key: QueryResult("claude-code", "zeta", "ok", tools=({"name": "t", "description": "d"},))}
    tool_calls = [ToolCall("mcp__zeta__t", "mcp", "zeta", "t", result_kind="paired", result_bytes=9)] * calls
    tool_calls += [ToolCall("mcp__zeta__u", "mcp", "zeta", "u")]
    window = count_usage(
        [Transcript("/t", "parsed", calls=tool_calls, last_ts=NOW, project="p")],
        ["g"],
        sessions=30,
        days=30,
        now=NOW,
    )
    return Report([build_cli_report(found, results, [], window, warnings=list(found.warnings))])


def test_snapshot_is_an_allowlist_sorted_by_name() -> None:
    doc = built(sample_report(), NOW, sessions=30, days=30, redact=False)
    text = json.dumps(doc)
    assert "/secret" not in text and "cmd" not in text and "could not parse" not in text
    (cli,) = doc["clis"]
    assert [s["server"] for s in cli["servers"]] == ["alpha", "zeta"]
    assert cli["servers"][1]["called_tools"] == {"t": 2, "u": 1}
    assert doc["generated_at"] == "2026-01-15T00:00:00+00:00"
    assert cli["window"] == {
        "sessions": 30,
        "days": 30,
        "sessions_considered": 1,
        "project_filter_active": False,
    }


def test_redaction_uses_unsalted_sha256_pseudonyms_and_sums_collisions() -> None:
    doc = built(sample_report(), NOW, sessions=30, days=30, redact=True)
    names = [s["server"] for s in doc["clis"][0]["servers"]]
    digest = hashlib.sha256(b"zeta").hexdigest()[:12]
    assert f"srv_{digest}" in names and "zeta" not in json.dumps(doc)
    assert doc["identifiers_redacted"] is True
    tools = doc["clis"][0]["servers"][names.index(f"srv_{digest}")]["called_tools"]
    assert tools == {
        f"tool_{hashlib.sha256(b't').hexdigest()[:12]}": 2,
        f"tool_{hashlib.sha256(b'u').hexdigest()[:12]}": 1,
    }


def write(tmp_path: Path, name: str, doc: Any) -> str:
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    return str(path)


def test_diff_of_identical_windows_gives_deltas() -> None:
    old = built(sample_report(2), NOW, sessions=30, days=30, redact=False)
    new = built(sample_report(5), NOW, sessions=30, days=30, redact=False)
    got = diff.diff(Snapshot.read(old), Snapshot.read(new))
    (cli,) = got["clis"]
    (changed,) = cli["changed"]
    assert changed["calls"] == {"old": 3, "new": 6, "delta": 3}
    assert changed["verdict"] == {"old": "review", "new": "keep"}
    assert changed["recorded_result_total_tokens"]["estimated"] is True
    assert cli["unchanged"] == 1 and cli["window"] is None and cli["sessions_considered"] is None


def test_diff_of_incomparable_windows_marks_usage_incomparable() -> None:
    old = built(sample_report(2), NOW, sessions=30, days=30, redact=False)
    new = copy.deepcopy(built(sample_report(5), NOW, sessions=30, days=30, redact=False))
    new["clis"][0]["window"]["days"] = 7
    got = diff.diff(Snapshot.read(old), Snapshot.read(new))
    changed = got["clis"][0]["changed"][0]
    assert changed["calls"] == {
        "old": 3,
        "new": 6,
        "incomparable": True,
        "reason": "population/scope differs",
    }
    assert changed["recorded_result_total_tokens"]["incomparable"] is True
    assert got["clis"][0]["window"]["new"]["days"] == 7
    human = diff.render(got)
    assert "  window: 30 session(s), 30 day(s), home-wide -> 30 session(s), 7 day(s), home-wide" in human
    assert "      calls: 3 -> 6 (population/scope differs)" in human


def test_both_project_filtered_windows_are_incomparable() -> None:
    old = built(sample_report(2), NOW, sessions=30, days=30, redact=False)
    old["clis"][0]["window"]["project_filter_active"] = True
    new = copy.deepcopy(old)
    new["clis"][0]["servers"][1]["calls"] = 9
    assert (
        diff.diff(Snapshot.read(old), Snapshot.read(new))["clis"][0]["changed"][0]["calls"]["incomparable"]
        is True
    )


def test_added_removed_and_missing_cli(tmp_path: Path) -> None:
    old = built(sample_report(), NOW, sessions=30, days=30, redact=False)
    new = copy.deepcopy(old)
    new["clis"][0]["servers"].pop(0)
    new["clis"].append({**copy.deepcopy(old["clis"][0]), "cli": "codex"})
    got = diff.diff(Snapshot.read(old), Snapshot.read(new))
    assert [c["cli"] for c in got["clis"]] == ["claude-code", "codex"]
    assert got["clis"][0]["removed"] == ["alpha"]
    assert got["clis"][1]["added"] == ["alpha", "zeta"] and got["clis"][1]["window"] is None


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.pop("clis"), "snapshot.clis is required"),
        (lambda d: d.update(extra=1), "snapshot.extra is not allowed"),
        (lambda d: d.update(schema="mcp-top-snapshot/v2"), "schema must be mcp-top-snapshot/v1"),
        (lambda d: d["clis"][0]["window"].update(sessions=0), "clis[0].window.sessions is out of range"),
        (lambda d: d["clis"][0]["window"].update(days=True), "clis[0].window.days must be an integer"),
        (lambda d: d["clis"][0]["servers"][0].update(calls=-1), "clis[0].servers[0].calls is out of range"),
        (
            lambda d: d["clis"][0]["servers"][0]["advertised_max_tokens"].update(source_path="/x"),
            "clis[0].servers[0].advertised_max_tokens.source_path is not allowed",
        ),
        (lambda d: d["clis"].append(d["clis"][0]), "clis has duplicate cli name"),
        (lambda d: d.update(generated_at=""), "generated_at must be nonempty"),
    ],
)
def test_strict_loading(tmp_path: Path, mutate: Any, message: str) -> None:
    doc = built(sample_report(), NOW, sessions=30, days=30, redact=False)
    doc["clis"][0]["servers"][0]["advertised_max_tokens"] = {"value": 1, "exact": False}
    mutate(doc)
    path = write(tmp_path, "s.json", doc)
    with pytest.raises(diff.DiffInputError) as err:
        diff.load(LocalClientFiles(), path)
    assert str(err.value) == f"{path}: {message}"


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (None, "file not found"),
        ("{", "invalid JSON"),
        (b"\xff", "invalid UTF-8"),
        ("[]", "snapshot must be a JSON object"),
    ],
)
def test_loader_file_errors(tmp_path: Path, content: str | bytes | None, reason: str) -> None:
    path = tmp_path / "s.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(diff.DiffInputError, match=reason):
        diff.load(LocalClientFiles(), str(path))


def test_a_snapshot_reads_back_as_the_value_it_was_written_from() -> None:
    made = snapshot.build(sample_report(), NOW, sessions=30, days=30, redact=False)
    assert Snapshot.read(json.loads(json.dumps(made.to_json()))) == made


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (
            lambda d: d["clis"][0]["servers"][1]["called_tools"].update(t=-1),
            "servers[1].called_tools.* is out of range",
        ),
        (lambda d: d["clis"][0].update(servers={}), "clis[0].servers must be a list"),
        (lambda d: d["clis"][0].update(recorded_results=[]), "clis[0].recorded_results must be an object"),
        (lambda d: d.update(identifiers_redacted=0), "identifiers_redacted must be a boolean"),
        (
            lambda d: d["clis"][0]["servers"][0].update(verdict=None),
            "clis[0].servers[0].verdict must be a string",
        ),
        (
            lambda d: d["clis"][0]["servers"].append(d["clis"][0]["servers"][0]),
            "servers has duplicate server name",
        ),
    ],
)
def test_every_field_is_read_by_its_type(mutate: Any, message: str) -> None:
    doc = built(sample_report(), NOW, sessions=30, days=30, redact=False)
    mutate(doc)
    with pytest.raises(snapshot.SnapshotError, match=message.replace("[", r"\[").replace("*", r"\*")):
        Snapshot.read(doc)
