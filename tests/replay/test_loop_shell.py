"""A shell session recorded over the local transport (this machine's bash: no wsl.exe to record)
replays with ``wslmcp shell --replay DIR`` alone, every reply as recorded; a recording whose
transport cannot start is refused before anything is written, naming what to set."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import SCENARIOS
from tests.replay.loop import clean_env, replay_calls, wslmcp
from wslmcp.scenario.loader import Scenario
from wslmcp.scenario.sections import shell_env


def _calls(work: Path) -> list[dict[str, object]]:
    return [
        {"tool": "wsl_list_hosts", "args": {}},
        {"tool": "wsl_exec", "args": {"command": f"mkdir -p {work}/app && cd {work}/app && echo built; pwd"}},
        {"tool": "wsl_write_file", "args": {"path": f"{work}/app/notes.txt", "content": "one\ntwo\n"}},
        {"tool": "wsl_read_file", "args": {"path": f"{work}/app/notes.txt"}},
        {
            "tool": "wsl_edit_file",
            "args": {"path": f"{work}/app/notes.txt", "edits": [{"oldText": "two", "newText": "2"}]},
        },
        {"tool": "wsl_list_dir", "args": {"path": f"{work}/app"}},
        {"tool": "wsl_exec", "args": {"command": "echo to-stderr >&2; exit 3"}},
        {"tool": "wsl_exec", "args": {"command": "sleep 31.7; echo late", "timeoutMs": 1000}},
        {"tool": "wsl_exec", "args": {"command": "rm -rf /"}},
    ]


def _env(work: Path, **extra: str) -> dict[str, str]:
    base = {
        "WSL_DISTRO": "local",
        "WSL_ALLOWED_PATHS": str(work),
        "WSL_EXEC_TIMEOUT_MS": "20000",
        "HOME": str(work),  # a login shell reads no profile of this machine
    }
    return clean_env(**{**base, **extra})


@pytest.mark.parametrize("sandbox", ["off", "on"])
def test_a_session_recorded_over_the_local_transport_replays_as_recorded(
    tmp_path: Path, sandbox: str
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    calls = _calls(work)
    (tmp_path / "calls.json").write_text(json.dumps(calls), encoding="utf-8")
    out = tmp_path / "rec"
    env = _env(work, WSLMCP_SHELL_TRANSPORT="local", WSL_SANDBOX=sandbox)
    done = wslmcp("scenario", "record", "--area", "shell", "--out", str(out),
                  "--calls", str(tmp_path / "calls.json"), env=env)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "recorded 9 tool calls (" in done.stdout
    manifest = Scenario.load(out).manifest
    assert manifest["shell"]["transport"]["kind"] == "local"
    assert manifest["shell"]["env"]["WSL_SANDBOX"] == sandbox  # the replay runs as recorded
    expected = [
        json.loads((out / c["expected"]).read_text(encoding="utf-8")) for c in manifest["shell"]["calls"]
    ]
    assert "transport: local" in expected[0]["text"] and "Refused" in expected[-1]["text"]
    if sandbox == "off":
        assert "built" in expected[1]["text"] and not expected[3]["is_error"]
        assert (
            " sleep" in expected[7]["text"]
        )  # the killed processes, named as the local transport names them
    # replayed anywhere: none of the recording's environment, no file of it left behind
    (work / "app" / "notes.txt").unlink(missing_ok=True)
    answers, _ = replay_calls("shell", out, [(c["tool"], c["args"]) for c in calls], env=clean_env())
    for answer, want in zip(answers, expected, strict=True):
        result = answer["result"]
        assert (result.get("isError", False), result["content"][0]["text"]) == (
            want["is_error"],
            want["text"],
        )
    assert not (work / "app" / "notes.txt").exists()  # nothing ran: every reply came from the recording
    checked = wslmcp("scenario", "replay", str(out), env=clean_env())
    assert checked.returncode == 0, checked.stdout


def test_a_transport_that_cannot_start_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (tmp_path / "calls.json").write_text(json.dumps(_calls(work)), encoding="utf-8")
    out = tmp_path / "scenarios" / "rec"
    out.parent.mkdir()
    env = _env(work, WSL_DISTRO="Ubuntu", WSLMCP_WSL_EXE=str(tmp_path / "no-such-wsl.exe"))
    done = wslmcp("scenario", "record", "--area", "shell", "--out", str(out),
                  "--calls", str(tmp_path / "calls.json"), env=env)  # fmt: skip
    assert done.returncode == 1, done.stdout
    for named in ("WSLMCP_WSL_EXE", "WSLMCP_SHELL_TRANSPORT=local", "'Ubuntu'"):
        assert named in done.stderr, done.stderr
    assert "nothing was written" in done.stderr
    assert list(out.parent.iterdir()) == [] and list(work.iterdir()) == []
    unset = wslmcp("scenario", "record", "--area", "shell", "--out", str(out),
                   "--calls", str(tmp_path / "calls.json"), env={**env, "WSL_DISTRO": ""})  # fmt: skip
    assert unset.returncode == 1 and "WSL_DISTRO" in unset.stderr
    assert list(out.parent.iterdir()) == []


def test_a_shell_recording_that_predates_stating_its_sandbox_replays_without_one() -> None:
    basic = Scenario.load(SCENARIOS / "shell-basic")
    assert "WSL_SANDBOX" not in basic.manifest["shell"]["env"]  # recorded when the sandbox was off by default
    assert shell_env(basic)["WSL_SANDBOX"] == "off"
