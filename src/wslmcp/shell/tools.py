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

from wslmcp.catalogue import Hints, ServerSpec, ToolSpec, nullable, output_schema

INSTRUCTIONS = """Runs commands and works on files in ONE WSL distro as ONE Linux user, fixed by this server's configuration; no tool takes a distro or user.
Start with wsl_list_hosts: it shows the distro, its state and the guard policy that decides what the other tools accept.
Short commands: wsl_exec (wsl_connect gives a session whose working directory persists). Long or interactive ones (builds, tests, servers): wsl_start, then wsl_read_output with waitMs, wsl_send_input, wsl_stop.
Files: wsl_read_file (offset/limit for lines), wsl_edit_file for changes, wsl_write_file for new files, wsl_search to find text, wsl_list_dir; wsl_upload / wsl_download for binary or large files.
There is no TTY and wsl_exec's stdin is closed: use non-interactive flags (apt-get -y, sudo -n).
A guard refusal is final unless a person approves it when asked: do not retry it in another spelling. A non-zero exit code is normal output, not a tool error. Ask the operator before irreversible actions."""

# Hints: (readOnly, destructive, idempotent, openWorld). openWorld: a command reaches whatever the
# distro reaches; the file tools touch only the named files.
_LOOKS = Hints(read_only=True, destructive=False, idempotent=True, open_world=False)
_MEMORY = Hints(read_only=False, destructive=False, idempotent=False, open_world=False)
_FORGETS = Hints(read_only=False, destructive=False, idempotent=True, open_world=False)
_RUNS = Hints(read_only=False, destructive=True, idempotent=False, open_world=True)
_WRITES = Hints(read_only=False, destructive=True, idempotent=False, open_world=False)
_COPIES = Hints(read_only=False, destructive=True, idempotent=True, open_world=False)
_READS_ON = Hints(read_only=True, destructive=False, idempotent=False, open_world=False)  # moves a cursor
_ENDS = Hints(read_only=False, destructive=True, idempotent=True, open_world=False)


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


_SESSION = _text("Session id from wsl_connect; omit for a one-off call.")
_FILE_SESSION = _text(
    "Optional session id from wsl_connect; only checked to exist. File tools do not use the "
    "session's directory: paths are absolute."
)
_UNSANDBOXED = {
    "type": "boolean",
    "description": "Outside the sandbox, if a person approves (asked each time): for sudo and what else the sandbox blocks.",
}
_STRING = {"type": "string"}
_INTEGER = {"type": "integer"}
_BOOLEAN = {"type": "boolean"}
_MAYBE_STRING = nullable("string")
_STRINGS = {"type": "array", "items": _STRING}
# The sandbox the command ran in (sandboxNote: the "[sandbox]" line when it stopped it; sandboxNotes,
# on any tool's reply: what the after-command check undid, and once a session that the sandbox is off)
_SANDBOX = {
    "type": "object",
    "properties": {"mode": _STRING, "writable": _STRINGS, "hidden": _STRINGS, "network": _BOOLEAN},
}
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
_WAIT = {"type": "integer", "minimum": 0, "maximum": 60000}
_PROCESS_ID = _text("Process id from wsl_start (<name>#p<n>).")
_PROCESS = {
    "process": _STRING,
    "state": {"type": "string", "enum": ["running", "exited", "killed"]},
    "exitCode": nullable("integer"),
    "signal": nullable("integer"),
    "runtimeMs": _INTEGER,
    "outputBytes": _INTEGER,
    "droppedBytes": _INTEGER,
}
_OUTPUT = output_schema(
    {
        **_PROCESS,
        "output": _STRING,
        "offset": _INTEGER,
        "nextOffset": _INTEGER,
        "moreBytes": _INTEGER,
        "sentBytes": _INTEGER,
        "stdinClosed": _BOOLEAN,
    },
    ("process", "state", "exitCode", "output", "offset", "nextOffset", "droppedBytes"),
)
_MATCH = {
    "type": "object",
    "properties": {"path": _STRING, "line": _INTEGER, "text": _STRING, "before": _STRINGS, "after": _STRINGS},
    "required": ["path", "line", "text", "before", "after"],
}
_EDIT = {
    "type": "object",
    "properties": {
        "oldText": _text("Exact text to replace, as in the file."),
        "newText": _text("Replacement text.", min_length=0),
        "expectedReplacements": _positive("How many matches oldText must have (default 1)."),
    },
    "required": ["oldText", "newText"],
    "additionalProperties": False,
}
_TRANSFER = output_schema(
    {"local": _STRING, "remote": _STRING, "bytes": _INTEGER, "sha256": _STRING},
    ("local", "remote", "bytes", "sha256"),
)

TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "wsl_list_hosts",
        "Show the WSL distro and policy",
        "Show the distro and Linux user this server works in, its state (running or stopped, WSL "
        "version, networking, systemd, kernel) and the guard policy: read-only, sudo, Windows interop, "
        "allowed commands and paths, limits. Call it first, rather than probing with wsl_exec: the "
        "policy decides what the other tools accept. A stopped distro is reported, not started. Without WSL_DISTRO it explains the setup.",
        _arguments({}),
        output_schema(
            {
                "configured": _BOOLEAN,
                "name": _STRING,
                "distro": _STRING,
                "user": _MAYBE_STRING,
                "transport": _STRING,
                "state": {"type": "object"},
                "policy": {"type": "object"},
                "limits": {"type": "object"},
                "sandbox": _STRING,
            },
            ("configured",),
        ),
        _LOOKS,
    ),
    ToolSpec(
        "wsl_connect",
        "Open a WSL session",
        "Open a session: it remembers only the working directory, so 'cd dir' in one wsl_exec applies "
        "to the next wsl_exec with that session (variables and jobs do not persist). For one command, "
        "call wsl_exec without a session. Fails on a missing or refused directory or at 32 sessions; "
        "idle sessions are forgotten after 15 minutes.",
        _arguments({"cwd": _text("Absolute start directory (default WSL_CWD, else the login directory).")}),
        output_schema(
            {"session": _STRING, "cwd": _MAYBE_STRING, "readOnly": _BOOLEAN}, ("session", "cwd", "readOnly")
        ),
        _MEMORY,
    ),
    ToolSpec(
        "wsl_disconnect",
        "Close a WSL session",
        "Forget a session opened with wsl_connect (no exit through wsl_exec needed). Nothing runs in "
        "the distro and no process is killed (background processes have wsl_stop).",
        _arguments({"session": _text("Session id returned by wsl_connect.")}, ("session",)),
        output_schema({"session": _STRING}, ("session",)),
        _FORGETS,
    ),
    ToolSpec(
        "wsl_list_sessions",
        "List open WSL sessions",
        "List open sessions with their directory, command count, idle time and time before expiry; "
        "use it to recover a session id for wsl_exec.",
        _arguments({}),
        output_schema(
            {"sessions": {"type": "array", "items": _SESSION_ROW}, "limit": _INTEGER}, ("sessions", "limit")
        ),
        _LOOKS,
    ),
    ToolSpec(
        "wsl_exec",
        "Run a command in WSL",
        "Run a bash command (login shell, as the configured user) and return exit code, duration, "
        "stdout and stderr; a non-zero exit code is output, not an error. stdin is closed and there is "
        "no TTY: use -y, sudo -n. On timeout (WSL_EXEC_TIMEOUT_MS) every process it started is killed "
        "and named. For builds, tests and servers that may run longer or need input use wsl_start; to "
        "change a file use wsl_edit_file; to find text, wsl_search. Refused before anything runs: "
        "catastrophic commands and what the policy forbids (see wsl_list_hosts).",
        _arguments(
            {
                "command": _text("Bash command text; every part of it is screened."),
                "session": _SESSION,
                "cwd": _text("Absolute directory to run in (with a session, the session moves there)."),
                "timeoutMs": _positive("Lower timeout for this call (ms), at most WSL_EXEC_TIMEOUT_MS."),
                "unsandboxed": _UNSANDBOXED,
            },
            ("command",),
        ),
        output_schema(
            {
                "exitCode": nullable("integer"),
                "signal": nullable("integer"),
                "durationMs": _INTEGER,
                "timedOut": _BOOLEAN,
                "timeoutMs": _INTEGER,
                "timeoutCappedFromMs": _INTEGER,
                "stdout": _STREAM,
                "stderr": _STREAM,
                "killed": _STRINGS,
                "cwd": _MAYBE_STRING,
                "sandbox": _SANDBOX,
                "sandboxNote": _STRING,
                "unsandboxed": _BOOLEAN,
                "sandboxNotes": _STRINGS,
            },
            ("exitCode", "durationMs", "timedOut", "stdout", "stderr"),
        ),
        _RUNS,
    ),
    ToolSpec(
        "wsl_start",
        "Start a background process in WSL",
        "Start a command in the background (a build, test run, server or REPL) and return after waitMs "
        "or when it exits, with its output so far and an id. Use it instead of wsl_exec with nohup or & "
        "for anything long or interactive: WSL_EXEC_TIMEOUT_MS does not apply, stdout and stderr are "
        "merged, stdin stays open. Then wsl_read_output (waitMs to block), wsl_send_input, wsl_stop. "
        "Same guard and cwd rules as wsl_exec.",
        _arguments(
            {
                "command": _text("Bash command text; every part of it is screened."),
                "cwd": _text("Absolute directory to run in."),
                "session": _SESSION,
                "waitMs": {**_WAIT, "description": "Wait up to this long for output or exit (default 1000)."},
                "unsandboxed": {**_UNSANDBOXED, "description": "As for wsl_exec."},
            },
            ("command",),
        ),
        _OUTPUT,
        _RUNS,
    ),
    ToolSpec(
        "wsl_read_output",
        "Read a background process's output",
        "Read a background process's output from where the last read ended, or from offset (negative: "
        "the last N bytes); at most maxBytes (default 20000). With waitMs it blocks until new output "
        "arrives or the process ends. Use it rather than tail or cat of a log in wsl_exec. An ended "
        "process stays readable until read to its end and listed once more.",
        _arguments(
            {
                "process": _PROCESS_ID,
                "offset": {
                    "type": "integer",
                    "description": "Absolute byte offset; negative: the last N bytes.",
                },
                "maxBytes": _positive("Most bytes to return (default 20000)."),
                "waitMs": {**_WAIT, "description": "Block up to this long for new output (default 0)."},
            },
            ("process",),
        ),
        _OUTPUT,
        _READS_ON,
    ),
    ToolSpec(
        "wsl_send_input",
        "Send input to a background process",
        "Write text to a background process's stdin (end a line with \\n) and return what it printed "
        "within waitMs (default 500); closeStdin ends its input. The text is screened by the guard as "
        "that process's input. For a new command use wsl_exec or wsl_start instead.",
        _arguments(
            {
                "process": _PROCESS_ID,
                "input": _text("Text to write.", min_length=0),
                "closeStdin": {"type": "boolean", "description": "Close stdin after the text."},
                "waitMs": {**_WAIT, "description": "Wait up to this long for its answer (default 500)."},
            },
            ("process", "input"),
        ),
        _OUTPUT,
        _RUNS,
    ),
    ToolSpec(
        "wsl_stop",
        "Stop a background process",
        "End a background process and everything it started inside the distro: TERM (default, then KILL "
        "after 3 s), INT or KILL. Returns its final state and exit code. Use it instead of kill or pkill "
        "in wsl_exec; its output stays readable.",
        _arguments(
            {"process": _PROCESS_ID, "signal": {"type": "string", "enum": ["INT", "TERM", "KILL"]}},
            ("process",),
        ),
        output_schema(
            {**_PROCESS, "sent": _STRINGS, "killed": _STRINGS, "survivors": _STRINGS},
            ("process", "state", "exitCode"),
        ),
        _ENDS,
    ),
    ToolSpec(
        "wsl_list_processes",
        "List background processes",
        "List background processes: id, command, state (running, exited, killed), exit code, runtime "
        "and output bytes. Use it instead of ps in wsl_exec to find a process id.",
        _arguments({}),
        output_schema(
            {"processes": {"type": "array", "items": {"type": "object"}}, "limit": _INTEGER},
            ("processes", "limit"),
        ),
        _READS_ON,
    ),
    ToolSpec(
        "wsl_list_dir",
        "List a directory in WSL",
        "List a directory: type, octal mode, size and modified time (UTC) per entry, directories first, "
        "at most 1000 entries. Use it rather than ls in wsl_exec; allowed on a read-only profile.",
        _arguments(
            {
                "path": _text("Absolute directory path in the distro."),
                "session": _FILE_SESSION,
            },
            ("path",),
        ),
        output_schema(
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
        "Read a text file as UTF-8, up to WSL_MAX_READ_BYTES (or maxBytes); offset and limit pick lines "
        "(offset -50: the last 50) and the reply gives totalLines. Use it rather than cat, head or tail "
        "in wsl_exec. Binary files: wsl_download.",
        _arguments(
            {
                "path": _text("Absolute file path in the distro."),
                "session": _FILE_SESSION,
                "maxBytes": _positive("Lower byte ceiling for this call."),
                "offset": {
                    "type": "integer",
                    "description": "First line, from 1; negative counts from the end.",
                },
                "limit": _positive("Most lines to return."),
            },
            ("path",),
        ),
        output_schema(
            {
                "path": _STRING,
                "resolved": _STRING,
                "size": _INTEGER,
                "bytesRead": _INTEGER,
                "truncated": _BOOLEAN,
                "utf8": _BOOLEAN,
                "binary": _BOOLEAN,
                "content": _STRING,
                "firstLine": _INTEGER,
                "lastLine": _INTEGER,
                "totalLines": _INTEGER,
                "cut": _BOOLEAN,
            },
            ("path", "resolved", "size", "bytesRead", "truncated", "utf8", "content"),
        ),
        _LOOKS,
    ),
    ToolSpec(
        "wsl_write_file",
        "Write a file in WSL",
        "Write or append UTF-8 text to a file atomically: a verified new file beside it takes its mode "
        "and replaces it in one rename. Use it rather than heredocs or echo in wsl_exec; to change part "
        "of a file use wsl_edit_file. The parent directory must exist. Binary data: wsl_upload.",
        _arguments(
            {
                "path": _text("Absolute file path in the distro."),
                "content": _text("Text to write (may be empty).", min_length=0),
                "append": {
                    "type": "boolean",
                    "default": False,
                    "description": "Append instead of replacing.",
                },
                "session": _FILE_SESSION,
            },
            ("path", "content"),
        ),
        output_schema(
            {"path": _STRING, "resolved": _STRING, "bytes": _INTEGER, "append": _BOOLEAN},
            ("path", "resolved", "bytes", "append"),
        ),
        _WRITES,
    ),
    ToolSpec(
        "wsl_edit_file",
        "Edit a file in WSL",
        "Replace exact text in a text file: each edit's oldText must occur expectedReplacements times "
        "(default 1); the edits apply in order, all or none, atomically. Returns a unified diff; a miss "
        "says where the closest text is. Use it instead of sed -i in wsl_exec or rewriting the file "
        "with wsl_write_file. dryRun shows the diff only.",
        _arguments(
            {
                "path": _text("Absolute file path in the distro."),
                "edits": {"type": "array", "items": _EDIT, "minItems": 1},
                "dryRun": {"type": "boolean", "description": "Show the diff, write nothing."},
                "session": _FILE_SESSION,
            },
            ("path", "edits"),
        ),
        output_schema(
            {
                "path": _STRING,
                "resolved": _STRING,
                "replacements": {"type": "array", "items": _INTEGER},
                "diff": _STRING,
                "dryRun": _BOOLEAN,
                "written": _BOOLEAN,
                "bytesBefore": _INTEGER,
                "bytesAfter": _INTEGER,
            },
            ("path", "replacements", "diff", "dryRun", "written"),
        ),
        _WRITES,
    ),
    ToolSpec(
        "wsl_search",
        "Search files in WSL",
        "Search file contents under a path (default: the session's directory) with ripgrep, or grep: "
        "regex or literal, a glob to pick files, context lines, pages of maxResults (default 100) from "
        "offset. Without pattern it finds files by name or path (glob). Skips binary files, .git and "
        "protected credential paths. Use it instead of grep -r, rg or find in wsl_exec.",
        _arguments(
            {
                "pattern": _text(
                    "Regular expression (ripgrep syntax), or text with literal; omit to find files."
                ),
                "path": _text("Absolute file or directory to search."),
                "glob": _text(
                    "Files to search or find: a name (*.py, *.{py,md}) at any depth, or a path below "
                    "path (src/**/*.py); a leading ! excludes."
                ),
                "literal": {"type": "boolean", "description": "Match pattern as plain text."},
                "ignoreCase": _BOOLEAN,
                "contextLines": {"type": "integer", "minimum": 0, "maximum": 10},
                "maxResults": {"type": "integer", "minimum": 1, "maximum": 1000},
                "offset": {"type": "integer", "minimum": 0, "description": "Skip this many matches."},
                "session": _SESSION,
            },
        ),
        output_schema(
            {
                "matches": {"type": "array", "items": _MATCH},
                "files": _STRINGS,
                "truncated": _BOOLEAN,
                "nextOffset": nullable("integer"),
                "found": _INTEGER,
                "path": _STRING,
            },
            ("matches", "truncated", "nextOffset"),
        ),
        _LOOKS,
    ),
    ToolSpec(
        "wsl_upload",
        "Upload a file into WSL",
        "Copy a file from this machine into the distro, byte-exact, any size; replaced atomically after "
        "its SHA-256 matches. The reply gives the resolved local path, size and SHA-256. Use it for "
        "binary or large files rather than encoding them through wsl_exec; for text, wsl_write_file.",
        _arguments(
            {
                "localPath": _text("File on this machine; '~' is expanded."),
                "remotePath": _text("Absolute destination file path in the distro."),
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
        "Copy a file from the distro to this machine, byte-exact, any size; the destination is replaced "
        "only when complete and its SHA-256 matches. The local directory must exist. To look at text, "
        "wsl_read_file is cheaper than cat in wsl_exec.",
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
SERVER = ServerSpec("wslmcp-shell", INSTRUCTIONS, TOOLS, may_ask=True)  # a refusal may become a question
