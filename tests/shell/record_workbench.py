"""Record scenarios/shell-workbench: a build started in the background and read while it runs, an
edit that misses (the closest text is shown) then the right one, a search, a ranged read, input to
a background process and its stop, recorded on Linux through a wsl.exe substitute by the product recorder.
Run: .venv/bin/python -m tests.shell.record_workbench [OUT_DIR]

The replay check ``shell-exchanges`` serves the same calls from the recorded exchanges (a
background process's output handed over at the looks recorded, ``ProcessExchange.looks``).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from tests.shell.record_scenario import ROOT, record_calls

SANDBOX = "/tmp/wslmcp-workbench-scenario"
ENV = {
    "WSL_DISTRO": "Ubuntu",
    "WSL_USER": "dev",
    "WSL_CWD": SANDBOX,
    "WSL_EXEC_TIMEOUT_MS": "20000",
    "WSL_ALLOWED_PATHS": SANDBOX,
    "WSL_MCP_LOG_LEVEL": "silent",
}
BUILD = (
    "#!/bin/sh\n"
    "for step in configure compile link test; do\n"
    '  echo "[$step] running"\n'
    "  sleep 1\n"
    "done\n"
    'echo "warning: 1 test skipped" >&2\n'
    "echo BUILD OK\n"
)
APP = (
    "import sys\n"
    "\n"
    "\n"
    "def greet(name):\n"
    "    return 'hello, ' + name\n"
    "\n"
    "\n"
    "def main(argv):\n"
    "    print(greet(argv[1] if len(argv) > 1 else 'world'))\n"
)
CALLS: list[dict[str, Any]] = [
    {"tool": "wsl_write_file", "args": {"path": f"{SANDBOX}/build.sh", "content": BUILD}},
    {"tool": "wsl_exec", "args": {"command": "mkdir -p src"}},
    {"tool": "wsl_write_file", "args": {"path": f"{SANDBOX}/src/app.py", "content": APP}},
    {"tool": "wsl_start", "args": {"command": "sh build.sh", "waitMs": 1500}},
    {"tool": "wsl_read_output", "args": {"process": "Ubuntu#p1", "waitMs": 10000}},
    {"tool": "wsl_list_processes", "args": {}},
    {
        "tool": "wsl_edit_file",
        "args": {
            "path": f"{SANDBOX}/src/app.py",
            "edits": [{"oldText": "return 'hello,' + name", "newText": "return f'hello, {name}!'"}],
        },
    },
    {
        "tool": "wsl_edit_file",
        "args": {
            "path": f"{SANDBOX}/src/app.py",
            "edits": [{"oldText": "return 'hello, ' + name", "newText": "return f'hello, {name}!'"}],
        },
    },
    {"tool": "wsl_search", "args": {"pattern": "hello", "contextLines": 1}},
    {"tool": "wsl_read_file", "args": {"path": f"{SANDBOX}/src/app.py", "offset": -2}},
    {"tool": "wsl_exec", "args": {"command": "sleep 4"}},
    {"tool": "wsl_read_output", "args": {"process": "Ubuntu#p1", "waitMs": 10000}},
    {
        "tool": "wsl_start",
        "args": {"command": 'while read -r line; do echo "echo: $line"; done', "waitMs": 0},
    },
    {"tool": "wsl_send_input", "args": {"process": "Ubuntu#p2", "input": "ping\n", "waitMs": 5000}},
    {"tool": "wsl_stop", "args": {"process": "Ubuntu#p2"}},
    {"tool": "wsl_list_processes", "args": {}},
]


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "scenarios" / "shell-workbench"
    description = (
        "The workbench tools: a build started in the background and read while it runs, an edit that "
        "misses then the right one, a search, a ranged read, input to a background process and its stop, "
        "replayed from wsl.exe exchanges recorded on Linux through a wsl.exe substitute"
    )
    replies = asyncio.run(
        record_calls(out, CALLS, ENV, SANDBOX, description, recorder="tests/shell/record_workbench.py")
    )
    for i, reply in enumerate(replies):
        print(f"--- {i} {CALLS[i]['tool']} error={reply['is_error']}\n{reply['text']}")


if __name__ == "__main__":
    main()
