"""The MCP adapter: ten tools with schemas, annotations and descriptions; each calls ShellService
and answers with its result rendered by ``replies``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    CallToolResult,
    InputRequiredResult,
    TextContent,
    Tool,
    ToolAnnotations,
)  # fmt: skip
from pydantic import Field

from wslmcp import __version__
from wslmcp.arguments import InvalidArguments, check_schema
from wslmcp.boundaries import replay_miss
from wslmcp.shell.replies import render
from wslmcp.shell.results import Result
from wslmcp.shell.service import ShellService

SESSION_FOR_FILES = (
    "Optional session id from wsl_connect; only checked to exist. File tools do not use the "
    "session's directory: paths are absolute."
)

INSTRUCTIONS = """Runs commands and moves files in ONE WSL distro as ONE Linux user, both fixed by this server's configuration; no tool takes a distro or user.
Start with wsl_list_hosts: it shows the distro, its state and the guard policy that decides what the other tools accept.
One-off commands: wsl_exec. Several related commands: wsl_connect, then wsl_exec with its session (only the working directory persists), then wsl_disconnect.
Prefer wsl_read_file / wsl_write_file / wsl_list_dir over cat, heredocs and ls in wsl_exec; use wsl_upload / wsl_download for binary or large files.
There is no TTY and stdin is closed: use non-interactive flags (apt-get -y, sudo -n, top -bn1). A job that must outlive its call needs: nohup cmd > log 2>&1 < /dev/null &
A refusal by the guard is a policy decision: do not retry it in another spelling. A non-zero exit code is normal output, not a tool error. Ask the operator before irreversible actions."""


_Handler = Callable[..., Awaitable[CallToolResult]]


def _result(result: Result) -> CallToolResult:
    reply = render(result)
    return CallToolResult(content=[TextContent(type="text", text=reply.text)], is_error=reply.is_error)


@dataclass(frozen=True)
class ToolSpec:
    """A tool's title, hints (readOnly, destructive, idempotent, openWorld) and description."""

    title: str
    hints: tuple[bool, bool, bool, bool]
    description: str

    def annotations(self) -> ToolAnnotations:
        read_only, destructive, idempotent, open_world = self.hints
        return ToolAnnotations(
            title=self.title,
            read_only_hint=read_only,
            destructive_hint=destructive,
            idempotent_hint=idempotent,
            open_world_hint=open_world,
        )


