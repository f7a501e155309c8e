"""What each shell tool does: its checked arguments handed to the ``ShellService`` operation, and
the result rendered (``replies``) as the tool's answer."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from typing import Any

from wslmcp.catalogue import Ask, Dispatch, Progress, Reply
from wslmcp.shell.edits import Edit
from wslmcp.shell.replies import render
from wslmcp.shell.results import Result
from wslmcp.shell.service import ShellService

Operation = Callable[[ShellService, Mapping[str, Any], Progress | None], Awaitable[Result]]

OPERATIONS: dict[str, Operation] = {
    "wsl_list_hosts": lambda s, a, p: s.list_hosts(),
    "wsl_connect": lambda s, a, p: s.connect(a.get("cwd")),
    "wsl_disconnect": lambda s, a, p: s.disconnect(a["session"]),
    "wsl_list_sessions": lambda s, a, p: s.list_sessions(),
    "wsl_exec": lambda s, a, p: s.exec(a["command"], timeout_ms=a.get("timeoutMs"), progress=p, **_where(a)),
    "wsl_start": lambda s, a, p: s.start(a["command"], wait_ms=a.get("waitMs"), progress=p, **_where(a)),
    "wsl_read_output": lambda s, a, p: s.read_output(
        a["process"], offset=a.get("offset"), max_bytes=a.get("maxBytes"), wait_ms=a.get("waitMs"), progress=p
    ),
    "wsl_send_input": lambda s, a, p: s.send_input(
        a["process"], a["input"], close_stdin=a.get("closeStdin", False), wait_ms=a.get("waitMs")
    ),
    "wsl_stop": lambda s, a, p: s.stop(a["process"], signal=a.get("signal", "TERM")),
    "wsl_list_processes": lambda s, a, p: s.list_processes(),
    "wsl_list_dir": lambda s, a, p: s.list_dir(a["path"], a.get("session")),
    "wsl_read_file": lambda s, a, p: s.read_file(
        a["path"], a.get("session"), a.get("maxBytes"), a.get("offset"), a.get("limit")
    ),
    "wsl_write_file": lambda s, a, p: s.write_file(
        a["path"], a["content"], a.get("append", False), a.get("session")
    ),
    "wsl_edit_file": lambda s, a, p: s.edit_file(
        a["path"], _edits(a["edits"]), a.get("dryRun", False), a.get("session")
    ),
    "wsl_search": lambda s, a, p: s.search(
        a.get("pattern"),
        a.get("path"),
        glob=a.get("glob"),
        literal=a.get("literal", False),
        ignore_case=a.get("ignoreCase", False),
        context_lines=a.get("contextLines", 0),
        max_results=a.get("maxResults"),
        offset=a.get("offset", 0),
        session=a.get("session"),
    ),
    "wsl_upload": lambda s, a, p: s.upload(a["localPath"], a["remotePath"], a.get("session")),
    "wsl_download": lambda s, a, p: s.download(a["remotePath"], a["localPath"], a.get("session")),
}


def _where(arguments: Mapping[str, Any]) -> dict[str, Any]:
    """Where wsl_exec and wsl_start run a command: a session, a directory, outside the sandbox."""
    return {
        "session": arguments.get("session"),
        "cwd": arguments.get("cwd"),
        "unsandboxed": arguments.get("unsandboxed", False),
    }


def _edits(edits: list[Mapping[str, Any]]) -> list[Edit]:
    """wsl_edit_file's ``edits``, already checked against the schema."""
    return [Edit(e["oldText"], e["newText"], e.get("expectedReplacements", 1)) for e in edits]


def dispatch(service: ShellService) -> Dispatch:
    async def call(
        tool: str, arguments: Mapping[str, Any], progress: Progress | None, ask: Ask | None = None
    ) -> Reply:
        with service.approvals.asking(ask):  # the person to ask about a refusal they may overrule
            return render(await OPERATIONS[tool](service, arguments, progress))

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
