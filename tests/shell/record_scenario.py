"""Record scenarios/shell-basic: run a fixed series of tool calls through the shell server with the
wsl.exe transport driving the `wsl.exe` stand-in (tests/shell/standin.py), record every wsl.exe
exchange and every reply. Run: .venv/bin/python -m tests.shell.record_scenario [OUT_DIR]

The replay check ``shell-exchanges`` then serves the same calls from the recorded exchanges.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import itertools
import json
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from fakes.clock import FakeClock
from tests.shell.standin import make_wsl_standin
from wslmcp.boundaries.process import Exchange
from wslmcp.boundaries.shell_transport import LocalFiles, WslExeTransport
from wslmcp.boundaries.wsl_exe import WslExe, WslExeCli
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


class RecordingWslExe:
    """Wraps a real WslExe and keeps every exchange."""

    def __init__(self, inner: WslExe) -> None:
        self.inner = inner
        self.exchanges: list[tuple[Sequence[str], bytes | None, Exchange]] = []

    async def run(
        self,
        args: Sequence[str],
        *,
        stdin: bytes | None = None,
        timeout_s: float | None = None,
        max_output: int = 16 * 1024 * 1024,
    ) -> Exchange:
        ex = await self.inner.run(args, stdin=stdin, timeout_s=timeout_s, max_output=max_output)
        self.exchanges.append((list(args), stdin, ex))
        return ex


async def record(out: Path) -> None:
    shutil.rmtree(SANDBOX, ignore_errors=True)
    Path(SANDBOX).mkdir()
    with tempfile.TemporaryDirectory() as tmp:
        standin = make_wsl_standin(Path(tmp), {"Ubuntu": "Running", "Debian": "Stopped"})
        recorder = RecordingWslExe(WslExeCli(standin.executable, kill_on_overflow=True))
        import os

        os.environ["WSLSH_STANDIN_DIR"] = str(standin.directory)
        config = load_config(ENV)
        clock = FakeClock(0.0, START_WALL)
        counter = itertools.count(1)
        transport = WslExeTransport(recorder, "Ubuntu", "dev")
        runner = Runner(transport, lambda: f"{next(counter):016x}")
        service = ShellService(
            config,
            transport=transport,
            runner=runner,
            guard=Guard(config.policy),
            clock=clock,
            log=Log(config.log_level, io.StringIO(), clock),
            local_files=LocalFiles(),
        )
        server = build_server(service)
        replies = []
        for call in CALLS:
            clock.advance(float(call.get("advance_s", 0)))
            result = await server.call_tool(call["tool"], call["args"])
            text = "\n".join(str(getattr(b, "text", "")) for b in result.content)  # type: ignore[union-attr]
            replies.append({"is_error": bool(result.is_error), "text": text})  # type: ignore[union-attr]
    shutil.rmtree(SANDBOX, ignore_errors=True)
    if out.exists():
        shutil.rmtree(out)
    (out / "exchanges").mkdir(parents=True)
    (out / "expected").mkdir()
    items = []
    for i, (args, stdin, ex) in enumerate(recorder.exchanges):
        item: dict[str, Any] = {"args": list(args)}
        if stdin is not None:
            item["stdin_sha256"] = hashlib.sha256(stdin).hexdigest()
        for stream, data in (("stdout", ex.stdout), ("stderr", ex.stderr)):
            if data:
                rel = f"exchanges/{i:03d}.{stream}"
                (out / rel).write_bytes(data)
                item[stream] = rel
        item["exit_code"] = ex.exit_code
        item["duration_ms"] = round(ex.duration_s * 1000)
        if ex.timed_out:
            item["timed_out"] = True
        items.append(item)
    calls = []
    for i, (call, reply) in enumerate(zip(CALLS, replies, strict=True)):
        rel = f"expected/{i:02d}-{call['tool']}.json"
        (out / rel).write_text(json.dumps(reply, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        calls.append({**call, "expected": rel})
    manifest = {
        "schema": "wslmcp-scenario/1.0",
        "name": out.name,
        "description": "The shell server's ten-tool workflow (sessions, exec, file tools, a guard refusal, a "
        "timeout with its kill sweep) replayed from wsl.exe exchanges recorded against the wsl.exe stand-in",
        "source": "recorded",
        "recorded_at": "2026-11-29T23:00:00+00:00",
        "recorder": "tests/shell/record_scenario.py (wsl.exe stand-in on Linux)",
        "clock": {"start_wall": START_WALL},
        "exchanges": {"wsl_exe": items},
        "shell": {"env": ENV, "calls": calls},
        "expect": [{"kind": "shell-exchanges"}],
    }
    (out / "scenario.json").write_text(
        json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    for i, reply in enumerate(replies):
        print(f"--- {i} {CALLS[i]['tool']} error={reply['is_error']}\n{reply['text']}")


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "scenarios" / "shell-basic"
    asyncio.run(record(out))


if __name__ == "__main__":
    main()