TOOLS: dict[str, ToolSpec] = {  # in tools/list order
    "wsl_list_hosts": ToolSpec(
        "Show the WSL distro and policy",
        (True, False, True, False),
        "Show the one WSL distro and Linux user this server works in, its state (running or stopped, "
        "WSL version, networking mode, whether systemd is PID 1, kernel) and the guard policy: read-only, "
        "sudo, Windows interop, allowed commands and paths, limits. Call it first; the policy decides what "
        "every other tool accepts. A stopped distro is reported, not started. In mirrored networking a port "
        "Windows holds cannot be bound inside the distro. Without WSL_DISTRO it returns setup instructions.",
    ),
    "wsl_connect": ToolSpec(
        "Open a WSL session",
        (False, False, False, False),
        "Open a session and return its id. A session remembers one thing: the working directory, so "
        "'cd /opt/app' in one wsl_exec applies to the next wsl_exec that passes the session. Environment "
        "variables, shell functions and background jobs do not persist (each call is a new process). Use "
        "it for a series of related commands; for one command, call wsl_exec without a session. Fails if "
        "the directory does not exist or the guard refuses it, or when 32 sessions are open. Sessions idle "
        "for 15 minutes are forgotten; close with wsl_disconnect.",
    ),
    "wsl_disconnect": ToolSpec(
        "Close a WSL session",
        (False, False, True, False),
        "Forget a session opened with wsl_connect. Nothing runs in the distro and no process is killed; "
        "only this server's memory of the directory goes. An unknown or expired id is an error that "
        "lists the open sessions.",
    ),
    "wsl_list_sessions": ToolSpec(
        "List open WSL sessions",
        (True, False, True, False),
        "List this server's open sessions with their working directory, command count, idle time and "
        "time left before idle expiry. Use it to recover a session id; use wsl_list_hosts for the distro "
        "itself.",
    ),
    "wsl_exec": ToolSpec(
        "Run a command in WSL",
        (False, True, False, True),
        "Run a bash command in the distro (login shell, as the configured user) and return exit code, "
        "duration, stdout and stderr. A non-zero exit code is normal output, not a tool error: read it. "
        "Pass 'session' to run in, and update, that session's directory. stdin is closed and there is no "
        "TTY, so prompts fail at once: use -y / sudo -n / top -bn1. On timeout the processes the command "
        "started are killed and the reply names them (one that drops its environment, as under sudo or "
        "env -i, can escape); a job meant to outlive the call must detach all "
        "three streams: nohup cmd > log 2>&1 < /dev/null &. Output past WSL_MAX_OUTPUT characters per "
        "stream is cut with a marker; a runaway writer is killed. Refused before anything runs: "
        "catastrophic commands (wiping /, formatting disks, shutting the distro down) and whatever the "
        "policy in wsl_list_hosts forbids (read-only, sudo, Windows .exe interop and /mnt writes by "
        "default). For files prefer wsl_read_file, wsl_write_file and wsl_list_dir.",
    ),
    "wsl_list_dir": ToolSpec(
        "List a directory in WSL",
        (True, False, True, False),
        "List a directory in the distro: type, octal mode, size and modification time (UTC) per entry, "
        "directories first; at most 1000 entries (the reply says when more exist). Cheaper and more "
        "exact than 'ls -la' through wsl_exec, and allowed on a read-only profile. Symlinks in the path "
        "are resolved and the reply shows the resolved path. Fails on a missing path or a file.",
    ),
    "wsl_read_file": ToolSpec(
        "Read a file in WSL",
        (True, False, True, False),
        "Read a text file in the distro and return its leading bytes as UTF-8, up to WSL_MAX_READ_BYTES "
        "(or maxBytes if lower); a longer file is cut and the reply says so, so large logs are safe. "
        "/proc and /sys files that report size 0 are read. Invalid UTF-8 is shown as U+FFFD with a note: "
        "use wsl_download for binary files. Fails on a missing path, a directory (use wsl_list_dir) or a "
        "device/FIFO.",
    ),
    "wsl_write_file": ToolSpec(
        "Write a file in WSL",
        (False, True, False, False),
        "Write (or append) UTF-8 text to a file in the distro, atomically: the text goes to a new file "
        "beside the target, is verified, takes the target's mode and replaces it in one rename, so a "
        "failure never leaves a half-written file. The content never passes through a shell: prefer this "
        "to heredocs or echo in wsl_exec. The parent directory must exist. Refused on a read-only profile, "
        "outside WSL_ALLOWED_PATHS, and under /mnt/<drive>/ unless Windows writes are allowed. For binary "
        "data use wsl_upload.",
    ),
    "wsl_upload": ToolSpec(
        "Upload a file into WSL",
        (False, True, True, False),
        "Copy a file from this machine into the distro, byte-exact (binary is fine, any size). The "
        "destination is replaced atomically only after its SHA-256 matches. The reply gives the resolved "
        "local path (check it: on Windows '/tmp/x' means <current drive>:\\tmp\\x), the size and the "
        "SHA-256. The remote parent directory must exist. Refused: local credential files and MCP "
        "configuration, read-only profiles, paths outside WSL_ALLOWED_PATHS. For text you already hold, "
        "wsl_write_file is simpler.",
    ),
    "wsl_download": ToolSpec(
        "Download a file from WSL",
        (False, True, True, False),
        "Copy a file from the distro to this machine, byte-exact (binary is fine, any size). It lands in "
        "a partial file that replaces the destination only when complete and its SHA-256 matches, so a "
        "failure leaves any existing file untouched. The reply gives the resolved local path (check it), "
        "the size and the SHA-256. The local directory must already exist. Refused: local credential and "
        "MCP configuration locations, paths outside WSL_ALLOWED_PATHS. To just look at text, "
        "wsl_read_file is cheaper.",
    ),
}


