"""The shell tools' answers: every ``results`` value rendered as the text a model reads, the same
facts as ``structuredContent`` (the shapes ``shell.tools`` declares as output schemas) and the
error flag. The texts are pinned by the scenarios' expected replies and the tests."""

from __future__ import annotations

import textwrap
from datetime import UTC, datetime
from typing import Any

from wslmcp.arguments import quoted
from wslmcp.catalogue import Reply, error_reply
from wslmcp.shell.config import VARIABLES, ShellConfig
from wslmcp.shell.edits import MIN_SIMILARITY
from wslmcp.shell.execution import CWD_FAILURE, signal_words
from wslmcp.shell.execution import render as render_exec
from wslmcp.shell.files import Listing
from wslmcp.shell.output import Stream
from wslmcp.shell.processes import GRACE_S, Ending, View
from wslmcp.shell.results import (
    Checked,
    Closed,
    Edited,
    EditMismatch,
    Failed,
    FileRead,
    Hosts,
    Listed,
    Noted,
    NotSetUp,
    Opened,
    Processes,
    ProcessOutput,
    Ran,
    Refusal,
    Result,
    Searched,
    SessionRow,
    Sessions,
    Stopped,
    Transferred,
    Wrote,
)
from wslmcp.shell.status import status_line
from wslmcp.wording import counted


def shown_path(path: str, resolved: str) -> str:
    """The path as given, with where it resolved to when that differs."""
    return path if resolved == path else f"{path} (→ {resolved})"


def format_bytes(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} KB"
    return f"{n / 1048576:.1f} MB"


def render(result: Result) -> Reply:
    match result:
        case Noted(inner, notes):
            return _noted(render(inner), notes)
        case Refusal(refused):
            return error_reply("refused", refused.render())
        case Failed(tool, reason):
            return error_reply("failed", f"{tool} failed: {reason}")
        case Ran():
            return Reply(_ran_text(result), _ran(result))
        case Opened():
            return Reply(
                _opened(result), {"session": result.session, "cwd": result.cwd, "readOnly": result.readonly}
            )
        case Closed(session):
            return Reply(
                f"Closed session {session}. Nothing ran in the distro; only this server forgot the directory.",
                {"session": session},
            )
        case Sessions():
            return Reply(
                _sessions(result), {"sessions": [_session(r) for r in result.rows], "limit": result.limit}
            )
        case Listed(path, listing):
            return Reply(render_listing(path, listing), _listed(path, listing))
        case FileRead():
            return Reply(_read(result), _file_read(result))
        case Wrote():
            verb = "Appended" if result.append else "Wrote"
            shown = shown_path(result.path, result.resolved)
            return Reply(
                f"{verb} {format_bytes(result.size)} to {shown} (atomically: a new file was verified and renamed into place).",
                {
                    "path": result.path,
                    "resolved": result.resolved,
                    "bytes": result.size,
                    "append": result.append,
                },
            )
        case Transferred(direction, t):
            verb, ends = (
                ("Uploaded", (t.local, t.remote))
                if direction == "upload"
                else ("Downloaded", (t.remote, t.local))
            )
            return Reply(
                f"{verb} {format_bytes(t.size)} ({t.size} bytes): {ends[0]} → {ends[1]}\nsha256: {t.sha256}",
                {"local": t.local, "remote": t.remote, "bytes": t.size, "sha256": t.sha256},
            )
        case Edited():
            return Reply(_edited(result), _edited_data(result))
        case EditMismatch():
            return Reply(_mismatch(result), _mismatch_data(result), is_error=True)
        case Searched():
            return Reply(_searched(result), _searched_data(result))
        case ProcessOutput():
            return Reply(_process_output(result), _process_output_data(result))
        case Stopped(view, ending):
            return Reply(
                _stopped(view, ending),
                {
                    **_process_data(view),
                    "sent": list(ending.sent),
                    "killed": list(ending.killed),
                    "survivors": list(ending.survivors),
                },
            )
        case Processes():
            return Reply(_processes(result), _processes_data(result))
        case NotSetUp(plain_linux):
            return Reply(LINUX_SETUP_TEXT if plain_linux else SETUP_TEXT, {"configured": False})
        case Hosts():
            return Reply(_hosts(result), _hosts_data(result))


