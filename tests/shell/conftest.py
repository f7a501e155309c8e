"""Shared builders for the shell tests: a ShellService over the real local transport (or a
boundary double wrapping it), a real Guard, a FakeClock for session ages, logs captured in memory."""

from __future__ import annotations

import atexit
import io
import shutil
import tempfile
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from wslmcp.boundaries.clock import Clock
from wslmcp.boundaries.local_files import LocalFiles, OsLocalFiles
from wslmcp.boundaries.process import Exchange, Stdin
from wslmcp.boundaries.shell_transport import Confinement, LocalTransport, ScriptCall, ShellTransport
from wslmcp.catalogue import Reply
from wslmcp.fakes.clock import FakeClock
from wslmcp.shell.config import load_config
from wslmcp.shell.guard import Guard
from wslmcp.shell.log import Log
from wslmcp.shell.replies import render
from wslmcp.shell.runner import Runner
from wslmcp.shell.service import ShellService

# the temp-file ledgers of the services the tests build (one directory for the test run, removed at
# its end)
STATE_DIR = tempfile.mkdtemp(prefix="wslmcp-test-state-")
atexit.register(shutil.rmtree, STATE_DIR, ignore_errors=True)


class Rendered:
    """The service's tool methods with their results rendered as the MCP layer renders them
    (``replies.render``), so tests read the reply texts the tools answer with."""

    def __init__(self, service: ShellService) -> None:
        self.service = service

    def __getattr__(self, tool: str) -> Callable[..., Awaitable[Reply]]:
        method = getattr(self.service, tool)

        async def rendered(*args: object, **kwargs: object) -> Reply:
            return render(await method(*args, **kwargs))

        return rendered


@dataclass
class Built:
    service: Rendered
    clock: Any  # a FakeClock (tests move it on) unless the test passed its own
    log: io.StringIO
    runner: Runner | None

    @property
    def raw(self) -> ShellService:
        """The service itself (typed results, startup and shutdown)."""
        return self.service.service


def build(
    env: Mapping[str, str] | None = None,
    *,
    transport: ShellTransport | None = None,
    chunk_bytes: int | None = None,
    max_concurrent: int = 32,
    local_files: LocalFiles | None = None,
    state_dir: str | None = None,
    clock: Clock | None = None,
) -> Built:
    """A service on ``transport`` (the real local one by default). ``clock``: a ``FakeClock`` by
    default (session ages); background processes wait on it, so their tests pass a ``SystemClock``."""
    config = load_config({"WSL_DISTRO": "Ubuntu", "WSL_MCP_LOG_LEVEL": "debug", **(env or {})})
    clock = clock or FakeClock()
    stream = io.StringIO()
    runner = None
    if config.configured:
        runner = Runner(transport or LocalTransport(), max_concurrent=max_concurrent)
    service = ShellService(
        config,
        runner=runner,
        guard=Guard(config.policy),
        clock=clock,
        log=Log(config.log_level, stream, clock),
        local_files=local_files or OsLocalFiles(state_dir or STATE_DIR),
        chunk_bytes=chunk_bytes,
    )
    return Built(Rendered(service), clock, stream, runner)


def processes_with(marker: str) -> list[str]:
    """Command lines of live processes containing ``marker`` (reads this machine's /proc)."""
    import os

    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in cmd:
            found.append(f"{pid} {cmd}")
    return found


async def survivors(marker: str, *, within_s: float = 10.0) -> list[str]:
    """``processes_with(marker)``, asked again until none is left or ``within_s`` has passed: a
    SIGKILLed process leaves /proc when the kernel has reaped it, not when ``kill`` returns. The
    bound only limits how long a real survivor takes to be reported; no result depends on it."""
    import asyncio

    loop = asyncio.get_running_loop()
    deadline = loop.time() + within_s
    while (found := processes_with(marker)) and loop.time() < deadline:
        await asyncio.sleep(0.02)
    return found


def stdin_bytes(stdin: Stdin) -> bytes | None:
    """What a call's stdin carries, read whole (test doubles only: small payloads)."""
    if stdin is None or isinstance(stdin, bytes):
        return stdin
    return b"".join(iter(lambda: stdin.read(1 << 20), b""))


class WrappedLocal:
    """A boundary double: the real local transport, counting calls and calls in flight, with a hook
    that may rewrite each call's script and stdin (to inject a failure the real transport would only
    show by accident)."""

    kind = "local"
    user: str | None = None
    files = None  # its scripts are what the tests rewrite: no file work in process

    def __init__(self, confinement: Confinement | None = None) -> None:
        self.inner = LocalTransport(confinement=confinement)
        self.confinement = confinement
        self.calls = 0
        self.in_flight = 0
        self.peak = 0

    def rewrite(self, script: str, stdin: Stdin) -> tuple[str, Stdin]:
        return script, stdin

    async def run(self, call: ScriptCall) -> Exchange:
        self.calls += 1
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        script, stdin = self.rewrite(call.script, call.stdin)
        try:
            return await self.inner.run(replace(call, script=script, stdin=stdin))
        finally:
            self.in_flight -= 1

    async def list_distros(self) -> str | None:
        return None
