"""A miss is never the agent's fault: a call the scenario cannot answer makes the run
``unreplayable`` (its own verdict and exit code 4, naming the call and what was missing), never a
failed check; the replaying servers' logs stay off the user's stderr unless ``-v``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.replay.loop import clean_env, wslmcp

pytestmark = pytest.mark.skipif(not Path("/proc/stat").is_file(), reason="records this machine's /proc")


def _trace(path: Path, calls: list[tuple[str, str, dict[str, object]]], answer: str) -> Path:
    lines = [{"schema": "wslmcp-trace/1", "source": {}}, {"type": "user", "text": "How busy is the host?"}]
    lines += [
        {"type": "call", "n": n, "server": server, "tool": tool, "arguments": arguments}
        for n, (server, tool, arguments) in enumerate(calls, start=1)
    ]
    lines.append({"type": "assistant", "text": answer})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("loop") / "rec"
    done = wslmcp("scenario", "record", "--out", str(out), "--duration", "1", "--interval-ms", "500",
                  env=clean_env())  # fmt: skip
    assert done.returncode == 0, done.stderr
    return out


def test_a_call_the_scenario_cannot_answer_makes_the_run_unreplayable(recorded: Path, tmp_path: Path) -> None:
    fresh = ("observe", "get_system_summary", {"max_age_ms": 0})
    trace = _trace(tmp_path / "t.jsonl", [fresh, fresh, fresh], "The host is mostly idle, it may be fine.")
    done = wslmcp("eval", "run", str(trace), "--scenario", str(recorded), "--json", str(tmp_path / "r.json"))
    assert done.returncode == 4, done.stdout + done.stderr
    assert "UNREPLAYABLE" in done.stdout and not re.search(r"\bFAIL\b", done.stdout)
    assert (
        "call 3 get_system_summary: unreplayable: replay miss: procfs replay of scenario 'rec'" in done.stdout
    )
    assert "a /proc sample at t=1500 ms" in done.stdout
    assert "1 unreplayable" in done.stdout
    graded = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    trace_report = graded["traces"][0]
    assert trace_report["verdict"] == "unreplayable" and trace_report["unreplayable"] == [3]
    assert graded["summary"]["unreplayable"] == 1
    assert done.stderr == ""
    good = _trace(tmp_path / "ok.jsonl", [fresh], "The host is mostly idle, it may be fine.")
    assert wslmcp("eval", "run", str(good), "--scenario", str(recorded)).returncode == 0


def test_the_replaying_servers_logs_reach_stderr_only_with_v(recorded: Path, tmp_path: Path) -> None:
    # a shell session graded against a scenario that holds no shell configuration: the replaying
    # shell server says it has no distro (log lines on its stderr)
    trace = _trace(tmp_path / "t.jsonl", [("wsl", "wsl_exec", {"command": "true"})], "Done.")
    quiet = wslmcp("eval", "run", str(trace), "--scenario", str(recorded), "--server", "wsl=shell")
    assert quiet.stderr == "", quiet.stderr
    loud = wslmcp("eval", "run", str(trace), "--scenario", str(recorded), "--server", "wsl=shell", "-v")
    assert "no distro is registered" in loud.stderr
    assert quiet.returncode == loud.returncode