def _noted(reply: Reply, notes: tuple[str, ...]) -> Reply:
    """``notes`` after the reply's first line (its status), and as ``sandboxNotes``."""
    head, sep, rest = reply.text.partition("\n")
    text = "\n".join([head, *notes]) + sep + rest
    return Reply(text, {**reply.structured, "sandboxNotes": list(notes)}, reply.is_error)


def _ran_text(r: Ran) -> str:
    text = render_exec(
        r.outcome,
        timeout_ms=r.timeout_ms,
        max_chars=r.max_chars,
        cap=r.cap,
        transport_kind=r.transport_kind,
        cwd=r.cwd,
        cwd_note=r.cwd_note,
        sandbox_note=r.sandbox_note,
        sandboxed=r.sandbox is not None,
    )
    notes = []
    if r.capped_from_ms is not None:
        notes.append(
            f"timeoutMs {r.capped_from_ms} is above this profile's WSL_EXEC_TIMEOUT_MS: capped to {r.timeout_ms}ms."
        )
    if r.unsandboxed:
        notes.append("Ran outside the sandbox, as a person approved.")
    if not notes:
        return text
    head, _, rest = text.partition("\n")
    return "\n".join([head, *notes, rest])


def _stream(stream: Stream) -> dict[str, Any]:
    return {
        "text": stream.text,
        "totalChars": stream.total_chars,
        "droppedChars": stream.dropped_chars,
        "droppedLines": stream.dropped_lines,
        "bytes": stream.total_bytes,
    }


def _ran(r: Ran) -> dict[str, Any]:
    o = r.outcome
    data: dict[str, Any] = {
        "exitCode": o.exit_code,
        "signal": o.status.signal,
        "durationMs": o.duration_ms,
        "timedOut": o.timed_out,
        "timeoutMs": r.timeout_ms,
        "stdout": _stream(o.stdout),
        "stderr": _stream(o.stderr),
        "killed": list(o.killed),
    }
    if r.cwd is not None:
        data["cwd"] = r.cwd
    if r.capped_from_ms is not None:
        data["timeoutCappedFromMs"] = r.capped_from_ms
    if r.unsandboxed:
        data["unsandboxed"] = True
    if r.sandbox is not None:
        data["sandbox"] = r.sandbox.as_json()
        if r.sandbox_note is not None:
            data["sandboxNote"] = r.sandbox_note
    return data


def _session(row: SessionRow) -> dict[str, Any]:
    return {
        "session": row.session,
        "cwd": row.cwd,
        "commands": row.commands,
        "idleS": row.idle_s,
        "expiresInS": row.left_s,
        "openedAt": datetime.fromtimestamp(row.opened_wall, UTC).isoformat(timespec="seconds"),
        "busy": row.busy,
    }


def _listed(path: str, listing: Listing) -> dict[str, Any]:
    return {
        "path": path,
        "resolved": listing.target.resolved,
        "total": listing.total,
        "truncated": listing.truncated,
        "entries": [
            {"name": e.name, "kind": e.kind, "mode": e.mode, "size": e.size, "mtime": e.mtime}
            for e in listing.entries
        ],
    }


def _file_read(r: FileRead) -> dict[str, Any]:
    data = r.result.data
    return {
        "path": r.path,
        "resolved": r.result.target.resolved,
        "size": r.result.target.size or len(data),
        "bytesRead": len(data),
        "truncated": r.result.truncated,
        "utf8": r.result.utf8,
        "binary": r.result.binary,
        "content": "" if r.result.binary else r.result.text,
    } | _lines_data(r)


def _lines_data(r: FileRead) -> dict[str, Any]:
    """A ranged read's lines: which were returned, how many the file has, whether it holds more."""
    lines = r.result.lines
    if lines is None:
        return {}
    return {"firstLine": lines.first, "lastLine": lines.last, "totalLines": lines.total, "cut": r.result.cut}