def _advertised(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` as the tools advertise and check it: no argument beyond its properties, and an
    optional argument (``T | None = None`` in Python) as the plain ``T`` it is when given, to be
    left out rather than sent as null, as the reference writes ``timeoutMs?: integer > 0``. A
    client that types a value from the schema (the MCP Inspector CLI) can then set it."""
    properties = {}
    for key, prop in schema.get("properties", {}).items():
        typed = [alt for alt in prop.get("anyOf", ()) if alt.get("type") != "null"]
        optional = len(typed) == 1 and len(prop["anyOf"]) == 2 and prop.get("default", ...) is None
        rest = {k: v for k, v in prop.items() if k not in ("anyOf", "default")}
        properties[key] = {**typed[0], **rest} if optional else prop
    return {**schema, "properties": properties, "additionalProperties": False}


class StrictArgumentsServer(MCPServer):
    """Checks every call against its tool's schema with ``wslmcp.arguments`` (the validation path
    observe uses too) before the tool runs; a bad call is JSON-RPC -32602 and nothing runs.

    Strict JSON types where the SDK would coerce (``timeoutMs: true`` is not 1 ms, ``"500"`` is not
    500), and arguments a tool does not declare are refused where the SDK would drop them: a
    misspelt ``timeout_ms`` must not run a command for the profile's full timeout. Schemas say so
    (``additionalProperties: false``).
    """

    async def list_tools(self) -> list[Tool]:
        return [
            tool.model_copy(update={"input_schema": _advertised(tool.input_schema)})
            for tool in await super().list_tools()
        ]

    _schemas: dict[str, dict[str, Any]] | None = None

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        if self._schemas is None:  # built once, not on every call
            self._schemas = {t.name: t.input_schema for t in await self.list_tools()}
        schema = self._schemas.get(name)
        if schema is not None:
            try:
                check_schema(name, schema, arguments)
            except InvalidArguments as exc:
                raise MCPError(INVALID_PARAMS, str(exc)) from None
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:  # --replay: a request the scenario lacks is a JSON-RPC error naming it
            miss = replay_miss.find(exc)
            if miss is None:
                raise
            raise MCPError(INTERNAL_ERROR, replay_miss.message(miss)) from None


def build_server(service: ShellService) -> MCPServer:
    server: MCPServer = StrictArgumentsServer(
        name="wslmcp-shell",
        version=__version__,
        instructions=INSTRUCTIONS,
        # the SDK's own logging (stderr): quiet unless something is wrong, silent when asked
        log_level="CRITICAL" if service.config.log_level == "silent" else "WARNING",
    )

    def tool(name: str) -> Callable[[_Handler], _Handler]:
        spec = TOOLS[name]
        return server.tool(name=name, description=spec.description, annotations=spec.annotations())

    @tool("wsl_list_hosts")
    async def wsl_list_hosts() -> CallToolResult:
        return _result(await service.list_hosts())

    @tool("wsl_connect")
    async def wsl_connect(
        cwd: Annotated[
            str | None,
            Field(
                description="Absolute directory to start in. Defaults to WSL_CWD, else the login directory.",
            ),
        ] = None,
    ) -> CallToolResult:
        return _result(await service.connect(cwd))

    @tool("wsl_disconnect")
    async def wsl_disconnect(
        session: Annotated[str, Field(min_length=1, description="Session id returned by wsl_connect.")],
    ) -> CallToolResult:
        return _result(await service.disconnect(session))

    @tool("wsl_list_sessions")
    async def wsl_list_sessions() -> CallToolResult:
        return _result(await service.list_sessions())

    @tool("wsl_exec")
    async def wsl_exec(
        command: Annotated[
            str,
            Field(
                min_length=1,
                description="Bash command text, as typed in a terminal; ';', '&&', '||' and pipes are allowed "
                "and every part is screened.",
            ),
        ],
        session: Annotated[
            str | None, Field(description="Session id from wsl_connect; omit for a one-off call.")
        ] = None,
        cwd: Annotated[
            str | None,
            Field(
                description="Absolute directory to run in; with a session, the session moves there too. "
                "Defaults to the session's directory, else WSL_CWD, else the login directory.",
            ),
        ] = None,
        timeoutMs: Annotated[
            int | None,
            Field(
                gt=0,
                description="Lower the timeout for this call (milliseconds); capped by WSL_EXEC_TIMEOUT_MS.",
            ),
        ] = None,
    ) -> CallToolResult:
        return _result(await service.exec(command, session=session, cwd=cwd, timeout_ms=timeoutMs))

    @tool("wsl_list_dir")
    async def wsl_list_dir(
        path: Annotated[
            str,
            Field(
                min_length=1,
                description="Absolute directory path in the distro (inside WSL_ALLOWED_PATHS if set).",
            ),
        ],
        session: Annotated[str | None, Field(description=SESSION_FOR_FILES)] = None,
    ) -> CallToolResult:
        return _result(await service.list_dir(path, session))

    @tool("wsl_read_file")
    async def wsl_read_file(
        path: Annotated[str, Field(min_length=1, description="Absolute file path in the distro.")],
        session: Annotated[str | None, Field(description=SESSION_FOR_FILES)] = None,
        maxBytes: Annotated[
            int | None,
            Field(gt=0, description="Lower the byte ceiling for this call; capped by WSL_MAX_READ_BYTES."),
        ] = None,
    ) -> CallToolResult:
        return _result(await service.read_file(path, session, maxBytes))

    @tool("wsl_write_file")
    async def wsl_write_file(
        path: Annotated[str, Field(min_length=1, description="Absolute file path in the distro.")],
        content: Annotated[str, Field(description="Text to write (may be empty).")],
        append: Annotated[bool, Field(description="Append to the file instead of replacing it.")] = False,
        session: Annotated[str | None, Field(description=SESSION_FOR_FILES)] = None,
    ) -> CallToolResult:
        return _result(await service.write_file(path, content, append, session))

    @tool("wsl_upload")
    async def wsl_upload(
        localPath: Annotated[str, Field(min_length=1, description="File on this machine; '~' is expanded.")],
        remotePath: Annotated[
            str,
            Field(
                min_length=1, description="Absolute destination FILE path in the distro (not a directory)."
            ),
        ],
        session: Annotated[str | None, Field(description=SESSION_FOR_FILES)] = None,
    ) -> CallToolResult:
        return _result(await service.upload(localPath, remotePath, session))

    @tool("wsl_download")
    async def wsl_download(
        remotePath: Annotated[
            str, Field(min_length=1, description="Absolute source file path in the distro.")
        ],
        localPath: Annotated[
            str, Field(min_length=1, description="Destination file on this machine; '~' is expanded.")
        ],
        session: Annotated[str | None, Field(description=SESSION_FOR_FILES)] = None,
    ) -> CallToolResult:
        return _result(await service.download(remotePath, localPath, session))

    return server
