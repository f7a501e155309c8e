"""The shell server's tools as plain data: names, titles, descriptions, input and output schemas
and behaviour hints, in ``tools/list`` order, plus the server's instructions.

Arguments are checked against ``input_schema`` by ``wslmcp.arguments`` before a tool runs (every
schema is closed: an argument a tool does not declare is refused). ``shell.handlers`` maps each
name to the ``ShellService`` operation; ``shell.replies`` renders what it returns as the text and
the ``structuredContent`` the output schema describes. This module imports nothing heavy, so a
server can list its tools before its domain has loaded.
"""

from __future__ import annotations

from typing import Any

from wslmcp.catalogue import Hints, ServerSpec, ToolSpec

INSTRUCTIONS = """Runs commands and moves files in ONE WSL distro as ONE Linux user, both fixed by this server's configuration; no tool takes a distro or user.
Start with wsl_list_hosts: it shows the distro, its state and the guard policy that decides what the other tools accept.
One-off commands: wsl_exec. Several related commands: wsl_connect, then wsl_exec with its session (only the working directory persists), then wsl_disconnect.
Prefer wsl_read_file / wsl_write_file / wsl_list_dir over cat, heredocs and ls in wsl_exec; use wsl_upload / wsl_download for binary or large files.
There is no TTY and stdin is closed: use non-interactive flags (apt-get -y, sudo -n, top -bn1). A job that must outlive its call needs: nohup cmd > log 2>&1 < /dev/null &
A refusal by the guard is a policy decision: do not retry it in another spelling. A non-zero exit code is normal output, not a tool error. Ask the operator before irreversible actions."""

# Hints: (readOnly, destructive, idempotent, openWorld). openWorld: a command reaches whatever the
# distro reaches; the file tools touch only the named files.
_LOOKS = Hints(read_only=True, destructive=False, idempotent=True, open_world=False)
_MEMORY = Hints(read_only=False, destructive=False, idempotent=False, open_world=False)
_FORGETS = Hints(read_only=False, destructive=False, idempotent=True, open_world=False)
_RUNS = Hints(read_only=False, destructive=True, idempotent=False, open_world=True)
_WRITES = Hints(read_only=False, destructive=True, idempotent=False, open_world=False)
_COPIES = Hints(read_only=False, destructive=True, idempotent=True, open_world=False)


def _text(description: str, *, min_length: int = 1) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string", "description": description}
    if min_length:
        schema["minLength"] = min_length
    return schema


def _positive(description: str) -> dict[str, Any]:
    return {"type": "integer", "minimum": 1, "description": description}