def _opened(o: Opened) -> str:
    lines = [f"Opened session {o.session} → {o.endpoint}", f"cwd: {o.cwd}"]
    if o.readonly:
        lines.append("This profile is READ-ONLY: writes, redirections and uploads will be refused.")
    lines.append(f'Run commands with wsl_exec({{"session": "{o.session}", "command": "..."}}).')
    return "\n".join(lines)


def _sessions(s: Sessions) -> str:
    if not s.rows:
        return "No open sessions. Open one with wsl_connect, or omit 'session' to run a one-off command."
    lines = [f"{counted(len(s.rows), 'open session')} (of at most {s.limit}):"]
    for row in s.rows:
        opened = datetime.fromtimestamp(row.opened_wall, UTC).isoformat(timespec="seconds")
        lines += [
            "",
            f"{row.session}  →  {s.endpoint}",
            f"    cwd: {row.cwd or '(login default)'}  ·  {counted(row.commands, 'command')}  ·  idle {row.idle_s}s "
            f"(forgotten in {row.left_s}s)  ·  opened {opened}" + ("  ·  busy" if row.busy else ""),
        ]
    return "\n".join(lines)


BINARY_NOTE = (
    "This is a binary file (it holds NUL bytes), so its content is not shown: use wsl_download for a "
    "byte-exact copy, or look into it with wsl_exec (od -c, xxd, strings)."
)


def _read(r: FileRead) -> str:
    target, data = r.result.target, r.result.data
    shown = shown_path(r.path, target.resolved)
    lines = r.result.lines
    if lines is not None:
        header = f"{shown} — {format_bytes(target.size or 0)}, {lines.total} lines; " + (
            f"lines {lines.first}-{lines.last}" if lines.last >= lines.first else f"no line at {lines.first}"
        )
        if r.result.truncated:
            header += f", cut at {r.limit} bytes"
    else:
        if target.size:
            header = f"{shown} — {format_bytes(target.size)}"
        else:
            header = f"{shown} — {format_bytes(len(data))} read (the file reports size 0)"
        if r.result.truncated:
            header += f", truncated to the first {format_bytes(len(data))} (limit {r.limit} bytes)"
    if r.result.binary:
        return f"{header}\n{BINARY_NOTE}"
    if lines is None and not r.result.utf8:
        header += "\nNote: the content is not valid UTF-8 text (such bytes shown as U+FFFD); use wsl_download for a byte-exact copy."
    return f"{header}\n\n{r.result.text}"


def process_status(v: View) -> str:
    """``<id> running`` / ``exited with code N`` / ``killed by wsl_stop (exit code 143, signal 15,
    SIGTERM)``, and its runtime."""
    status = v.status
    if v.state == "running":
        said = "running"
    elif v.state == "exited":
        said = f"exited with code {status.code}"
    else:
        said = "killed" + (f" by {v.stopped_by}" if v.stopped_by else "")
        if status.code is not None:
            signal = f", {signal_words(status.signal)}" if status.signal is not None else ""
            said += f" (exit code {status.code}{signal})"
    if v.failure:
        said += f": {v.failure}"
    return f"{v.id} {said} · {v.runtime_s:.1f}s"


def _process_output(r: ProcessOutput) -> str:
    v, got = r.process, r.read
    head = f"{process_status(v)} · bytes {got.offset}-{got.next_offset} of {v.output_bytes}"
    lines = [head]
    if r.sent is not None:
        lines.append(
            f"Sent {r.sent} bytes to its stdin" + ("; stdin is now closed." if r.closed_stdin else ".")
        )
    if got.skipped:
        lines.append(
            f"{got.skipped} bytes before byte {got.offset} were pushed out of its output ring "
            "(WSL_PROCESS_OUTPUT_BYTES) before they were read."
        )
    if r.more:
        lines.append(f"{r.more} more bytes follow: wsl_read_output goes on from byte {got.next_offset}.")
    elif v.state == "running" and r.tool == "wsl_start":
        lines.append("Still running: wait for more with wsl_read_output (waitMs), end it with wsl_stop.")
    text = got.text
    return "\n".join([*lines, "", text if text else "(no new output)"])


