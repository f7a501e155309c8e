"""What each shell tool does: its checked arguments handed to the ``ShellService`` operation, and
the result rendered (``replies``) as the tool's answer."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from typing import Any

from wslmcp.catalogue import Dispatch, Progress, Reply
from wslmcp.shell.replies import render
from wslmcp.shell.results import Result
from wslmcp.shell.service import ShellService

Operation = Callable[[ShellService, Mapping[str, Any]], Awaitable[Result]]

OPERATIONS: dict[str, Operation] = {
    "wsl_list_hosts": lambda s, a: s.list_hosts(),
    "wsl_connect": lambda s, a: s.connect(a.get("cwd")),
    "wsl_disconnect": lambda s, a: s.disconnect(a["session"]),
    "wsl_list_sessions": lambda s, a: s.list_sessions(),
    "wsl_exec": lambda s, a: s.exec(
        a["command"], session=a.get("session"), cwd=a.get("cwd"), timeout_ms=a.get("timeoutMs")
    ),
    "wsl_list_dir": lambda s, a: s.list_dir(a["path"], a.get("session")),
    "wsl_read_file": lambda s, a: s.read_file(a["path"], a.get("session"), a.get("maxBytes")),
    "wsl_write_file": lambda s, a: s.write_file(
        a["path"], a["content"], a.get("append", False), a.get("session")
    ),
    "wsl_upload": lambda s, a: s.upload(a["localPath"], a["remotePath"], a.get("session")),
    "wsl_download": lambda s, a: s.download(a["remotePath"], a["localPath"], a.get("session")),
}


def dispatch(service: ShellService) -> Dispatch:
    async def call(tool: str, arguments: Mapping[str, Any], progress: Progress | None) -> Reply:
        return render(await OPERATIONS[tool](service, arguments))

    return call


@asynccontextmanager
async def running(service: ShellService) -> AsyncIterator[Dispatch]:
    """The service between its startup (reclaiming what killed servers left) and its shutdown
    (ending what still runs, removing temp files)."""
    await service.startup()
    try:
        yield dispatch(service)
    finally:
        await service.shutdown()
