"""The shell server's operations, one method per tool, each returning the reply text.

The server module only validates arguments and turns a ``Reply`` into an MCP result. Every command,
working directory, adopted session directory and path passes through ``self.guard`` here (file
paths inside ``FileTools``) before any transport call is made.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Concatenate, ParamSpec

from wslmcp.arguments import quoted
from wslmcp.boundaries.clock import Clock
from wslmcp.boundaries.local_files import LocalFiles
from wslmcp.boundaries.shell_transport import ScriptCall, ShellTransport, TransportError
from wslmcp.shell.config import ShellConfig
from wslmcp.shell.errors import Refused, ToolFailure
from wslmcp.shell.execution import CWD_FAILURE, build_script, cwd_marker, render, shape
from wslmcp.shell.files import FileTools, Listing
from wslmcp.shell.guard import Guard
from wslmcp.shell.log import Log
from wslmcp.shell.runner import Runner
from wslmcp.shell.sessions import Session, SessionError, SessionStore
from wslmcp.shell.status import (
    FACTS_SCRIPT,
    FACTS_TIMEOUT_S,
    DistroState,
    Facts,
    parse_facts,
    parse_listing,
    status_line,
)

FAILURES = (ToolFailure, SessionError, TransportError, OSError)

_P = ParamSpec("_P")


_ToolMethod = Callable[Concatenate["ShellService", _P], Awaitable["Reply"]]


def _answers(tool: str) -> Callable[[_ToolMethod[_P]], _ToolMethod[_P]]:
    """Turn what a tool method raises into its reply: a guard refusal (logged at warn, rendered with
    its rule and "nothing was run"), or ``<tool> failed: <reason>`` for any of ``FAILURES``."""

    def wrap(method: _ToolMethod[_P]) -> _ToolMethod[_P]:
        @functools.wraps(method)
        async def answered(self: ShellService, /, *args: _P.args, **kwargs: _P.kwargs) -> Reply:
            try:
                return await method(self, *args, **kwargs)
            except Refused as refused:
                return self._refusal(tool, refused)
            except FAILURES as exc:
                return self._failure(tool, exc)

        return answered

    return wrap


NOT_CONFIGURED = (
    "not configured: no WSL distro is registered for this server. Set WSL_DISTRO (and optionally "
    "WSL_USER) in this server's env block, then restart it; see wsl_list_hosts."
)


@dataclass(frozen=True)
class Reply:
    text: str
    is_error: bool = False


def shown_path(path: str, resolved: str) -> str:
    """The path as given, with where it resolved to when that differs."""
    return path if resolved == path else f"{path} (→ {resolved})"


def format_bytes(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} KB"
    return f"{n / 1048576:.1f} MB"


class ShellService:
    def __init__(
        self,
        config: ShellConfig,
        *,
        runner: Runner | None,
        guard: Guard,
        clock: Clock,
        log: Log,
        local_files: LocalFiles,
        chunk_bytes: int | None = None,
    ) -> None:
        self.config = config
        self.runner = runner
        self.guard = guard
        self.clock = clock
        self.log = log
        self.sessions = SessionStore(clock, config.name)
        self.files = (
            FileTools(
                runner,
                guard,
                local_files,
                timeout_s=config.exec_timeout_ms / 1000,
                where=f"{runner.transport.kind}:{config.distro}:{runner.transport.user or ''}",
                **({"chunk_bytes": chunk_bytes} if chunk_bytes else {}),
            )
            if runner is not None
            else None
        )

    async def startup(self) -> None:
        """Clean up after servers that were killed mid-transfer: their local partial files now, their
        temp files beside targets now on the local transport, else before the first file-tool call
        (never starting a stopped distro just for that)."""
        if self.files is None:
            return
        self.files.reclaim()
        if self.transport_kind == "local":
            await self.files.remove_orphans()

    async def shutdown(self) -> None:
        """After the last request: kill what interrupted calls left running and remove their temp
        files (a cancelled call's own cleanup may not have run)."""
        if self.runner is not None:
            killed = await self.runner.shutdown()
            if killed:
                self.log.info("killed at shutdown", killed=list(killed))
        if self.files is not None:
            await self.files.shutdown()

    # -- shared -----------------------------------------------------------------------------------

    @property
    def transport(self) -> ShellTransport | None:
        """Where scripts run: the runner's transport (None when not configured)."""
        return self.runner.transport if self.runner is not None else None

    @property
    def transport_kind(self) -> str:
        return self.transport.kind if self.transport is not None else "none"

    def _endpoint(self) -> str:
        user = self.config.user or (self.transport.user if self.transport is not None else None)
        return f"{user or '(distro default)'}@{self.config.distro}"

    def _require(self) -> tuple[Runner, FileTools]:
        if self.runner is None or self.files is None or not self.config.configured:
            raise ToolFailure(NOT_CONFIGURED)
        return self.runner, self.files

    def _session(self, sid: str | None) -> Session | None:
        if sid is None or not sid.strip():
            return None
        return self.sessions.get(sid)

    def _refusal(self, tool: str, refused: Refused) -> Reply:
        self.log.warn(
            "refused by the guard",
            tool=tool,
            action=quoted(refused.action),
            rule=refused.decision.rule,
            reason=quoted(refused.decision.reason or ""),
        )
        return Reply(refused.render(), True)

    def _failure(self, tool: str, exc: Exception) -> Reply:
        self.log.info(f"{tool} failed", error=str(exc))
        return Reply(f"{tool} failed: {exc}", True)

    def _check_command(self, command: str, cwd: str | None) -> None:
        """The command with its working directory (``check_command`` screens the cwd too)."""
        decision = self.guard.check_command(command, cwd)
        if not decision.allowed:
            raise Refused(decision, command)

    def _check_cwd(self, cwd: str, action: str) -> None:
        decision = self.guard.check_cwd(cwd)
        if not decision.allowed:
            raise Refused(decision, action)

    @contextlib.asynccontextmanager
    async def _using(self, session: Session | None) -> AsyncIterator[None]:
        if session is None:
            yield
            return
        session.busy += 1
        self.sessions.touch(session)
        try:
            async with session.lock:
                yield
        finally:
            session.busy -= 1
            self.sessions.touch(session)

    # -- wsl_exec ---------------------------------------------------------------------------------

    @_answers("wsl_exec")
    async def exec(
        self,
        command: str,
        *,
        session: str | None = None,
        cwd: str | None = None,
        timeout_ms: int | None = None,
    ) -> Reply:
        runner, _ = self._require()
        sess = self._session(session)
        if "\x00" in command or (cwd and "\x00" in cwd):
            raise ToolFailure("the command or cwd contains a NUL byte, which bash cannot receive")
        requested = cwd.strip() if cwd and cwd.strip() else None
        if requested is not None and not requested.startswith("/"):
            raise ToolFailure(f"cwd must be an absolute directory path, got {quoted(requested)!r}")
        limit = self.config.exec_timeout_ms
        effective = min(timeout_ms, limit) if timeout_ms else limit
        async with self._using(sess):
            run_cwd = requested or (sess.cwd if sess else None) or self.config.cwd
            self._check_command(command, run_cwd)
            return await self._exec(runner, command, sess, run_cwd, effective)

    async def _exec(
        self, runner: Runner, command: str, sess: Session | None, cwd: str | None, timeout_ms: int
    ) -> Reply:
        token = runner.tokens()
        marker = cwd_marker(token) if sess is not None else None
        self.log.debug("running command", command=command, cwd=cwd, timeout_ms=timeout_ms)
        run = await runner.run(
            ScriptCall(
                build_script(command, cwd=cwd, marker=marker),
                timeout_s=timeout_ms / 1000,
                max_output=self.config.hard_output_cap,
            ),
            token=token,
        )
        outcome = shape(run, max_chars=self.config.max_output, marker=marker)
        self.log.info(
            "command finished",
            exit_code=outcome.exit_code,
            duration_ms=outcome.duration_ms,
            timed_out=outcome.timed_out,
            killed=len(outcome.killed),
        )
        if outcome.timed_out or outcome.overflowed:
            self.log.warn(
                "command stopped" + (" at its deadline" if outcome.timed_out else " at the output cap"),
                killed=list(outcome.killed),
                sweep_error=outcome.sweep_error,
            )
        note = None
        shown_cwd = None
        if sess is not None:
            sess.commands += 1
            note, shown_cwd = self._adopt(sess, outcome.reported_cwd)
        return Reply(
            render(
                outcome,
                timeout_ms=timeout_ms,
                max_chars=self.config.max_output,
                hard_cap=self.config.hard_output_cap,
                transport_kind=self.transport_kind,
                cwd=shown_cwd,
                cwd_note=note,
            )
        )

    def _adopt(self, sess: Session, reported: str | None) -> tuple[str | None, str | None]:
        """Adopt the directory the command ended in, if the guard accepts it."""
        if reported is None:
            return (
                "The session's directory was not reported (the command replaced the shell or its output "
                "was cut); the session keeps " + (sess.cwd or "the login directory") + ".",
                sess.cwd,
            )
        if not reported.startswith("/"):
            return (
                f"The reported directory {reported!r} is not absolute; the session keeps its directory.",
                sess.cwd,
            )
        decision = self.guard.check_cwd(reported)
        if not decision.allowed:
            self.log.warn(
                "reported working directory refused; keeping the previous one", reason=decision.reason
            )
            return (
                f"The command ended in a directory the guard refuses ({decision.reason}); "
                f"the session keeps {sess.cwd or 'the login directory'}.",
                sess.cwd,
            )
        sess.cwd = reported
        return None, reported

    # -- sessions ---------------------------------------------------------------------------------

    @_answers("wsl_connect")
    async def connect(self, cwd: str | None = None) -> Reply:
        runner, _ = self._require()
        start = cwd.strip() if cwd and cwd.strip() else self.config.cwd
        if start is not None and not start.startswith("/"):
            raise ToolFailure(f"cwd must be an absolute directory path, got {quoted(start)!r}")
        if start is not None:
            self._check_cwd(start, "open a session")
        self._check_command("pwd", start)
        sess = self.sessions.open(start)
        try:
            async with self._using(sess):
                token = runner.tokens()
                marker = cwd_marker(token)
                run = await runner.run(
                    ScriptCall(
                        build_script("pwd", cwd=start, marker=marker),
                        timeout_s=self.config.exec_timeout_ms / 1000,
                        max_output=1 << 16,
                    ),
                    token=token,
                )
                outcome = shape(run, max_chars=self.config.max_output, marker=marker)
                if outcome.exit_code != 0 or outcome.reported_cwd is None:
                    said = outcome.stderr.text.strip() or (
                        "timed out" if outcome.timed_out else f"exit code {outcome.exit_code}"
                    )
                    raise ToolFailure(f"could not confirm the starting directory: {said}")
                sess.commands += 1
                note, _ = self._adopt(sess, outcome.reported_cwd)
                if note is not None:
                    raise ToolFailure(note)
        except BaseException:
            with contextlib.suppress(SessionError):
                self.sessions.close(sess.id)
            raise
        self.log.info("session opened", session=sess.id, open_sessions=len(self.sessions.all()))
        lines = [f"Opened session {sess.id} → {self._endpoint()}", f"cwd: {sess.cwd}"]
        if self.config.policy.readonly:
            lines.append("This profile is READ-ONLY: writes, redirections and uploads will be refused.")
        lines.append(f'Run commands with wsl_exec({{"session": "{sess.id}", "command": "..."}}).')
        return Reply("\n".join(lines))

    @_answers("wsl_disconnect")
    async def disconnect(self, session: str) -> Reply:
        sess = self.sessions.close(session)
        self.log.info("session closed", session=sess.id, open_sessions=len(self.sessions.all()))
        return Reply(
            f"Closed session {sess.id}. Nothing ran in the distro; only this server forgot the directory."
        )

    @_answers("wsl_list_sessions")
    async def list_sessions(self) -> Reply:
        self._require()
        sessions = self.sessions.all()
        if not sessions:
            return Reply(
                "No open sessions. Open one with wsl_connect, or omit 'session' to run a one-off command."
            )
        lines = [f"{len(sessions)} open session(s) (of at most {self.sessions.limit}):"]
        for s in sessions:
            opened = datetime.fromtimestamp(s.opened_wall, UTC).isoformat(timespec="seconds")
            idle = round(self.sessions.idle_seconds(s))
            left = max(0, round(self.sessions.idle_s - self.sessions.idle_seconds(s)))
            lines += [
                "",
                f"{s.id}  →  {self._endpoint()}",
                f"    cwd: {s.cwd or '(login default)'}  ·  {s.commands} command(s)  ·  idle {idle}s "
                f"(forgotten in {left}s)  ·  opened {opened}" + ("  ·  busy" if s.busy else ""),
            ]
        return Reply("\n".join(lines))

    # -- file tools -------------------------------------------------------------------------------

    def _files(self, session: str | None) -> FileTools:
        """The file tools, once the server is configured and ``session`` (if given) exists."""
        _, files = self._require()
        self._session(session)
        return files

    @_answers("wsl_list_dir")
    async def list_dir(self, path: str, session: str | None = None) -> Reply:
        files = self._files(session)
        return Reply(render_listing(path, await files.list_dir(path)))

    @_answers("wsl_read_file")
    async def read_file(self, path: str, session: str | None = None, max_bytes: int | None = None) -> Reply:
        files = self._files(session)
        limit = min(max_bytes, self.config.max_read_bytes) if max_bytes else self.config.max_read_bytes
        result = await files.read(path, limit)
        target, data = result.target, result.data
        shown = shown_path(path, target.resolved)
        if target.size:
            header = f"{shown} — {format_bytes(target.size)}"
        else:
            header = f"{shown} — {format_bytes(len(data))} read (the file reports size 0)"
        if result.truncated:
            header += f", truncated to the first {format_bytes(len(data))} (limit {limit} bytes)"
        text = data.decode("utf-8", errors="replace")
        if "\x00" in text or "\ufffd" in text:
            header += "\nNote: the content is not valid UTF-8 text (binary bytes shown as U+FFFD); use wsl_download for a byte-exact copy."
        return Reply(f"{header}\n\n{text}")

    @_answers("wsl_write_file")
    async def write_file(
        self, path: str, content: str, append: bool = False, session: str | None = None
    ) -> Reply:
        files = self._files(session)
        target, n = await files.write(path, content.encode("utf-8"), append=append)
        shown = shown_path(path, target.resolved)
        verb = "Appended" if append else "Wrote"
        return Reply(
            f"{verb} {format_bytes(n)} to {shown} (atomically: a new file was verified and renamed into place)."
        )

    @_answers("wsl_upload")
    async def upload(self, local_path: str, remote_path: str, session: str | None = None) -> Reply:
        files = self._files(session)
        t = await files.upload(local_path, remote_path)
        return Reply(
            f"Uploaded {format_bytes(t.size)} ({t.size} bytes): {t.local} → {t.remote}\nsha256: {t.sha256}"
        )

    @_answers("wsl_download")
    async def download(self, remote_path: str, local_path: str, session: str | None = None) -> Reply:
        files = self._files(session)
        t = await files.download(remote_path, local_path)
        return Reply(
            f"Downloaded {format_bytes(t.size)} ({t.size} bytes): {t.remote} → {t.local}\nsha256: {t.sha256}"
        )

    # -- host status ------------------------------------------------------------------------------

    async def _distro_state(self) -> DistroState:
        """The distro's row in ``wsl.exe -l -v``; a transport without a listing runs by definition."""
        assert self.transport is not None and self.config.distro is not None
        listing = await self.transport.list_distros()
        return DistroState(True, "Running") if listing is None else parse_listing(listing, self.config.distro)

    async def state(self) -> tuple[DistroState, Facts | None]:
        """The distro's state; facts are probed only when it is running (probing would start it)."""
        runner, _ = self._require()
        state = await self._distro_state()
        if state.state != "Running":
            return state, None
        return state, await self.facts(runner)

    async def facts(self, runner: Runner) -> Facts:
        run = await runner.run(ScriptCall(FACTS_SCRIPT, timeout_s=FACTS_TIMEOUT_S, max_output=1 << 16))
        return parse_facts(run.exchange.stdout.decode("utf-8", "replace"))

    def policy_lines(self) -> list[str]:
        p = self.config.policy
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
            lines.append(f"file tools limited to: {', '.join(p.allowed_paths)} (does not restrict wsl_exec)")
        if p.allow_commands:
            lines.append(f"commands limited to: {', '.join(p.allow_commands)}")
        if p.deny_patterns:
            lines.append(f"denied patterns: {', '.join('/' + d.pattern + '/' for d in p.deny_patterns)}")
        lines.append(
            f"limits: timeout {self.config.exec_timeout_ms}ms  ·  output {self.config.max_output} characters per "
            f"stream  ·  file reads {self.config.max_read_bytes} bytes"
        )
        return lines

    @_answers("wsl_list_hosts")
    async def list_hosts(self) -> Reply:
        if not self.config.configured:
            return Reply(SETUP_TEXT)
        state, facts = await self.state()
        lines = [
            f"{self.config.name}  →  {self._endpoint()} (WSL, this machine; transport: {self.transport_kind})"
        ]
        if self.config.description:
            lines.append(f"    {self.config.description}")
        lines.append(f"    {status_line(state, facts, self.transport_kind)}")
        lines += [f"    {line}" for line in self.policy_lines()]
        if self.config.cwd:
            lines.append(f"    new sessions start in: {self.config.cwd}")
        return Reply("\n".join(lines))

    async def check(self) -> tuple[str, bool]:
        """``wslmcp shell --check``: the listing, ``id`` through the guarded path, then the facts."""
        if not self.config.configured:
            return "No WSL distro is registered — set WSL_DISTRO (and optionally WSL_USER).", False
        lines = [
            f"Checking {self.config.name}  →  {self._endpoint()}  (transport: {self.transport_kind})",
            "",
        ]
        runner, _ = self._require()
        try:
            state = await self._distro_state()
        except TransportError as exc:
            return "\n".join([*lines, f"  FAILED  {exc}"]), False
        if not state.installed:
            return "\n".join([*lines, f"  FAILED  {status_line(state, None, self.transport_kind)}"]), False
        try:
            self._check_command("id", self.config.cwd)
            run = await runner.run(
                ScriptCall(
                    build_script("id", cwd=self.config.cwd, marker=None),
                    timeout_s=self.config.exec_timeout_ms / 1000,
                    max_output=1 << 16,
                )
            )
        except Refused as refused:
            return "\n".join([*lines, f"  FAILED  {self._endpoint()}", " " * 10 + refused.render()]), False
        except TransportError as exc:
            return "\n".join([*lines, f"  FAILED  {self._endpoint()}", " " * 10 + str(exc)]), False
        ex = run.exchange
        if ex.exit_code != 0:
            said = ex.stderr.decode("utf-8", "replace").strip()
            if CWD_FAILURE in said:
                said += f" (WSL_CWD={self.config.cwd})"
            what = "timed out" if ex.timed_out else f"exit code {ex.exit_code}"
            return "\n".join([*lines, f"  FAILED  {self._endpoint()}  {what}", " " * 10 + said]), False
        facts = await self.facts(runner)
        ms = round(ex.duration_s * 1000)
        lines.append(f"  OK      {ex.stdout.decode('utf-8', 'replace').strip()}  ({ms}ms)")
        lines.append(" " * 10 + status_line(state, facts, self.transport_kind))
        return "\n".join(lines), True


def render_listing(path: str, listing: Listing) -> str:
    shown = shown_path(path, listing.target.resolved)
    if listing.total == 0:
        return f"{shown} is empty."
    head = f"{shown} — {listing.total} entrie(s)"
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


SETUP_TEXT = """No WSL distro is registered for this server, so every other tool answers "not configured".

Add the distro (as `wsl -l -q` prints it) and, optionally, the Linux user to this server's entry in
the MCP client configuration:

  "env": { "WSL_DISTRO": "Ubuntu", "WSL_USER": "dev" }

WSL_DISTRO is the whole minimum. Optional: WSL_NAME, WSL_DESCRIPTION, WSL_CWD, WSL_READONLY,
WSL_ALLOW_SUDO, WSL_ALLOW_WINDOWS, WSL_ALLOW_COMMANDS, WSL_DENY_PATTERNS, WSL_ALLOWED_PATHS,
WSL_EXEC_TIMEOUT_MS, WSL_MAX_OUTPUT, WSL_MAX_READ_BYTES, WSL_MCP_LOG_LEVEL.
Restart this server after changing it — environment variables are fixed for the life of the process."""