def _stopped(v: View, e: Ending) -> str:
    lines = [f"{process_status(v)} · {v.output_bytes} bytes of output (wsl_read_output reads what is left)"]
    killed, error = e.killed, e.sweep_error
    if e.already_ended:
        lines[0] = lines[0].replace(f"{v.id} ", f"{v.id} had already ended: ", 1)
        if killed:
            lines.append(
                f"Killed {counted(len(killed), 'process', 'processes')} it left running: {', '.join(killed)}."
            )
    elif killed:
        lines.append(
            f"Signalled {counted(len(killed), 'process', 'processes')} inside the distro: {', '.join(killed)}."
        )
    if not e.already_ended and len(e.sent) > 1:
        lines.append(f"Part of the tree outlived {e.signal} by {GRACE_S:g} s: it was sent KILL.")
    if e.survivors:
        lines.append(
            f"Still running after KILL ({len(e.survivors)}): {', '.join(e.survivors)}; "
            "a process in uninterruptible sleep (D state) dies once its I/O returns."
        )
    if error:
        lines.append(f"The sweep inside the distro failed, so processes may survive: {error}")
    return "\n".join(lines)


def _processes(r: Processes) -> str:
    if not r.rows:
        return f"No background processes. Start one with wsl_start (at most {r.limit} run at once)."
    running = sum(1 for v in r.rows if v.state == "running")
    lines = [
        f"{counted(len(r.rows), 'background process', 'background processes')}, {running} running (at most {r.limit} at once):"
    ]
    for v in r.rows:
        row = f"{process_status(v)} · {format_bytes(v.output_bytes)} · {v.command}"
        if v.id in r.last:
            row += "  (read to its end: not listed again)"
        lines.append(row)
    return "\n".join(lines)


def _edited(e: Edited) -> str:
    counts = ", ".join(str(c) for c in e.counts)
    said = "Dry run, nothing was written: would edit" if e.dry_run else "Edited"
    head = f"{said} {shown_path(e.path, e.resolved)}: {counted(len(e.counts), 'edit')}, replacements {counts}; {e.size_before} → {e.size_after} bytes"
    if not e.diff:
        return head + "\nThe edits leave the file as it was; nothing was written."
    more = f"\n… {e.left_out} more diff lines" if e.left_out else ""
    return f"{head}\n\n{e.diff}{more}"


def _mismatch(m: EditMismatch) -> str:
    x = m.mismatch
    old = m.edit.old_text
    shown = quoted(old, 80).replace("\n", "\\n")
    lines = [
        f'wsl_edit_file changed nothing: edit {x.index + 1} of {m.edits} (oldText "{shown}") matched '
        f"{counted(x.found, 'time')}, expected {x.expected}."
    ]
    if x.found:
        where = ", ".join(str(n) for n in x.lines) + (" …" if x.found > len(x.lines) else "")
        lines.append(
            f"Matches start at {'line' if len(x.lines) == 1 else 'lines'} {where}: add surrounding text to oldText to pick one, or set "
            f"expectedReplacements to {x.found}."
        )
    elif x.changed_by_earlier:
        lines.append(
            "Its text is in the file, but an edit before it in this batch changed it: edits apply in "
            "order, each to the text the ones before it left."
        )
    elif x.near is not None:
        near = x.near
        lines += [
            f"Closest text: line {near.line}, similarity {near.similarity:.2f}; [-sent-]{{+in the file+}}: {near.diff}",
            "Copy oldText exactly from the file (wsl_read_file with offset/limit shows those lines).",
        ]
    elif x.empty:
        lines.append("The file is empty.")
    else:
        lines.append(
            f"No text in the file is even {MIN_SIMILARITY:.0%} like it: read the file (wsl_read_file) "
            "and copy oldText from it."
        )
    return "\n".join(lines)


def _none_found(r: Searched, what: str, where: str) -> str:
    """``No matches under …`` (``what``: how the first case says it), or none from ``offset`` on."""
    head = (
        f"No {what} under {where}"
        if not r.found
        else f"No {what.split(maxsplit=1)[0]} from {r.offset} on ({r.found} found) under {where}"
    )
    return head + (f"; the search was cut short ({r.cut})." if r.cut else ".")


