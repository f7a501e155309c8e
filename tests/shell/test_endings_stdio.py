"""How commands end, over real stdio with the SDK client, with the sandbox off and on: wsl_stop ends
the whole tree (KILL after the grace follows every process of the run, not the first one's exit),
lists only processes it signalled, each with its name, and a death by signal reads one way in every
tool: ``exitCode`` 128+N beside ``signal`` N, and the text says the same."""

from __future__ import annotations

import asyncio
import re
import secrets
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from tests.faults.rig import shell_env
from tests.shell.conftest import processes_with, survivors
from tests.shell.test_sandbox_dynamic import REASON as NO_SANDBOX


@pytest.fixture(params=["off", "on"])
def sandbox(request: pytest.FixtureRequest) -> str:
    if request.param == "on" and NO_SANDBOX is not None:
        pytest.skip(NO_SANDBOX)
    return str(request.param)


@pytest.fixture
def server(sandbox: str, tmp_path: Path) -> StdioServerParameters:
    env = shell_env(tmp_path, WSL_SANDBOX=sandbox, WSL_NAME="box")
    return StdioServerParameters(
        command=sys.executable, args=["-m", "wslmcp", "shell"], env=env, cwd=tmp_path
    )


def _says(text: str, code: int, signal: int) -> bool:
    return bool(re.search(rf"exit code:? {code}\b", text)) and f"signal {signal}," in text


def _text(result: Any) -> str:
    return str(result.content[0].text)


def _marker() -> str:
    return f"{300 + secrets.randbelow(600)}.{secrets.randbelow(10**6):06d}"


def _pid_alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


async def _start(client: Client, command: str) -> dict[str, Any]:
    started = await client.call_tool("wsl_start", {"command": command, "waitMs": 300})
    assert not started.is_error, _text(started)
    return dict(started.structured_content or {})


@pytest.mark.parametrize(
    ("command", "first"),
    [
        ("bash -c 'trap \"\" TERM; sleep {mark} & wait'", False),  # the issue's: the inner shell ignores TERM
        (
            "(trap '' TERM; sleep {mark}) & sleep 100",
            True,
        ),  # the command's shell dies of TERM, a subshell not
    ],
)
async def test_stop_follows_the_whole_tree_past_a_shell_that_dies_first(
    server: StdioServerParameters, sandbox: str, command: str, first: bool
) -> None:
    """Part of the tree ignores TERM: KILL after the grace must still reach all of it, whether the
    command's shell ends first or not, and the answer must list no process that lives. (In the
    sandbox a shell that dies first takes its PID namespace, so all of it, along: no KILL needed.)"""
    mark = _marker()
    async with Client(server) as client:
        p = await _start(client, command.format(mark=mark))
        for _ in range(500):  # the inner shell has started its sleep
            if processes_with(f"sleep {mark}"):
                break
            await asyncio.sleep(0.02)
        assert processes_with(f"sleep {mark}")
        stopped = await client.call_tool("wsl_stop", {"process": p["process"]})
        # before the client closes: the server's shutdown sweeps every tree it started
        assert await survivors(f"sleep {mark}") == []
        data = stopped.structured_content or {}
        assert not [k for k in data["killed"] if _pid_alive(int(k.split()[0]))]
    assert not stopped.is_error, _text(stopped)
    assert data["sent"] == (["TERM"] if first and sandbox == "on" else ["TERM", "KILL"]), data
    assert data["survivors"] == []
    assert data["killed"] and all(re.fullmatch(r"\d+ \S.*", k) for k in data["killed"]), data["killed"]
    escalated = "outlived TERM by 3 s: it was sent KILL" in _text(stopped)
    assert escalated == ("KILL" in data["sent"]), _text(stopped)


@pytest.mark.parametrize("command", ["cat", "sleep {mark}", "python3 -i"])
async def test_a_stopped_process_died_of_the_signal_and_says_so(
    server: StdioServerParameters, command: str
) -> None:
    mark = _marker()
    async with Client(server) as client:
        p = await _start(client, command.format(mark=mark))
        stopped = await client.call_tool("wsl_stop", {"process": p["process"]})
        assert await survivors(f"sleep {mark}") == []
    data = stopped.structured_content or {}
    assert (data["state"], data["exitCode"], data["signal"], data["sent"]) == ("killed", 143, 15, ["TERM"]), (
        data
    )
    assert _says(_text(stopped), 143, 15), _text(stopped)
    assert data["killed"] and all(re.fullmatch(r"\d+ \S.*", k) for k in data["killed"]), data["killed"]


async def test_a_death_by_signal_reads_the_same_in_every_tool(server: StdioServerParameters) -> None:
    async with Client(server) as client:
        started = await client.call_tool("wsl_start", {"command": "kill -TERM $$", "waitMs": 30_000})
        ran = await client.call_tool("wsl_exec", {"command": "kill -TERM $$"})
        session = await client.call_tool("wsl_connect", {})
        in_session = await client.call_tool(
            "wsl_exec", {"command": "cd / && kill -TERM $$", "session": "box#1"}
        )
        plain = await client.call_tool("wsl_exec", {"command": "sh -c 'kill -TERM $$'; echo $?"})
        timed = await client.call_tool("wsl_exec", {"command": f"sleep {_marker()}", "timeoutMs": 300})
    for result in (started, ran, in_session):
        data = result.structured_content or {}
        assert (data["exitCode"], data["signal"]) == (143, 15), data
        assert _says(_text(result), 143, 15), _text(result)
    assert (started.structured_content or {})["state"] == "killed"
    assert not session.is_error and (in_session.structured_content or {})["cwd"] == "/"  # the session follows
    data = plain.structured_content or {}  # a shell reporting its child's death is an exit, not a death
    assert (data["exitCode"], data["signal"], data["stdout"]["text"]) == (0, None, "143\n"), data
    data = timed.structured_content or {}
    assert (data["timedOut"], data["exitCode"], data["signal"]) == (True, 137, 9), data
    assert _text(timed).startswith("exit code: 137 (killed by signal 9, SIGKILL)"), _text(timed)