def _arguments(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = list(required)
    return schema


def _answer(properties: dict[str, Any], required: tuple[str, ...]) -> dict[str, Any]:
    """A success's ``structuredContent`` (a failure's is ``{"error": {"code", "message"}}``)."""
    return {"type": "object", "properties": properties, "required": list(required)}


_SESSION = _text("Session id from wsl_connect; omit for a one-off call.")
_FILE_SESSION = _text(
    "Optional session id from wsl_connect; only checked to exist. File tools do not use the "
    "session's directory: paths are absolute."
)
_STRING = {"type": "string"}
_INTEGER = {"type": "integer"}
_BOOLEAN = {"type": "boolean"}
_MAYBE_STRING = {"type": ["string", "null"]}
_STRINGS = {"type": "array", "items": _STRING}
_STREAM = {
    "type": "object",
    "properties": {"text": _STRING, "totalChars": _INTEGER, "droppedChars": _INTEGER, "bytes": _INTEGER},
    "required": ["text", "totalChars", "droppedChars", "bytes"],
}
_SESSION_ROW = {
    "type": "object",
    "properties": {
        "session": _STRING,
        "cwd": _MAYBE_STRING,
        "commands": _INTEGER,
        "idleS": _INTEGER,
        "expiresInS": _INTEGER,
        "openedAt": _STRING,
        "busy": _BOOLEAN,
    },
    "required": ["session", "cwd", "commands", "idleS", "expiresInS", "openedAt", "busy"],
}
_ENTRY = {
    "type": "object",
    "properties": {"name": _STRING, "kind": _STRING, "mode": _STRING, "size": _INTEGER, "mtime": _STRING},
    "required": ["name", "kind", "mode", "size", "mtime"],
}
_TRANSFER = _answer(
    {"local": _STRING, "remote": _STRING, "bytes": _INTEGER, "sha256": _STRING},
    ("local", "remote", "bytes", "sha256"),
)

TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "wsl_list_hosts",
        "Show the WSL distro and policy",
        "Show the one WSL distro and Linux user this server works in, its state (running or stopped, "
        "WSL version, networking mode, whether systemd is PID 1, kernel) and the guard policy: read-only, "
        "sudo, Windows interop, allowed commands and paths, limits. Call it first; the policy decides what "
        "every other tool accepts. A stopped distro is reported, not started. In mirrored networking a port "
        "Windows holds cannot be bound inside the distro. Without WSL_DISTRO it returns setup instructions.",
        _arguments({}),
        _answer(
            {
                "configured": _BOOLEAN,
                "name": _STRING,
                "distro": _STRING,
                "user": _MAYBE_STRING,
                "transport": _STRING,
                "state": {"type": "object"},
                "policy": {"type": "object"},
                "limits": {"type": "object"},
            },
            ("configured",),
        ),
        _LOOKS,
    ),
    ToolSpec(
        "wsl_connect",
        "Open a WSL session",
        "Open a session and return its id. A session remembers one thing: the working directory, so "
        "'cd /opt/app' in one wsl_exec applies to the next wsl_exec that passes the session. Environment "
        "variables, shell functions and background jobs do not persist (each call is a new process). Use "
        "it for a series of related commands; for one command, call wsl_exec without a session. Fails if "
        "the directory does not exist or the guard refuses it, or when 32 sessions are open. Sessions idle "
        "for 15 minutes are forgotten; close with wsl_disconnect.",
        _arguments(
            {"cwd": _text("Absolute directory to start in. Defaults to WSL_CWD, else the login directory.")}
        ),
        _answer(
            {"session": _STRING, "cwd": _MAYBE_STRING, "readOnly": _BOOLEAN}, ("session", "cwd", "readOnly")
        ),
        _MEMORY,
    ),
    ToolSpec(
        "wsl_disconnect",
        "Close a WSL session",
        "Forget a session opened with wsl_connect. Nothing runs in the distro and no process is killed; "
        "only this server's memory of the directory goes. An unknown or expired id is an error that "
        "lists the open sessions.",
        _arguments({"session": _text("Session id returned by wsl_connect.")}, ("session",)),
        _answer({"session": _STRING}, ("session",)),
        _FORGETS,
    ),
    ToolSpec(
        "wsl_list_sessions",
        "List open WSL sessions",
        "List this server's open sessions with their working directory, command count, idle time and "
        "time left before idle expiry. Use it to recover a session id; use wsl_list_hosts for the distro "
        "itself.",
        _arguments({}),
        _answer(
            {"sessions": {"type": "array", "items": _SESSION_ROW}, "limit": _INTEGER}, ("sessions", "limit")
        ),
        _LOOKS,
    ),
    ToolSpec(
        "wsl_exec",
        "Run a command in WSL",
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
        _arguments(
            {
                "command": _text(
                    "Bash command text, as typed in a terminal; ';', '&&', '||' and pipes are allowed "
                    "and every part is screened."
                ),
                "session": _SESSION,
                "cwd": _text(
                    "Absolute directory to run in; with a session, the session moves there too. "
                    "Defaults to the session's directory, else WSL_CWD, else the login directory."
                ),
                "timeoutMs": _positive(
                    "Lower the timeout for this call (milliseconds); capped by WSL_EXEC_TIMEOUT_MS."
                ),
            },
            ("command",),
        ),
        _answer(
            {
                "exitCode": {"type": ["integer", "null"]},
                "durationMs": _INTEGER,
                "timedOut": _BOOLEAN,
                "timeoutMs": _INTEGER,
                "timeoutCappedFromMs": _INTEGER,
                "stdout": _STREAM,
                "stderr": _STREAM,
                "killed": _STRINGS,
                "cwd": _MAYBE_STRING,
            },
            ("exitCode", "durationMs", "timedOut", "stdout", "stderr"),
        ),
        _RUNS,
    ),
    ToolSpec(
        "wsl_list_dir",
        "List a directory in WSL",
        "List a directory in the distro: type, octal mode, size and modification time (UTC) per entry, "
        "directories first; at most 1000 entries (the reply says when more exist). Cheaper and more "
        "exact than 'ls -la' through wsl_exec, and allowed on a read-only profile. Symlinks in the path "
        "are resolved and the reply shows the resolved path. Fails on a missing path or a file.",
        _arguments(
            {
                "path": _text("Absolute directory path in the distro (inside WSL_ALLOWED_PATHS if set)."),
                "session": _FILE_SESSION,
            },
            ("path",),
        ),
        _answer(
            {
                "path": _STRING,
                "resolved": _STRING,
                "total": _INTEGER,
                "truncated": _BOOLEAN,
                "entries": {"type": "array", "items": _ENTRY},
            },
            ("path", "resolved", "total", "truncated", "entries"),
        ),
        _LOOKS,
    ),
    ToolSpec(
        "wsl_read_file",
        "Read a file in WSL",
        "Read a text file in the distro and return its leading bytes as UTF-8, up to WSL_MAX_READ_BYTES "
        "(or maxBytes if lower); a longer file is cut and the reply says so, so large logs are safe. "
        "/proc and /sys files that report size 0 are read. Invalid UTF-8 is shown as U+FFFD with a note: "
        "use wsl_download for binary files. Fails on a missing path, a directory (use wsl_list_dir) or a "
        "device/FIFO.",
        _arguments(
            {
                "path": _text("Absolute file path in the distro."),
                "session": _FILE_SESSION,
                "maxBytes": _positive("Lower the byte ceiling for this call; capped by WSL_MAX_READ_BYTES."),
            },
            ("path",),
        ),
        _answer(
            {
                "path": _STRING,
                "resolved": _STRING,
                "size": _INTEGER,
                "bytesRead": _INTEGER,
                "truncated": _BOOLEAN,
                "utf8": _BOOLEAN,
                "content": _STRING,
            },
            ("path", "resolved", "size", "bytesRead", "truncated", "utf8", "content"),
        ),
        _LOOKS,
    ),
    ToolSpec(
        "wsl_write_file",
        "Write a file in WSL",
        "Write (or append) UTF-8 text to a file in the distro, atomically: the text goes to a new file "
        "beside the target, is verified, takes the target's mode and replaces it in one rename, so a "
        "failure never leaves a half-written file. The content never passes through a shell: prefer this "
        "to heredocs or echo in wsl_exec. The parent directory must exist. Refused on a read-only profile, "
        "outside WSL_ALLOWED_PATHS, and under /mnt/<drive>/ unless Windows writes are allowed. For binary "
        "data use wsl_upload.",
        _arguments(
            {
                "path": _text("Absolute file path in the distro."),
                "content": _text("Text to write (may be empty).", min_length=0),
                "append": {
                    "type": "boolean",
                    "default": False,
                    "description": "Append to the file instead of replacing it.",
                },
                "session": _FILE_SESSION,
            },
            ("path", "content"),
        ),
        _answer(
            {"path": _STRING, "resolved": _STRING, "bytes": _INTEGER, "append": _BOOLEAN},
            ("path", "resolved", "bytes", "append"),
        ),
        _WRITES,
    ),
    ToolSpec(
        "wsl_upload",
        "Upload a file into WSL",
        "Copy a file from this machine into the distro, byte-exact (binary is fine, any size). The "
        "destination is replaced atomically only after its SHA-256 matches. The reply gives the resolved "
        "local path (check it: on Windows '/tmp/x' means <current drive>:\\tmp\\x), the size and the "
        "SHA-256. The remote parent directory must exist. Refused: local credential files and MCP "
        "configuration, read-only profiles, paths outside WSL_ALLOWED_PATHS. For text you already hold, "
        "wsl_write_file is simpler.",
        _arguments(
            {
                "localPath": _text("File on this machine; '~' is expanded."),
                "remotePath": _text("Absolute destination FILE path in the distro (not a directory)."),
                "session": _FILE_SESSION,
            },
            ("localPath", "remotePath"),
        ),
        _TRANSFER,
        _COPIES,
    ),
    ToolSpec(
        "wsl_download",
        "Download a file from WSL",
        "Copy a file from the distro to this machine, byte-exact (binary is fine, any size). It lands in "
        "a partial file that replaces the destination only when complete and its SHA-256 matches, so a "
        "failure leaves any existing file untouched. The reply gives the resolved local path (check it), "
        "the size and the SHA-256. The local directory must already exist. Refused: local credential and "
        "MCP configuration locations, paths outside WSL_ALLOWED_PATHS. To just look at text, "
        "wsl_read_file is cheaper.",
        _arguments(
            {
                "remotePath": _text("Absolute source file path in the distro."),
                "localPath": _text("Destination file on this machine; '~' is expanded."),
                "session": _FILE_SESSION,
            },
            ("remotePath", "localPath"),
        ),
        _TRANSFER,
        _COPIES,
    ),
)
SERVER = ServerSpec("wslmcp-shell", INSTRUCTIONS, TOOLS)