def _files_found(r: Searched, where: str) -> str:
    named = f" match {quoted(r.glob)!r}" if r.glob else ""
    if not r.files:
        return _none_found(r, f"files{named}", where)
    last = r.offset + len(r.files)
    lines = [
        f"Files {r.offset + 1}-{last} of {r.found}{'+' if r.cut else ''}{' that' + named if named else ''} under {where}:"
    ]
    lines += list(r.files)
    if r.next_offset is not None:
        lines.append(f"More files: pass offset {r.next_offset}.")
    if r.cut:
        lines.append(f"The search was cut short ({r.cut}); narrow the path or the glob.")
    return "\n".join(lines)


def _searched(r: Searched) -> str:
    where = shown_path(r.root, r.resolved)
    if r.files is not None:
        return _files_found(r, where)
    if not r.matches:
        return _none_found(r, "matches", where)
    last = r.offset + len(r.matches)
    lines = [f"Matches {r.offset + 1}-{last} of {r.found}{'+' if r.cut else ''} under {where}:"]
    current = None
    for m in r.matches:
        if m.path != current:
            current = m.path
            lines.append(m.path)
        lines += [f"  {m.line - len(m.before) + i}- {text}" for i, text in enumerate(m.before)]
        lines.append(f"  {m.line}: {m.text}")
        lines += [f"  {m.line + 1 + i}- {text}" for i, text in enumerate(m.after)]
    if r.next_offset is not None:
        lines.append(f"More matches: pass offset {r.next_offset}.")
    if r.cut:
        lines.append(
            f"The search was cut short ({r.cut}), so which files made it can differ from call to call; "
            "narrow the path, glob or pattern."
        )
    return "\n".join(lines)


def _process_data(v: View) -> dict[str, Any]:
    return {
        "process": v.id,
        "state": v.state,
        "exitCode": v.status.code,
        "signal": v.status.signal,
        "runtimeMs": round(v.runtime_s * 1000),
        "outputBytes": v.output_bytes,
        "droppedBytes": v.dropped_bytes,
    }


def _process_output_data(r: ProcessOutput) -> dict[str, Any]:
    data: dict[str, Any] = {
        **_process_data(r.process),
        "output": r.read.text,
        "offset": r.read.offset,
        "nextOffset": r.read.next_offset,
        "moreBytes": r.more,
    }
    if r.sent is not None:
        data["sentBytes"] = r.sent
        data["stdinClosed"] = r.closed_stdin
    return data


def _processes_data(r: Processes) -> dict[str, Any]:
    return {
        "processes": [
            {**_process_data(v), "command": v.command, "lastListing": v.id in r.last} for v in r.rows
        ],
        "limit": r.limit,
    }


def _edited_data(e: Edited) -> dict[str, Any]:
    return {
        "path": e.path,
        "resolved": e.resolved,
        "replacements": list(e.counts),
        "diff": e.diff,
        "dryRun": e.dry_run,
        "written": not e.dry_run and bool(e.diff),
        "bytesBefore": e.size_before,
        "bytesAfter": e.size_after,
    }


def _mismatch_data(m: EditMismatch) -> dict[str, Any]:
    x = m.mismatch
    code = "no_match" if x.found == 0 else "match_count"
    near = x.near
    return {
        "error": {"code": code, "message": _mismatch(m)},
        "edit": x.index,
        "matches": x.found,
        "expected": x.expected,
        "lines": list(x.lines),
        "nearMiss": None
        if near is None
        else {"line": near.line, "similarity": near.similarity, "text": near.text, "diff": near.diff},
    }


def _searched_data(r: Searched) -> dict[str, Any]:
    return {
        "path": r.root,
        "matches": [
            {"path": m.path, "line": m.line, "text": m.text, "before": list(m.before), "after": list(m.after)}
            for m in r.matches
        ],
        **({"files": list(r.files)} if r.files is not None else {}),
        "found": r.found,
        "truncated": r.truncated,
        "nextOffset": r.next_offset,
    }


