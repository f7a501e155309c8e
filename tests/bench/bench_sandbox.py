"""The OS sandbox's cost, side by side in one run (local transport, real bash and bubblewrap):
``wsl_exec true`` over stdio with ``WSL_SANDBOX`` off, on without its after-command check
(``WSLMCP_SANDBOX_CHECK=off``) and on with it (the default), against a raw ``bash -lc true`` spawn
and a bare ``bwrap ... bash -lc true`` with the sandbox's fixed flags (what bubblewrap alone costs:
namespaces made and torn down; the rest of the overhead is the launcher and the profile's mounts).
Targets: with the sandbox on, p50 at most 40 ms over the sandbox-off run; the check at most 5 ms p50
more. Beside them ``wsl_read_file`` of a small file with the sandbox off (in process)
and on (one confined script: the probe reads too).

The home is a fresh directory with the files a new Ubuntu user has (a profile that sources .bashrc,
a project with a git repository), so the launcher looks up what a real call looks up and no
machine-specific profile (pyenv, conda) is timed.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from mcp import Client, StdioServerParameters

ROUNDS = 60
TARGET_MS = 40.0
CHECK_TARGET_MS = 5.0
# the launcher's fixed part: bubblewrap's own cost, before any path of the profile is looked up
BARE_BWRAP = [
    "bwrap", "--unshare-user", "--cap-drop", "ALL", "--unshare-ipc", "--unshare-uts", "--die-with-parent",
    "--new-session", "--ro-bind", "/", "/", "--dev", "/dev", "--tmpfs", "/tmp", "--unshare-pid", "--proc", "/proc",
]  # fmt: skip


def _home(base: Path) -> Path:
    home = base / "home"
    for name, text in {
        ".profile": 'if [ -f "$HOME/.bashrc" ]; then . "$HOME/.bashrc"; fi\nPATH="$HOME/.local/bin:$PATH"\n',
        ".bashrc": "case $- in *i*) ;; *) return;; esac\nHISTSIZE=1000\n",
        ".bash_logout": "",
        ".config/git/ignore": "",
        ".cache/x": "",
        ".local/bin/.keep": "",
        "src/app/.git/config": "[core]\n",
        "src/app/.git/hooks/pre-commit.sample": "",
        "src/app/main.py": "",
    }.items():
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_text(text)
    return home


async def _spawn(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    proc = await asyncio.create_subprocess_exec(
        *argv, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL, env=env
    )
    await proc.wait()
    return time.perf_counter() - started


def _server(env: dict[str, str], sandbox: str, check: str = "on") -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "wslmcp", "shell"],
        env={**env, "WSL_SANDBOX": sandbox, "WSLMCP_SANDBOX_CHECK": check},
    )


def _row(name: str, seconds: list[float]) -> str:
    q = statistics.quantiles(seconds, n=20, method="inclusive")
    return f"   {name:<34} p50 {statistics.median(seconds) * 1000:6.1f} ms   p95 {q[18] * 1000:6.1f} ms"


async def _measure(home: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WSL_")}
    env.update(
        HOME=str(home), WSL_DISTRO="Ubuntu", WSLMCP_SHELL_TRANSPORT="local", WSL_MCP_LOG_LEVEL="silent"
    )
    async with contextlib.AsyncExitStack() as stack:
        off = await stack.enter_async_context(Client(_server(env, "off")))
        unchecked = await stack.enter_async_context(Client(_server(env, "on", check="off")))
        on = await stack.enter_async_context(Client(_server(env, "on")))

        def tool(
            client: Client, name: str = "wsl_exec", arguments: dict[str, object] | None = None
        ) -> Callable[[], Awaitable[float]]:
            async def call() -> float:
                started = time.perf_counter()
                result = await client.call_tool(name, arguments or {"command": "true"})
                assert not result.is_error, result
                return time.perf_counter() - started

            return call

        cases: dict[str, Callable[[], Awaitable[float]]] = {
            "raw `bash -lc true`": lambda: _spawn(["bash", "-lc", "true"], env),
            "bare `bwrap … bash -lc true`": lambda: _spawn([*BARE_BWRAP, "bash", "-lc", "true"], env),
            "wsl_exec `true`, sandbox off": tool(off),
            "wsl_exec `true`, sandbox on, no check": tool(unchecked),
            "wsl_exec `true`, sandbox on + check": tool(on),
            "wsl_read_file, sandbox off": tool(off, "wsl_read_file", {"path": str(home / "src/app/main.py")}),
            "wsl_read_file, sandbox on": tool(on, "wsl_read_file", {"path": str(home / "src/app/main.py")}),
        }
        times: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(3):
            for case in cases.values():
                await case()
        for _ in range(ROUNDS):  # interleaved, so machine load hits every case alike
            for name, case in cases.items():
                times[name].append(await case())
    for name, seconds in times.items():
        print(_row(name, seconds))
    off_ms = statistics.median(times["wsl_exec `true`, sandbox off"]) * 1000
    bare_ms = statistics.median(times["wsl_exec `true`, sandbox on, no check"]) * 1000
    on_ms = statistics.median(times["wsl_exec `true`, sandbox on + check"]) * 1000
    raw_ms = statistics.median(times["raw `bash -lc true`"]) * 1000
    print(
        f"   sandbox overhead (p50 on + check - p50 off): {on_ms - off_ms:.1f} ms; target <= {TARGET_MS:.0f} ms -> "
        f"{'MET' if on_ms - off_ms <= TARGET_MS else 'MISSED'} ({ROUNDS} rounds, interleaved)"
    )
    print(
        f"   after-command check (p50 on + check - p50 on, no check): {on_ms - bare_ms:.1f} ms; target <= "
        f"{CHECK_TARGET_MS:.0f} ms -> {'MET' if on_ms - bare_ms <= CHECK_TARGET_MS else 'MISSED'}"
    )
    print(
        f"   ratios to raw bash: off {off_ms / raw_ms:.2f}x, on {bare_ms / raw_ms:.2f}x, on + check {on_ms / raw_ms:.2f}x"
    )


def main() -> None:
    if shutil.which("bwrap") is None:
        print("   skipped: bubblewrap (bwrap) is not installed")
        return
    # not under /tmp: the sandbox makes /tmp private, and a home there would cost one more mount
    with tempfile.TemporaryDirectory(prefix="wslmcp-bench-sandbox-", dir="/var/tmp") as tmp:
        asyncio.run(_measure(_home(Path(tmp))))
