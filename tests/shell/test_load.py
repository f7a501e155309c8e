"""A bounded load test over real stdio: more concurrent calls than the runner's cap (32) on one
connection. It checks correctness, not time: every call gets exactly its own answer, files hold
exactly what each writer sent, and the server keeps serving."""

from __future__ import annotations

import asyncio
from pathlib import Path

from mcp import Client

from tests.shell.test_stdio import _params
from wslmcp.shell.runner import MAX_CONCURRENT

WRITERS = MAX_CONCURRENT + 16
COMMANDS = 6  # login shells are costly on a shared machine; the file tools carry the load


def _text(result: object) -> str:
    return str(result.content[0].text)  # type: ignore[attr-defined]


async def test_concurrent_calls_beyond_the_cap_each_get_their_own_answer(tmp_path: Path) -> None:
    contents = {i: f"writer {i}\n" * (i + 1) for i in range(WRITERS)}
    (tmp_path / "home").mkdir()  # login shells source no machine profile (pyenv, ...)
    async with Client(_params(WSL_DISTRO="Ubuntu", HOME=str(tmp_path / "home"))) as client:
        wrote = await asyncio.gather(
            *(
                client.call_tool("wsl_write_file", {"path": str(tmp_path / f"f{i}"), "content": c})
                for i, c in contents.items()
            )
        )
        assert all(not w.is_error for w in wrote), [_text(w) for w in wrote if w.is_error]
        reads = [client.call_tool("wsl_read_file", {"path": str(tmp_path / f"f{i}")}) for i in contents]
        execs = [
            client.call_tool("wsl_exec", {"command": f"sleep 0.2; echo command-{i}", "cwd": str(tmp_path)})
            for i in range(COMMANDS)
        ]
        results = await asyncio.gather(*reads, *execs)
        for i, read in zip(contents, results[:WRITERS], strict=True):
            assert not read.is_error and _text(read).endswith("\n\n" + contents[i]), (i, _text(read)[:200])
        for i, ran in enumerate(results[WRITERS:]):
            assert "exit code: 0" in _text(ran) and f"--- stdout ---\ncommand-{i}\n" in _text(ran), _text(ran)
        for i, c in contents.items():
            assert (tmp_path / f"f{i}").read_text() == c
        left = sorted(p.name for p in tmp_path.iterdir() if p.name != "home")
        assert left == sorted(f"f{i}" for i in contents)  # no temp left
        hosts = await client.call_tool("wsl_list_sessions", {})
        assert not hosts.is_error