def policy_lines(config: ShellConfig) -> list[str]:
    p = config.policy
    lines = [
        ("READ-ONLY" if p.readonly else "writable")
        + "  ·  "
        + ("sudo=enabled" if p.allow_sudo else "sudo=disabled")
        + "  ·  "
        + (
            "windows=open (interop .exe and /mnt/<drive>/ writes allowed; operator credential and MCP "
            "config paths still refused)"
            if p.allow_windows
            else "windows=locked (no interop .exe, no writes under /mnt/<drive>/)"
        )
    ]
    if p.allowed_paths:
        under_sandbox = "and, under the sandbox, where wsl_exec may write"
        lines.append(
            f"file tools limited to: {', '.join(p.allowed_paths)} "
            f"({under_sandbox if config.sandbox.on else 'does not restrict wsl_exec'})"
        )
    if p.allow_commands:
        lines.append(f"commands limited to: {', '.join(p.allow_commands)}")
    if p.deny_patterns:
        lines.append(f"denied patterns: {', '.join('/' + d.pattern + '/' for d in p.deny_patterns)}")
    lines.append(
        f"limits: timeout {config.exec_timeout_ms}ms  ·  output {config.max_output} characters per "
        f"stream  ·  file reads {config.max_read_bytes} bytes"
    )
    if (
        config.approvals == "ask"
    ):  # never: every refusal is final, as before approvals (policy.approvals says so)
        lines.append(approvals_line(config))
    return lines


def approvals_line(config: ShellConfig) -> str:
    if config.approvals == "never":
        return "approvals: never (WSL_APPROVALS): every refusal is final, no person is asked"
    return "approvals: ask (WSL_APPROVALS): refusals a person may overrule are put to them if the client supports elicitation"


def _hosts(h: Hosts) -> str:
    cfg = h.config
    if h.plain_linux:
        lines = [
            f"{cfg.name}  →  {h.endpoint} (plain Linux, no WSL: commands run on this machine; "
            f"WSL_DISTRO={cfg.distro} is only a label; transport: local)"
        ]
    else:
        lines = [f"{cfg.name}  →  {h.endpoint} (WSL, this machine; transport: {h.transport_kind})"]
    if cfg.description:
        lines.append(f"    {cfg.description}")
    lines.append(f"    {status_line(h.state, h.facts, h.transport_kind)}")
    lines += [f"    {line}" for line in policy_lines(cfg)]
    if h.sandbox:
        lines.append(f"    {h.sandbox}")
    if cfg.cwd:
        lines.append(f"    new sessions start in: {cfg.cwd}")
    return "\n".join(lines)


def _hosts_data(h: Hosts) -> dict[str, Any]:
    cfg, p, state = h.config, h.config.policy, h.state
    facts = h.facts
    return {
        "configured": True,
        "name": cfg.name,
        "distro": cfg.distro,
        "user": cfg.user,
        "transport": h.transport_kind,
        "state": {
            "state": state.state,
            "installed": state.installed,
            "wslVersion": state.wsl_version,
            "networkingMode": facts.networking_mode if facts else None,
            "init": facts.init if facts else None,
            "kernel": facts.kernel if facts else None,
        },
        "policy": {
            "readOnly": p.readonly,
            "sudo": p.allow_sudo,
            "windows": p.allow_windows,
            "allowedPaths": list(p.allowed_paths) if p.allowed_paths is not None else None,
            "allowCommands": list(p.allow_commands) if p.allow_commands is not None else None,
            "denyPatterns": [d.pattern for d in p.deny_patterns],
            "approvals": cfg.approvals,
        },
        "limits": {
            "timeoutMs": cfg.exec_timeout_ms,
            "maxOutputChars": cfg.max_output,
            "outputCapBytes": cfg.output_cap_bytes,
            "maxReadBytes": cfg.max_read_bytes,
        },
        "cwd": cfg.cwd,
        **({"sandbox": h.sandbox} if h.sandbox else {}),
    }


