"""Record scenarios/shell-basic: run a fixed series of tool calls through the shell server with the
wsl.exe transport driving the `wsl.exe` stand-in (tests/shell/standin.py), record every wsl.exe
exchange (``fakes.wsl_exe.RecordingWslExe``) and every reply.
Run: .venv/bin/python -m tests.shell.record_scenario [OUT_DIR]

The replay check ``shell-exchanges`` then serves the same calls from the recorded exchanges.
"""

from __future__ import annotations

import asyncio
import io
import itertools
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from fakes.clock import FakeClock
from fakes.wsl_exe import RecordingWslExe
from tests.shell.standin import make_wsl_standin
from wslmcp.boundaries.clock import SystemClock
from wslmcp.boundaries.local_files import OsLocalFiles
from wslmcp.boundaries.shell_transport import WslExeTransport
from wslmcp.boundaries.wsl_exe import WslExe, WslExeCli
from wslmcp.scenario.recorder import ScenarioWriter
from wslmcp.shell.config import load_config
from wslmcp.shell.guard import Guard
from wslmcp.shell.log import Log
from wslmcp.shell.runner import Runner
from wslmcp.shell.server import build_server
from wslmcp.shell.service import ShellService

ROOT = Path(__file__).resolve().parents[2]
SANDBOX = "/tmp/wslmcp-shell-scenario"
START_WALL = 1_795_996_800.0
ENV = {
    "WSL_DISTRO": "Ubuntu",
    "WSL_USER": "dev",
    "WSL_DESCRIPTION": "recorded against the wsl.exe stand-in",
    "WSL_EXEC_TIMEOUT_MS": "20000",
    "WSL_ALLOWED_PATHS": SANDBOX,
    "WSL_MCP_LOG_LEVEL": "silent",
}
CALLS: list[dict[str, Any]] = [
    {"tool": "wsl_list_hosts", "args": {}},
    {"tool": "wsl_connect", "args": {"cwd": SANDBOX}},
    {
        "tool": "wsl_exec",
        "args": {
            "session": "Ubuntu#1",
            "command": "mkdir -p app && cd app && printf 'hello\\n' > greeting.txt",
        },
    },
    {"tool": "wsl_exec", "args": {"session": "Ubuntu#1", "command": "pwd; cat greeting.txt; exit 3"}},
    {"tool": "wsl_list_sessions", "args": {}, "advance_s": 42},
    {"tool": "wsl_write_file", "args": {"path": f"{SANDBOX}/app/notes.txt", "content": 'line 1 "q" $HOME\n'}},
    {
        "tool": "wsl_write_file",
        "args": {"path": f"{SANDBOX}/app/notes.txt", "content": "line 2\n", "append": True},
    },
    {"tool": "wsl_read_file", "args": {"path": f"{SANDBOX}/app/notes.txt"}},
    {"tool": "wsl_read_file", "args": {"path": "/etc/hostname"}},
    {"tool": "wsl_list_dir", "args": {"path": f"{SANDBOX}/app"}},
    {"tool": "wsl_exec", "args": {"command": "rm -rf /"}},
    {"tool": "wsl_exec", "args": {"command": "sleep 30 & sleep 31", "timeoutMs": 600}},
    {"tool": "wsl_exec", "args": {"command": "echo x", "session": "Ubuntu#9"}},
    {"tool": "wsl_disconnect", "args": {"session": "Ubuntu#1"}},
]


async def _replies(wsl: WslExe) -> list[dict[str, Any]]:
    """Every call of CALLS through the real server over ``wsl``; one ``{is_error, text}`` each."""
    config = load_config(ENV)
    clock = FakeClock(0.0, START_WALL)
    counter = itertools.count(1)
    service = ShellService(
        config,
        runner=Runner(WslExeTransport(wsl, "Ubuntu", "dev"), lambda: f"{next(counter):016x}"),
        guard=Guard(config.policy),
        clock=clock,
        log=Log(config.log_level, io.StringIO(), clock),
        local_files=OsLocalFiles(tempfile.mkdtemp(prefix="wslmcp-state-")),
    )
    server = build_server(service)
    replies = []
    for call in CALLS:
        clock.advance(float(call.get("advance_s", 0)))
        result = await server.call_tool(call["tool"], call["args"])
        text = "\n".join(str(getattr(b, "text", "")) for b in result.content)  # type: ignore[union-attr]
        replies.append({"is_error": bool(result.is_error), "text": text})  # type: ignore[union-attr]
    return replies


async def record(out: Path) -> list[dict[str, Any]]:
    """Record into a new directory, then put it in place of ``out``."""
    shutil.rmtree(SANDBOX, ignore_errors=True)
    Path(SANDBOX).mkdir()
    with tempfile.TemporaryDirectory() as tmp:
        standin = make_wsl_standin(Path(tmp) / "standin", {"Ubuntu": "Running", "Debian": "Stopped"})
        os.environ["WSLSH_STANDIN_DIR"] = str(standin.directory)
        writer = ScenarioWriter(
            Path(tmp) / out.name,
            out.name,
            "The shell server's ten-tool workflow (sessions, exec, file tools, a guard refusal, a timeout "
            "with its kill sweep) replayed from wsl.exe exchanges recorded against the wsl.exe stand-in",
            SystemClock(),
            keep_cmdlines=True,
        )
        try:
            replies = await _replies(
                RecordingWslExe(WslExeCli(standin.executable, kill_on_overflow=True), writer)
            )
            calls = []
            for i, (call, reply) in enumerate(zip(CALLS, replies, strict=True)):
                rel = f"expected/{i:02d}-{call['tool']}.json"
                writer.add_file(rel, (json.dumps(reply, indent=2, ensure_ascii=False) + "\n").encode())
                calls.append({**call, "expected": rel})
            writer.manifest["recorder"] += " (tests/shell/record_scenario.py, wsl.exe stand-in on Linux)"
            writer.manifest["clock"] = {"start_wall": START_WALL}
            writer.manifest["shell"] = {"env": ENV, "calls": calls}
            writer.expect({"kind": "shell-exchanges"})
            recorded = writer.commit()
        except BaseException:
            writer.abort()
            raise
        finally:
            shutil.rmtree(SANDBOX, ignore_errors=True)
        if out.exists():
            shutil.rmtree(out)
        shutil.move(recorded, out)
    return replies


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "scenarios" / "shell-basic"
    for i, reply in enumerate(asyncio.run(record(out))):
        print(f"--- {i} {CALLS[i]['tool']} error={reply['is_error']}\n{reply['text']}")


if __name__ == "__main__":
    main()
