"""``wslmcp scenario record --area shell`` round trip: a session of tool calls recorded through the
product command against the wsl.exe stand-in, then ``wslmcp scenario replay`` serves the same calls
from the recorded exchanges and every reply equals the recorded one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.shell.conftest import survivors
from tests.shell.standin import make_wsl_standin
from wslmcp.scenario.loader import Scenario


def _run(args: list[str], env: dict[str, str], command: str = "scenario") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "wslmcp", command, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )


async def test_a_recorded_shell_session_replays_equal(tmp_path: Path) -> None:
    sandbox = tmp_path / "sandbox"
    sandbox.mkdir()
    standin = make_wsl_standin(tmp_path / "standin", {"Ubuntu": "Running", "Debian": "Stopped"})
    calls = [
        {"tool": "wsl_list_hosts", "args": {}},
        {"tool": "wsl_connect", "args": {"cwd": str(sandbox)}},
        {"tool": "wsl_exec", "args": {"session": "Ubuntu#1", "command": "mkdir -p app && cd app && echo hi"}},
        {"tool": "wsl_list_sessions", "args": {}, "advance_s": 42},
        {"tool": "wsl_write_file", "args": {"path": f"{sandbox}/app/n.txt", "content": "line $HOME\n"}},
        {"tool": "wsl_read_file", "args": {"path": f"{sandbox}/app/n.txt"}},
        {"tool": "wsl_list_dir", "args": {"path": f"{sandbox}/app"}},
        {"tool": "wsl_exec", "args": {"command": "rm -rf /"}},
        {"tool": "wsl_exec", "args": {"command": "sleep 31.4159 & sleep 31.4158", "timeoutMs": 4000}},
        {"tool": "wsl_disconnect", "args": {"session": "Ubuntu#1"}},
    ]
    (tmp_path / "calls.json").write_text(json.dumps(calls))
    clean = {k: v for k, v in os.environ.items() if not k.startswith("WSL")}
    env = {
        **clean,
        **standin.env(),
        "WSLMCP_WSL_EXE": standin.executable,
        "WSL_DISTRO": "Ubuntu",
        "WSL_USER": "dev",
        "WSL_ALLOWED_PATHS": str(sandbox),
        "WSL_EXEC_TIMEOUT_MS": "20000",
        "HOME": str(sandbox),  # login shells source no machine profile (pyenv, ...)
    }
    out = tmp_path / "scenarios" / "recorded-shell"
    out.parent.mkdir()
    rec = _run(["record", "--area", "shell", "--out", str(out), "--calls", str(tmp_path / "calls.json")], env)
    assert rec.returncode == 0, rec.stderr
    assert rec.stdout.strip() == f"recorded {len(calls)} tool calls (1 error replies) into {out}"
    assert await survivors("sleep 31.415") == []

    scenario = Scenario.load(out)  # the manifest loader validates every fixture format
    section = scenario.section("shell")
    recorded = {k: v for k, v in env.items() if k.startswith("WSL_")}
    # the defaults as it ran, written down: the sandbox, and when a person is asked
    assert section["env"] == {**recorded, "WSL_SANDBOX": "off", "WSL_APPROVALS": "ask"}
    assert [c["tool"] for c in section["calls"]] == [c["tool"] for c in calls]
    assert section["calls"][3]["advance_s"] == 42
    expected = [json.loads(scenario.file(c["expected"]).read_text()) for c in section["calls"]]
    assert expected[3]["text"].count("idle 42s") == 1  # the virtual clock moved on, as recorded
    assert "TIMED OUT after 4000ms" in expected[8]["text"]
    assert len(scenario.manifest["exchanges"]["wsl_exe"]) >= len(calls)

    # the replay runs on the recorded exchanges alone: no stand-in, no wsl.exe
    replay = _run(["replay", str(out.parent)], clean)
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert "recorded-shell           match     shell-exchanges" in replay.stdout
    assert f"{len(calls)} tool calls replayed, replies match (1 expected errors)" in replay.stdout


def test_record_refuses_bad_calls_and_an_existing_scenario(tmp_path: Path) -> None:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("WSL")}
    (tmp_path / "calls.json").write_text(json.dumps([{"args": {}}]))
    bad = _run(
        ["record", "--area", "shell", "--out", str(tmp_path / "x"), "--calls", str(tmp_path / "calls.json")],
        clean,
    )
    assert bad.returncode == 2 and "call 0 needs a 'tool' name" in bad.stderr
    missing = _run(["record", "--area", "shell", "--out", str(tmp_path / "x")], clean)
    assert missing.returncode == 2 and "needs --calls FILE" in missing.stderr
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "f").write_text("mine")
    (tmp_path / "calls.json").write_text(json.dumps([{"tool": "wsl_list_hosts"}]))
    taken = _run(
        [
            "record",
            "--area",
            "shell",
            "--out",
            str(tmp_path / "taken"),
            "--calls",
            str(tmp_path / "calls.json"),
        ],
        clean,
    )
    assert taken.returncode == 1 and "nothing was written" in taken.stderr
    assert [p.name for p in (tmp_path / "taken").iterdir()] == ["f"]
    assert not (tmp_path / "x").exists()


def test_a_recorded_profile_home_replays_equal(tmp_path: Path) -> None:
    """``--area profile``: a client home (the profile-configs fixture, its test servers installed
    where its configs name them) recorded with the answers of the servers it launches; the replay
    renders the same report from the recorded answers alone."""
    from tests.profile.homes import FIXTURE_HOME, copy_home

    home = copy_home("profile-configs", tmp_path / "home")
    out = tmp_path / "scenarios" / "recorded-profile"
    out.parent.mkdir()
    clean = {k: v for k, v in os.environ.items() if not k.startswith("WSL")}
    rec = _run(["record", "--area", "profile", "--home", str(home), "--out", str(out)], clean)
    assert rec.returncode == 0, rec.stderr
    first = rec.stdout.splitlines()[0]
    assert first.startswith(f"recorded {home} with ") and f"into {out}; took " in first
    scenario = Scenario.load(out)
    assert scenario.section("home")["path"] == FIXTURE_HOME
    assert scenario.section("profile")["project"] == f"{FIXTURE_HOME}/proj"
    recorded = (out / "answers.json").read_text()
    assert (
        str(tmp_path) not in recorded
        and str(tmp_path) not in (out / "expected" / "query-project.txt").read_text()
    )
    replay = _run(["replay", str(out.parent)], clean)
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert "recorded-profile         match     profile-report" in replay.stdout
    # record then replay equals the live run: the report from the live home and its live servers
    live = _run(["--home", str(home), "--project", str(home / "proj"), "--query-project"], clean, "profile")
    replayed = (out / "expected" / "query-project.txt").read_text()
    assert live.stdout.replace(str(home), FIXTURE_HOME) == replayed