def render_check(c: Checked) -> tuple[str, bool]:
    """The ``--check`` report and whether it passed."""
    cfg = c.config
    if not cfg.configured:
        return UNCONFIGURED_CHECK_ON_LINUX if c.plain_linux else UNCONFIGURED_CHECK, False
    lines = [f"Checking {cfg.name}  →  {c.endpoint}  (transport: {c.transport_kind})", ""]
    pad = " " * 10
    if c.failure is not None and not c.probed:
        return "\n".join([*lines, f"  FAILED  {c.failure}"]), False
    assert c.state is not None
    if not c.state.installed:
        return "\n".join([*lines, f"  FAILED  {status_line(c.state, None, c.transport_kind)}"]), False
    if c.sandbox_failed:
        return "\n".join([*lines, f"  FAILED  {c.sandbox}"]), False
    if c.refused is not None:
        return "\n".join([*lines, f"  FAILED  {c.endpoint}", pad + c.refused.render()]), False
    if c.failure is not None:
        return "\n".join([*lines, f"  FAILED  {c.endpoint}", pad + c.failure]), False
    if c.exit_code != 0:
        said = c.stderr
        if CWD_FAILURE in said:
            said += f" (WSL_CWD={cfg.cwd})"
        what = "timed out" if c.timed_out else f"exit code {c.exit_code}"
        return "\n".join([*lines, f"  FAILED  {c.endpoint}  {what}", pad + said]), False
    lines.append(f"  OK      {c.stdout}  ({c.duration_ms}ms)")
    lines.append(pad + status_line(c.state, c.facts, c.transport_kind))
    if c.sandbox:
        lines.append(pad + c.sandbox)
    lines.append(pad + approvals_line(cfg))
    return "\n".join(lines), True


def render_listing(path: str, listing: Listing) -> str:
    shown = shown_path(path, listing.target.resolved)
    if listing.total == 0:
        return f"{shown} is empty."
    head = f"{shown} — {counted(listing.total, 'entry', 'entries')}"
    if listing.truncated:
        head += f", showing the first {len(listing.entries)} by name"
    lines = [head + ":", ""]
    marks = {"file": "-", "directory": "d", "symlink": "l"}
    for e in listing.entries:
        name = e.name + ("/" if e.kind == "directory" else "")
        lines.append(f"{marks.get(e.kind, '?')}  {e.mode:>5}  {format_bytes(e.size):>9}  {e.mtime}  {name}")
    if listing.truncated:
        lines += [
            "",
            "Listing was capped; narrow the path, or filter with wsl_exec (find / ls | grep) for the rest.",
        ]
    return "\n".join(lines)


def _optional() -> str:
    """Every variable but the distro and the user (``config.VARIABLES``, the one list), wrapped."""
    names = [name for name, _ in VARIABLES if name not in ("WSL_DISTRO", "WSL_USER")]
    return textwrap.fill(
        "Optional (defaults: wslmcp shell --help): " + ", ".join(names) + ".", 100, break_on_hyphens=False
    )


_RESTART = (
    "Restart this server after changing it: environment variables are fixed for the life of the process."
)

SETUP_TEXT = f"""No WSL distro is registered for this server, so every other tool answers "not configured".

Add the distro (as `wsl -l -q` prints it) and, optionally, the Linux user to this server's entry in
the MCP client configuration:

  "env": {{ "WSL_DISTRO": "Ubuntu", "WSL_USER": "dev" }}

WSL_DISTRO is the whole minimum.
{_optional()}
{_RESTART}"""

LINUX_SETUP_TEXT = f"""This machine is plain Linux (no WSL here), and this server has no WSL_DISTRO set, so every other
tool answers "not configured".

On Linux the server runs commands on this machine itself, as the user running it, in a local login
bash. Set WSL_DISTRO to any label to turn the tools on (WSL_USER, if set, must be that user):

  "env": {{ "WSL_DISTRO": "local" }}

{_optional()}
{_RESTART}"""

UNCONFIGURED_CHECK = "No WSL distro is registered — set WSL_DISTRO (and optionally WSL_USER)."
UNCONFIGURED_CHECK_ON_LINUX = (
    "No WSL_DISTRO is set, and this machine is plain Linux (no WSL): set WSL_DISTRO to any label "
    '("local") to run commands here, as the user running the server.'
)
