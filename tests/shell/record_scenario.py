"""Record scenarios/shell-basic: the fixed series of tool calls below, recorded by the product's
shell recorder (``wslmcp.replay.recording.record_shell``, what ``wslmcp scenario record --area
shell`` runs) against the `wsl.exe` stand-in (tests/shell/standin.py).
Run: .venv/bin/python -m tests.shell.record_scenario [OUT_DIR]

The replay check ``shell-exchanges`` then serves the same calls from the recorded exchanges.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from tests.shell.standin import make_wsl_standin
from wslmcp.boundaries.clock import SystemClock
from wslmcp.replay.recording import record_shell
from wslmcp.scenario.recorder import ScenarioWriter

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


async def record(out: Path) -> list[dict[str, Any]]:
    """Record scenarios/shell-basic (see ``record_calls``)."""
    return await record_calls(
        out,
        CALLS,
        ENV,
        SANDBOX,
        "The shell server's ten-tool workflow (sessions, exec, file tools, a guard refusal, a timeout "
        "with its kill sweep) replayed from wsl.exe exchanges recorded against the wsl.exe stand-in",
    )


async def record_calls(
    out: Path,
    calls: list[dict[str, Any]],
    env: dict[str, str],
    sandbox: str,
    description: str,
    *,
    recorder: str = "tests/shell/record_scenario.py",
) -> list[dict[str, Any]]:
    """Record ``calls`` through the product command's recorder (``wslmcp scenario record --area
    shell``) against the wsl.exe stand-in, with ``sandbox`` made empty first, into a new directory,
    then put it in place of ``out``."""
    shutil.rmtree(sandbox, ignore_errors=True)
    Path(sandbox).mkdir()
    with tempfile.TemporaryDirectory() as tmp:
        standin = make_wsl_standin(Path(tmp) / "standin", {"Ubuntu": "Running", "Debian": "Stopped"})
        os.environ["WSLSH_STANDIN_DIR"] = str(standin.directory)  # what the stand-in itself reads
        environ = {**os.environ, "WSLMCP_WSL_EXE": standin.executable, **env}
        writer = ScenarioWriter(
            Path(tmp) / out.name, out.name, description, SystemClock(), keep_cmdlines=True
        )
        writer.manifest["recorder"] += f" ({recorder}, wsl.exe stand-in on Linux)"
        try:
            replies = await record_shell(writer, calls, environ, START_WALL)
        finally:
            shutil.rmtree(sandbox, ignore_errors=True)
        if out.exists():
            shutil.rmtree(out)
        shutil.move(Path(tmp) / out.name, out)
    return replies


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "scenarios" / "shell-basic"
    for i, reply in enumerate(asyncio.run(record(out))):
        print(f"--- {i} {CALLS[i]['tool']} error={reply['is_error']}\n{reply['text']}")


if __name__ == "__main__":
    main()
