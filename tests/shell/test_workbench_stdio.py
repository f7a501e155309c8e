"""The workbench tools end to end: a real ``wslmcp shell`` over real stdio, driven by the SDK
client, on the local transport and through the wsl.exe stand-in: background processes, progress,
edits, ranged reads and search, each answer with its structuredContent."""

from __future__ import annotations

import getpass
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from tests.in_process import refused_arguments
from tests.shell.conftest import survivors
from tests.shell.standin import make_wsl_standin


@pytest.fixture(params=["local", "wsl.exe-standin"])
def params(request: pytest.FixtureRequest, tmp_path: Path) -> StdioServerParameters:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("WSL_")}
    env = {
        **clean,
        "WSL_DISTRO": "Ubuntu",
        "WSL_NAME": "box",
        "WSL_MCP_LOG_LEVEL": "silent",
        "WSL_CWD": str(tmp_path),
        "WSLMCP_STATE_DIR": str(tmp_path / "state"),
        "WSLMCP_SHELL_TRANSPORT": "local",
        "WSL_SANDBOX": "off",  # the file tools themselves; the sandbox's suites run them confined
    }
    if request.param == "wsl.exe-standin":
        standin = make_wsl_standin(tmp_path / "standin", {"Ubuntu": "Running"})
        env |= {
            **standin.env(),
            "WSLMCP_SHELL_TRANSPORT": "wsl.exe",
            "WSLMCP_WSL_EXE": standin.executable,
            "WSL_USER": getpass.getuser(),
        }
    return StdioServerParameters(command=sys.executable, args=["-m", "wslmcp", "shell"], env=env)


def _text(result: Any) -> str:
    return str(result.content[0].text)


async def test_a_background_process_and_its_stop_over_stdio(
    params: StdioServerParameters, tmp_path: Path
) -> None:
    script = 'echo ready; read -r x; echo "got $x"; read -r y; echo "bye" >&2; exit 3'
    async with Client(params) as client:
        started = await client.call_tool("wsl_start", {"command": script, "waitMs": 0})
        assert not started.is_error, _text(started)
        s = started.structured_content
        assert s is not None and (s["process"], s["state"], s["offset"]) == ("box#p1", "running", 0)
        assert set(s) >= {"process", "state", "exitCode", "output", "offset", "nextOffset", "droppedBytes"}
        ready = await client.call_tool("wsl_read_output", {"process": "box#p1", "waitMs": 30000})
        assert ready.structured_content is not None and ready.structured_content["output"] == "ready\n"
        answer = await client.call_tool(
            "wsl_send_input", {"process": "box#p1", "input": "hi\n", "waitMs": 30000}
        )
        assert answer.structured_content is not None and answer.structured_content["output"] == "got hi\n"
        await client.call_tool(
            "wsl_send_input", {"process": "box#p1", "input": "", "closeStdin": True, "waitMs": 0}
        )
        ended = await client.call_tool("wsl_read_output", {"process": "box#p1", "waitMs": 30000})
        e = ended.structured_content
        assert e is not None and (e["state"], e["exitCode"], e["output"]) == ("exited", 3, "bye\n")
        whole = await client.call_tool("wsl_read_output", {"process": "box#p1", "offset": 0})
        assert whole.structured_content is not None
        assert whole.structured_content["output"] == "ready\ngot hi\nbye\n"  # an ended process reads back
        listed = await client.call_tool("wsl_list_processes", {})
        assert listed.structured_content is not None
        assert [(p["process"], p["state"]) for p in listed.structured_content["processes"]] == [
            ("box#p1", "exited")
        ]
        refused_arguments(await client.call_tool("wsl_read_output", {"process": "box#p1", "waitMs": 60001}))
        marker = "38.2929"
        sleeping = await client.call_tool(
            "wsl_start", {"command": f"sleep {marker}1 & sleep {marker}2", "waitMs": 0}
        )
        assert not sleeping.is_error, _text(sleeping)
        stopped = await client.call_tool("wsl_stop", {"process": "box#p2", "signal": "KILL"})
        assert stopped.structured_content is not None and stopped.structured_content["state"] == "killed"
        after = await client.call_tool("wsl_read_output", {"process": "box#p2"})
        assert not after.is_error  # reading a stopped process is no error
        assert await survivors(f"sleep {marker}") == []


async def test_progress_comes_at_most_once_a_second_with_the_latest_line(
    params: StdioServerParameters,
) -> None:
    script = "for i in 1 2 3 4; do echo line$i; sleep 0.3; done"
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    async with Client(params) as client:
        await client.call_tool(
            "wsl_start", {"command": script, "waitMs": 2500}, progress_callback=on_progress
        )
        assert seen, "no progress while wsl_start waited"
        assert len(seen) <= 3 + 1  # a 2.5 s wait holds at most one notification a second
        assert all(total == 2500 for _, total, _ in seen)
        assert {m for _, _, m in seen if m} <= {f"line{i}" for i in range(1, 9)}
        assert [p for p, _, _ in seen] == sorted(p for p, _, _ in seen)
        seen.clear()
        ran = await client.call_tool("wsl_exec", {"command": script}, progress_callback=on_progress)
        assert not ran.is_error and seen and {m for _, _, m in seen if m} <= {f"line{i}" for i in range(1, 5)}


async def test_edits_ranged_reads_and_search_over_stdio(
    params: StdioServerParameters, tmp_path: Path
) -> None:
    target = tmp_path / "app.py"
    target.write_text("def greet(name):\n    return 'hello ' + name\n")
    async with Client(params) as client:
        near = await client.call_tool(
            "wsl_edit_file",
            {"path": str(target), "edits": [{"oldText": "return 'hello '+name", "newText": "x"}]},
        )
        assert near.is_error and near.structured_content is not None
        assert near.structured_content["nearMiss"]["line"] == 2 and near.structured_content["matches"] == 0
        done = await client.call_tool(
            "wsl_edit_file",
            {"path": str(target), "edits": [{"oldText": "'hello ' + name", "newText": "f'hello {name}'"}]},
        )
        assert not done.is_error and done.structured_content is not None
        assert done.structured_content["replacements"] == [1] and done.structured_content["written"] is True
        assert target.read_text() == "def greet(name):\n    return f'hello {name}'\n"
        refused_arguments(
            await client.call_tool(
                "wsl_edit_file", {"path": str(target), "edits": [{"oldText": "x", "newTxt": "y"}]}
            )
        )
        lines = await client.call_tool("wsl_read_file", {"path": str(target), "offset": -1})
        assert lines.structured_content is not None
        assert (lines.structured_content["totalLines"], lines.structured_content["content"]) == (
            2,
            "    return f'hello {name}'\n",
        )
        found = await client.call_tool("wsl_search", {"pattern": "hello", "contextLines": 1})
        assert found.structured_content is not None
        assert found.structured_content["matches"] == [
            {
                "path": str(target),
                "line": 2,
                "text": "    return f'hello {name}'",
                "before": ["def greet(name):"],
                "after": [],
            }
        ]
