"""The loop docs/scenarios.md opens with runs as written: its five commands are read from the doc
and run in a shell on this machine, after an agent's session was made against the live observe
server and kept where Claude Code keeps it; each output equals the one the doc shows, numbers
aside (they are this host's)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.replay.loop import clean_env
from tests.replay.sessions import TOP_CPU, live_session, write

pytestmark = pytest.mark.skipif(not Path("/proc/stat").is_file(), reason="records this machine's /proc")


def the_loop() -> list[tuple[str, list[str]]]:
    """The doc's first console block: each ``$ command`` with the output lines shown under it."""
    text = (REPO / "docs" / "scenarios.md").read_text(encoding="utf-8")
    block = re.search(r"## The loop in five commands\n.*?```console\n(.*?)```", text, re.DOTALL)
    assert block, "docs/scenarios.md does not open with the loop"
    steps: list[tuple[str, list[str]]] = []
    for line in block.group(1).splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        else:
            steps[-1][1].append(line)
    return steps


def _shape(lines: list[str]) -> list[str]:
    return [re.sub(r"\d+", "N", line.rstrip()) for line in lines]


def test_the_loop_in_the_doc_runs_as_written(tmp_path: Path) -> None:
    steps = the_loop()
    assert [command.split()[:3] for command, _ in steps] == [
        ["wslmcp", "scenario", "record"], ["wslmcp", "scenario", "replay"], ["wslmcp", "eval", "extract"],
        ["wslmcp", "scenario", "record"], ["wslmcp", "eval", "run"],
    ]  # fmt: skip
    home = tmp_path / "home"
    transcript = re.search(r"~/(\S+\.jsonl)", steps[2][0])
    assert transcript, "the capture step names no transcript under ~"
    events = live_session(*TOP_CPU, clean_env())
    write(events, "claude", home / transcript.group(1))
    bin_dir = Path(sys.executable).parent  # where the wslmcp command is installed
    env = clean_env(HOME=str(home), PATH=f"{bin_dir}:/usr/bin:/bin")
    work = tmp_path / "work"
    work.mkdir()
    for command, shown in steps:
        done = subprocess.run(["bash", "-c", command], cwd=work, env=env, capture_output=True, text=True,
                              timeout=300, stdin=subprocess.DEVNULL)  # fmt: skip
        assert done.returncode == 0, f"{command}: {done.stdout}{done.stderr}"
        assert _shape(done.stdout.splitlines()) == _shape(shown), command
        assert done.stderr == "", command
