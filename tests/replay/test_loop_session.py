"""Record what a session will ask: ``wslmcp scenario record --from-session TRANSCRIPT`` replays an
agent session's observe and shell calls against this host (a Claude Code transcript and a Codex
rollout, each made against the live servers, read by the client's one reader), so that ``wslmcp eval
run TRANSCRIPT --scenario DIR`` grades it with no replay miss; a call that changes the host is sent
only with ``--allow-writes DIR`` and only when it writes inside DIR, and the recording says which it
skipped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.replay.loop import clean_env, wslmcp
from tests.replay.sessions import TOP_CPU, live_session, write
from wslmcp.scenario.loader import Scenario

pytestmark = pytest.mark.skipif(not Path("/proc/stat").is_file(), reason="records this machine's /proc")


def _grade(transcript: Path, scenario: Path, tmp_path: Path) -> tuple[int, dict[str, object], str]:
    done = wslmcp(
        "eval", "run", str(transcript), "--scenario", str(scenario), "--json", str(tmp_path / "r.json")
    )
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["traces"][0]
    return done.returncode, report, done.stdout + done.stderr


def test_a_claude_code_session_recorded_from_grades_with_no_miss(tmp_path: Path) -> None:
    events = live_session(*TOP_CPU, clean_env())
    transcript = write(events, "claude", tmp_path / "projects" / "-home-dev-app" / "0b7d6c4e-loop.jsonl")
    done = wslmcp("scenario", "record", "--from-session", str(transcript), "--out", str(tmp_path / "rec"),
                  env=clean_env())  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"recorded 3 calls of {transcript} (observe: 3) into ")
    scenario = Scenario.load(tmp_path / "rec")
    args = scenario.section("observe")["args"]
    window = events[1]["result"]["structured"]["snapshot"]["sample_window_ms"]
    interval = int(args[args.index("--interval-ms") + 1])  # the session's own, read from its answers
    assert 100 <= interval <= window < 3000  # not the default: the live server sampled every 500 ms
    session = scenario.section("eval")["session"]
    assert [(c["n"], c["tool"], "answer" in c) for c in session["calls"]] == [
        (1, "get_system_summary", True), (2, "list_resources", True), (3, "inspect_resource", True),
    ]  # fmt: skip
    code, report, said = _grade(transcript, tmp_path / "rec", tmp_path)
    assert code == 0, said
    assert report["verdict"] == "pass" and report["unreplayable"] == []
    assert report["source_format"] == "claude-code"


def test_calls_that_change_the_host_are_sent_only_inside_allow_writes(tmp_path: Path) -> None:
    work, outside = tmp_path / "work", tmp_path / "outside"
    work.mkdir()
    outside.mkdir()
    env = clean_env(WSL_DISTRO="local", WSLMCP_SHELL_TRANSPORT="local", HOME=str(work),
                    WSL_ALLOWED_PATHS=f"{work},{outside}", WSL_SANDBOX="off")  # fmt: skip
    steps = [
        ("wsl", "wsl_connect", {"cwd": str(work)}),
        ("wsl", "wsl_write_file", {"path": f"{work}/note.txt", "content": "hello\n"}),
        ("wsl", "wsl_exec", {"session": "{{session}}", "command": "cat note.txt; ls"}),
        ("wsl", "wsl_exec", {"command": f"echo x > {outside}/other.txt"}),
    ]
    events = live_session(steps, "Write a note and show it.", "The note says hello.", env)
    transcript = write(events, "codex", tmp_path / "rollout-loop.jsonl")
    written = [work / "note.txt", outside / "other.txt"]
    assert all(p.exists() for p in written)  # the session wrote both: recording it again would too
    for p in written:
        p.unlink()
    plain = wslmcp(
        "scenario", "record", "--from-session", str(transcript), "--out", str(tmp_path / "rec"), env=env
    )
    assert plain.returncode == 0, plain.stderr
    assert f"skipped call 2: changes the host: writes {work}/note.txt" in plain.stdout
    assert f"skipped call 4: changes the host: writes {outside}/other.txt" in plain.stdout
    assert not any(p.exists() for p in written)
    code, report, said = _grade(transcript, tmp_path / "rec", tmp_path)
    assert code == 4 and report["unreplayable"] == [2, 4], said
    assert "the scenario's recording did not send it (changes the host: writes" in said
    allowed = wslmcp("scenario", "record", "--from-session", str(transcript), "--out", str(tmp_path / "rec-w"),
                     "--allow-writes", str(work), env=env)  # fmt: skip
    assert allowed.returncode == 0, allowed.stderr
    assert (work / "note.txt").read_text() == "hello\n" and not (outside / "other.txt").exists()
    assert f"skipped call 4: changes the host outside {work}: writes {outside}/other.txt" in allowed.stdout
    code, report, said = _grade(transcript, tmp_path / "rec-w", tmp_path)
    assert code == 4 and report["unreplayable"] == [4], said
    checked = wslmcp("scenario", "replay", str(tmp_path / "rec-w"), env=clean_env())
    assert checked.returncode == 0 and "shell-exchanges" in checked.stdout, checked.stdout


def test_a_session_without_wslmcp_calls_is_refused(tmp_path: Path) -> None:
    trace = tmp_path / "t.jsonl"
    trace.write_text(
        '{"schema":"wslmcp-trace/1","source":{}}\n{"type":"user","text":"hi"}\n'
        '{"type":"call","n":1,"server":null,"tool":"Bash","arguments":{"command":"ls"}}\n',
        encoding="utf-8",
    )
    done = wslmcp("scenario", "record", "--from-session", str(trace), "--out", str(tmp_path / "rec"))
    assert done.returncode == 1 and "makes no call to a wslmcp server" in done.stderr
    assert not (tmp_path / "rec").exists()
