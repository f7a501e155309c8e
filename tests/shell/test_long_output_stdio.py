"""Long output is not an error, over real stdio with the SDK client, with the sandbox off and on:
a command that writes far more than WSL_MAX_OUTPUT runs to its end, and the answer keeps the head
and the tail of each stream (cut at line ends) and counts what it left out; only a much larger
safety cap (WSL_OUTPUT_CAP_BYTES, named in the reply) stops a runaway writer, lines or not."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from tests.faults.rig import shell_env
from tests.shell.test_sandbox_dynamic import REASON as NO_SANDBOX


@pytest.fixture(params=["off", "on"])
def sandbox(request: pytest.FixtureRequest) -> str:
    if request.param == "on" and NO_SANDBOX is not None:
        pytest.skip(NO_SANDBOX)
    return str(request.param)


def _server(sandbox: str, tmp_path: Path, **env: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "wslmcp", "shell"],
        env=shell_env(tmp_path, WSL_SANDBOX=sandbox, **env),
        cwd=tmp_path,
    )


async def _exec(params: StdioServerParameters, command: str) -> tuple[str, dict[str, Any]]:
    async with Client(params) as client:
        result = await client.call_tool("wsl_exec", {"command": command})
    assert not result.is_error, result.content[0].text
    return str(result.content[0].text), dict(result.structured_content or {})


async def test_a_long_output_runs_to_its_end_and_keeps_its_head_and_tail(
    sandbox: str, tmp_path: Path
) -> None:
    text, data = await _exec(_server(sandbox, tmp_path), "seq 1 400000; echo done >&2; exit 3")
    total = sum(len(f"{n}\n") for n in range(1, 400001))  # 2.7 MB: past 4 x WSL_MAX_OUTPUT
    out = data["stdout"]
    assert (data["exitCode"], data["signal"], data["timedOut"], data["killed"]) == (3, None, False, [])
    assert out["bytes"] == total and out["totalChars"] == total
    assert out["droppedChars"] > 0 and out["droppedLines"] > 0
    head, _, tail = out["text"].partition("\n… ")
    shown = [int(n) for n in head.split()] + [int(n) for n in tail.split("\n", 1)[1].split()]
    assert shown[:3] == [1, 2, 3] and shown[-2:] == [399999, 400000]  # whole lines at both ends
    assert len(shown) + out["droppedLines"] == 400000
    assert sum(len(f"{n}\n") for n in shown) + out["droppedChars"] == total
    assert len(head) + len(tail) <= 100_000 + 200  # WSL_MAX_OUTPUT characters, and the gap's line
    assert data["stderr"]["text"] == "done\n"
    assert text.startswith("exit code: 3  ·")
    assert re.search(r"stdout: \d+ lines \(\d+ characters\) of \d+ left out", text), text[:300]
    assert "STOPPED" not in text


@pytest.mark.parametrize(
    "command",
    ["yes 'a line of output'", "cat /dev/zero"],  # lines, and bytes without a line end
)
async def test_a_runaway_writer_is_stopped_at_the_safety_cap_and_the_reply_names_it(
    sandbox: str, tmp_path: Path, command: str
) -> None:
    cap = 4 << 20
    text, data = await _exec(_server(sandbox, tmp_path, WSL_OUTPUT_CAP_BYTES=str(cap)), command)
    out = data["stdout"]
    assert (data["exitCode"], data["signal"], data["timedOut"]) == (137, 9, False), data
    assert out["bytes"] > cap and out["droppedChars"] > 0
    assert len(out["text"]) <= 100_000 + 200  # memory and the answer stay bounded
    assert text.startswith("exit code: 137 (killed by signal 9, SIGKILL)")
    assert f"STOPPED: stdout passed the safety cap of {cap} bytes (WSL_OUTPUT_CAP_BYTES)" in text
    assert data["killed"], data
