"""The shell server's operations, one method per tool, each returning a typed result
(``wslmcp.shell.results``); ``wslmcp.shell.replies`` renders those as reply texts.

The server module only validates arguments and turns a rendered reply into an MCP result. Every command,
working directory, adopted session directory and path passes through ``self.guard`` here (file
paths inside ``FileTools``) before any transport call is made.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from dataclasses import replace
from typing import Any, Concatenate, ParamSpec

from wslmcp.arguments import quoted
from wslmcp.boundaries.clock import Clock
from wslmcp.boundaries.local_files import LocalFiles
from wslmcp.boundaries.shell_transport import Confine, ScriptCall, ShellTransport, TransportError
from wslmcp.shell import results
from wslmcp.shell.approvals import Approvals, ApprovingGuard, joined
from wslmcp.shell.audit import Audit, AuditUnavailable, acted_on, arguments, audited
from wslmcp.shell.config import ShellConfig
from wslmcp.shell.edits import Applied, Edit, Mismatch, apply_edits, unified_diff
from wslmcp.shell.errors import Refused, ToolFailure
from wslmcp.shell.execution import build_script, cwd_marker, kept_streams, shape
from wslmcp.shell.files import FileChanged, FileTools
from wslmcp.shell.guard import Decision, Guard
from wslmcp.shell.guard.paths import normalize
from wslmcp.shell.log import Log
from wslmcp.shell.processes import Process, ProcessTable, Signal, first_line
from wslmcp.shell.progress import ProgressSender, Watched
from wslmcp.shell.results import Result
from wslmcp.shell.runner import REPORTS, Run, Runner, quote
from wslmcp.shell.sandbox import (
    HIDDEN_NOTE,
    PRIVATE_NOTE,
    UNDONE,
    SandboxView,
    is_hidden,
    private,
    stopped_by,
    summary,
    under,
    view,
)
from wslmcp.shell.sandbox_gate import SandboxGate
from wslmcp.shell.search import (
    DEFAULT_RESULTS,
    MAX_CONTEXT,
    MAX_OUTPUT,
    MAX_RESULTS,
    BadGlob,
    Match,
    Matches,
    Query,
    check_glob,
    engine_of,
    files_of,
    search_script,
)
from wslmcp.shell.sessions import Session, SessionError, SessionStore
from wslmcp.shell.status import (
    FACTS_SCRIPT,
    FACTS_TIMEOUT_S,
    DistroState,
    Facts,
    parse_facts,
    parse_listing,
)

FAILURES = (ToolFailure, SessionError, TransportError, OSError)

DEFAULT_START_WAIT_MS = 1000
DEFAULT_SEND_WAIT_MS = 500
DEFAULT_READ_BYTES = 20_000

_P = ParamSpec("_P")


_ToolMethod = Callable[Concatenate["ShellService", _P], Awaitable[Result]]


def _answers(tool: str) -> Callable[[_ToolMethod[_P]], _ToolMethod[_P]]:
    """Turn what a tool method raises into its result: a guard ``Refusal`` (logged at warn), or
    ``Failed(tool, reason)`` for any of ``FAILURES``. A refusal a person may overrule is put to them
    first (``approvals``); when they say yes the method runs again, with that refusal excused."""

    def wrap(method: _ToolMethod[_P]) -> _ToolMethod[_P]:
        @functools.wraps(method)
        async def answered(self: ShellService, /, *args: _P.args, **kwargs: _P.kwargs) -> Result:
            async def result() -> Result:
                reports: list[str] = []  # what the sandbox undid after what this call ran
                token = REPORTS.set(reports)
                try:
                    answer = await asked()
                finally:
                    REPORTS.reset(token)
                return self._noted(tool, answer, reports)

            async def asked() -> Result:
                with self.approvals.call(tool):
                    while True:  # once more after each question a person said yes to
                        try:
                            return await method(self, *args, **kwargs)
                        except Refused as refused:
                            final = await self.approvals.settle(refused, sandboxed=self.sandbox is not None)
                            if final is not None:
                                return self._refusal(tool, final)
                        except FAILURES as exc:
                            return self._failure(tool, exc)

            if self.audit is None:
                return await result()
            try:
                return await audited(self.audit, tool, arguments(method, self, args, kwargs), result)
            except AuditUnavailable as exc:
                return results.Failed(tool, str(exc))

        return answered

    return wrap


def _edit_text(path: str, data: bytes) -> str:
    """A file's bytes as the text wsl_edit_file edits; ``ToolFailure`` for binary or non-UTF-8."""
    if b"\x00" in data:
        raise ToolFailure(f"{path} is a binary file (it holds NUL bytes); nothing was changed")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ToolFailure(
            f"{path} is not UTF-8 text (byte {exc.start}, line {line}); nothing was changed"
        ) from None


def _requested_cwd(command: str, cwd: str | None) -> str | None:
    """The cwd a command asks for (None: the session's or the default); ``ToolFailure`` for a NUL
    byte or a relative path."""
    if "\x00" in command or (cwd and "\x00" in cwd):
        raise ToolFailure("the command or cwd contains a NUL byte, which bash cannot receive")
    requested = cwd.strip() if cwd and cwd.strip() else None
    if requested is not None and not requested.startswith("/"):
        raise ToolFailure(f"cwd must be an absolute directory path, got {quoted(requested)!r}")
    return requested


NOT_CONFIGURED = (
    "not configured: no WSL distro is registered for this server. Set WSL_DISTRO (and optionally "
    "WSL_USER) in this server's env block, then restart it; see wsl_list_hosts."
)
NOT_CONFIGURED_ON_LINUX = (
    "not configured: WSL_DISTRO is not set. This is plain Linux (no WSL): commands run on this machine, "
    "and any label will do (WSL_DISTRO=local). Set it in this server's env block, then restart it; see "
    "wsl_list_hosts."
)


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
        audit: Audit | None = None,
        plain_linux: bool = False,
    ) -> None:
        self.config = config
        self.plain_linux = plain_linux  # no WSL here: commands run on this Linux machine
        self.audit = audit
        self.runner = runner
        self.approvals = Approvals(config.approvals, log)
        self.guard: Guard = ApprovingGuard(guard, self.approvals)
        self.clock = clock
        self.log = log
        self.local_files = local_files
        self.sessions = SessionStore(clock, config.name)
        self._off_said = False  # the first command's reply said the sandbox is off (auto)
        self._settled: set[str] = set()  # background processes checked after they ended
        self.files: FileTools | None = None
        self.processes: ProcessTable | None = None
        if runner is not None:
            where = f"{runner.transport.kind}:{config.distro}:{runner.transport.user or ''}"
            self.files = FileTools(
                runner,
                self.guard,
                local_files,
                timeout_s=config.exec_timeout_ms / 1000,
                known_bytes=config.max_read_bytes,
                where=where,
                keeps=self.approvals.keeps,
                **({"chunk_bytes": chunk_bytes} if chunk_bytes else {}),
            )
            self.processes = ProcessTable(
                runner,
                clock,
                name=config.name,
                max_running=config.max_processes,
                ring_bytes=config.process_output_bytes,
                max_s=config.process_max_ms / 1000,
                local=local_files,
                where=where,
            )

    async def startup(self) -> None:
        """Probe the sandbox (on the local transport; through wsl.exe before the first call, never
        starting a stopped distro just for that) and clean up after servers that were killed: their
        local partial files now, their temp files beside targets now on the local transport, else
        before the first file-tool call; the background processes they started now, unless the
        distro is stopped (which ended them)."""
        if self.files is None or self.processes is None or self.runner is None:
            return
        reclaimed = self.local_files.reclaim()
        self.files.reclaim(reclaimed)
        if self.transport_kind == "local":
            gate = self.gate
            if gate is not None and self.runner is not None:
                failure = await gate.probe(self.runner)
                if failure is not None and gate.required:
                    self.log.warn(
                        "the sandbox cannot run; every tool that runs something refuses", reason=failure
                    )
                if gate.facts is not None and gate.facts.undone:  # (the probe did what killed servers left)
                    self.log.warn(
                        "undid what runs later after commands of servers that are gone",
                        undone=list(gate.facts.undone),
                    )
            await self.files.remove_orphans()
        tokens = self.processes.reclaim(reclaimed)
        if tokens:
            await self._sweep_reclaimed(self.runner, tokens)

    async def _sweep_reclaimed(self, runner: Runner, tokens: list[str]) -> None:
        try:
            running = (await self._distro_state()).state == "Running"
        except TransportError as exc:
            self.log.warn("could not sweep the processes of a server that was killed", error=str(exc))
            return
        if running:
            killed, error = await runner.sweep(*tokens)
            if error is not None:
                self.log.warn("could not sweep the processes of a server that was killed", error=error)
                return
            if killed:
                self.log.info("killed the processes of a server that was killed", killed=list(killed))
            undone = await runner.check(*tokens)
            if undone:
                self.log.warn(
                    "undid what runs later after the commands of a server that was killed",
                    undone=list(undone),
                )
        assert self.processes is not None
        self.processes.swept(tokens)

    async def shutdown(self) -> None:
        """After the last request: end every background process, kill what interrupted calls left
        running (one sweep) and remove their temp files (a cancelled call's own cleanup may not
        have run)."""
        try:
            if self.runner is not None:
                tokens = await self.processes.shutdown() if self.processes is not None else []
                killed, error = await self.runner.shutdown(also=tokens)
                if killed:
                    self.log.info("killed at shutdown", killed=list(killed))
                if error is None and self.processes is not None:
                    self.processes.swept(tokens)
            if self.files is not None:
                await self.files.shutdown()
        except Exception as exc:  # the process is ending: say what failed, in one line
            self.log.warn("shutdown cleanup failed", error=f"{type(exc).__name__}: {exc}")

    # -- shared -----------------------------------------------------------------------------------

    @property
    def gate(self) -> SandboxGate | None:
        """The sandbox's gate, unless WSL_SANDBOX=off."""
        gate = self.runner.gate if self.runner is not None else None
        return gate if isinstance(gate, SandboxGate) else None

    @property
    def sandbox(self) -> SandboxGate | None:
        """The sandbox every script runs in, or None (off, or ``auto`` found it cannot run)."""
        gate = self.gate
        return gate if gate is not None and not gate.off else None

    def _noted(self, tool: str, answer: Result, reports: list[str]) -> Result:
        """``answer`` with what the sandbox undid after this call, and, on the first command's reply
        of a session where ``auto`` found the sandbox cannot run, that line."""
        notes = [UNDONE + line for line in reports]
        gate = self.gate
        if tool in ("wsl_exec", "wsl_start") and gate is not None and gate.off and not self._off_said:
            self._off_said = True
            notes.insert(0, f"[sandbox] {gate.off_line}")
        return results.Noted(answer, tuple(notes)) if notes else answer

    def sandbox_view(self) -> SandboxView | None:
        gate = self.sandbox
        return view(gate.profile, gate.home, self.config.sandbox.hide_paths) if gate is not None else None

    def _sandbox_note(self, text: str) -> str | None:
        """The ``[sandbox]`` line for a failure whose text shows the sandbox stopped it."""
        gate = self.sandbox
        if gate is None or "[sandbox]" in text:
            return None
        return stopped_by(gate.profile, gate.home, text)

    @contextlib.contextmanager
    def _on_path(self, path: str) -> Iterator[None]:
        """A file tool's failure on a path the sandbox hides says so (inside the sandbox a hidden
        file cannot even be looked at, so the tool itself only sees 'no such file')."""
        try:
            yield
        except ToolFailure as exc:
            gate = self.sandbox
            if gate is None or not path.startswith("/") or "[sandbox]" in str(exc):
                raise
            if is_hidden(gate.profile, gate.home, normalize(path)):
                raise ToolFailure(f"{exc}\n{HIDDEN_NOTE}") from exc
            if private(gate.profile, gate.home, f"{normalize(path)}: No such file or directory"):
                raise ToolFailure(f"{exc}\n{PRIVATE_NOTE}") from exc
            raise

    async def _inside_writable_root(self, path: str, action: str) -> None:
        """Under the sandbox a write outside its writable roots would fail (or, under the private
        /tmp, vanish with the call): refused before anything runs, as the guard refuses."""
        gate = self.gate
        if gate is None or self.runner is None or not path.startswith("/"):
            return
        await gate.check(self.runner)
        if gate.off:
            return
        roots = gate.profile.shown(gate.profile.writable, gate.home)
        if not any(under(normalize(path), root) for root in roots):
            reason = (
                f"{path} is outside the sandbox's writable roots ({', '.join(roots) or 'none: read-only mode'}), "
                "where nothing can be written; nothing was run"
            )
            raise Refused(Decision.reject("sandbox", path, reason), action)

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
            raise ToolFailure(NOT_CONFIGURED_ON_LINUX if self.plain_linux else NOT_CONFIGURED)
        return self.runner, self.files

    def _session(self, sid: str | None) -> Session | None:
        if sid is None or not sid.strip():
            return None
        return self.sessions.get(sid)

    def _refusal(self, tool: str, refused: Refused) -> results.Refusal:
        self.log.warn(
            "refused by the guard",
            tool=tool,
            action=quoted(refused.action),
            rule=refused.decision.rule,
            reason=quoted(refused.decision.reason or ""),
        )
        return results.Refusal(refused)

    def _failure(self, tool: str, exc: Exception) -> results.Failed:
        self.log.info(f"{tool} failed", error=str(exc))
        note = self._sandbox_note(str(exc))
        return results.Failed(tool, str(exc) + (f"\n{note}" if note else ""))

    def _check_command(self, command: str, cwd: str | None, *, unsandboxed: bool = False) -> None:
        """The command with its working directory (``check_command`` screens the cwd too), and with
        ``unsandboxed`` its request to run outside the sandbox: one refusal, so one question."""
        decision = self.guard.check_command(command, cwd)
        leaving = self.approvals.leaving(command, self.sandbox is not None) if unsandboxed else None
        if not decision.allowed or leaving is not None:
            raise Refused(joined(decision, leaving), command)

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
        progress: ProgressSender | None = None,
        unsandboxed: bool = False,
    ) -> Result:
        runner, _ = self._require()
        sess = self._session(session)
        requested = _requested_cwd(command, cwd)
        limit = self.config.exec_timeout_ms
        effective = min(timeout_ms, limit) if timeout_ms else limit
        async with self._using(sess):
            run_cwd = requested or (sess.cwd if sess else None) or self.config.cwd
            self._check_command(command, run_cwd, unsandboxed=unsandboxed)
            ran = await self._exec(
                runner,
                command,
                sess,
                run_cwd,
                effective,
                progress=progress,
                unconfined=self._leaves(unsandboxed),
            )
        return replace(ran, capped_from_ms=timeout_ms) if timeout_ms and timeout_ms > limit else ran

    async def _exec(
        self,
        runner: Runner,
        command: str,
        sess: Session | None,
        cwd: str | None,
        timeout_ms: int,
        *,
        progress: ProgressSender | None = None,
        unconfined: bool = False,
    ) -> results.Ran:
        token = runner.tokens()
        marker = cwd_marker(token) if sess is not None else None
        self.log.debug(
            "running command", command=command, cwd=cwd, timeout_ms=timeout_ms, unconfined=unconfined
        )
        out, err = kept_streams(self.config.max_output)
        call = ScriptCall(
            build_script(command, cwd=cwd, marker=marker, token=token),
            timeout_s=timeout_ms / 1000,
            max_output=self.config.output_cap_bytes,
            stdout_sink=out,
            stderr_sink=err,
            cwd=cwd,
            confine=self._confine(unconfined),
        )
        if progress is None:
            run = await runner.run(call, token=token)
        else:
            run = await Watched(progress, self.clock, timeout_ms).run(runner, call, token, out)
        cap = self.config.output_cap_bytes
        outcome = shape(run, out, err, max_chars=self.config.max_output, cap=cap, marker=marker)
        self.log.info(
            "command finished",
            exit_code=outcome.exit_code,
            signal=outcome.status.signal,
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
        stopped = None
        if outcome.exit_code != 0 and not unconfined:
            stopped = self._sandbox_note(outcome.stderr.text + "\n" + outcome.stdout.text)
        return results.Ran(
            outcome,
            timeout_ms=timeout_ms,
            max_chars=self.config.max_output,
            cap=self.config.output_cap_bytes,
            transport_kind=self.transport_kind,
            cwd=shown_cwd,
            cwd_note=note,
            sandbox=None if unconfined else self.sandbox_view(),
            sandbox_note=stopped,
            unsandboxed=unconfined,
        )

    def _leaves(self, unsandboxed: bool) -> bool:
        """Runs outside the sandbox: asked for, and a sandbox there to leave (a person approved it,
        or ``_check_command`` would have refused)."""
        return unsandboxed and self.sandbox is not None

    def _confine(self, unconfined: bool) -> Confine:
        """Where a command runs: outside the sandbox (``unconfined``, approved); in it, keeping what
        it changes that runs later when a person approved that change; else in it, checked after."""
        return "none" if unconfined else "kept" if self.approvals.keeps() else "own"

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

    # -- background processes ---------------------------------------------------------------------

    def _table(self) -> ProcessTable:
        self._require()
        assert self.processes is not None
        return self.processes

    async def _check(self, table: ProcessTable, p: Process) -> None:
        """Under the sandbox, ``p``'s after-command check now, whenever its output is read (while it
        runs, and once after it ended); what it undid goes into the reply (``REPORTS``)."""
        if self.sandbox is None or self.runner is None or p.token in self._settled:
            return
        table.observe(p)
        ended = p.ended
        await self.runner.check(p.token)
        if ended:
            self._settled.add(p.token)

    def _output(
        self,
        tool: str,
        table: ProcessTable,
        p: Process,
        offset: int | None,
        max_bytes: int | None,
        **sent: Any,
    ) -> results.ProcessOutput:
        got = table.read(p, offset, max_bytes or DEFAULT_READ_BYTES)
        return results.ProcessOutput(tool, table.view(p), got, p.ring.end - got.next_offset, **sent)

    @_answers("wsl_start")
    async def start(
        self,
        command: str,
        *,
        cwd: str | None = None,
        session: str | None = None,
        wait_ms: int | None = None,
        progress: ProgressSender | None = None,
        unsandboxed: bool = False,
    ) -> Result:
        table = self._table()
        sess = self._session(session)
        requested = _requested_cwd(command, cwd)
        async with self._using(sess):
            run_cwd = requested or (sess.cwd if sess else None) or self.config.cwd
            self._check_command(command, run_cwd, unsandboxed=unsandboxed)
            confine = self._confine(self._leaves(unsandboxed))
            p = table.start(command, run_cwd, confine=confine)
        if confine != "own":  # outside the sandbox, or kept as a person approved: nothing to check
            self._settled.add(p.token)
        self.log.info("process started", process=p.id)
        self.log.debug("started command", process=p.id, command=command, cwd=run_cwd)
        wait_s = (DEFAULT_START_WAIT_MS if wait_ms is None else wait_ms) / 1000
        await table.wait(p, wait_s, beyond=None, progress=progress)
        await self._check(table, p)
        return self._output("wsl_start", table, p, None, None)

    @_answers("wsl_read_output")
    async def read_output(
        self,
        process: str,
        *,
        offset: int | None = None,
        max_bytes: int | None = None,
        wait_ms: int | None = None,
        progress: ProgressSender | None = None,
    ) -> Result:
        table = self._table()
        p = table.get(process)
        acted_on({"process": p.id, "command": p.command})
        if wait_ms:
            table.observe(p)
            beyond = p.cursor if offset is None else offset if offset >= 0 else max(0, p.ring.end + offset)
            await table.wait(p, wait_ms / 1000, beyond=beyond, progress=progress)
        await self._check(table, p)
        return self._output("wsl_read_output", table, p, offset, max_bytes)

    @_answers("wsl_send_input")
    async def send_input(
        self, process: str, text: str, *, close_stdin: bool = False, wait_ms: int | None = None
    ) -> Result:
        table = self._table()
        p = table.get(process)
        if "\x00" in text:
            raise ToolFailure("the input contains a NUL byte; send text only")
        if text:  # judged as the process's whole stdin so far, as if it had been piped into its command
            everything = p.sent + text
            piped = f"printf '%s' {quote(everything)} | {{ {p.command}\n}}"  # a group: every part reads it
            decision = self.guard.check_command(piped, p.cwd)
            if not decision.allowed:
                raise Refused(decision, f"send {quoted(text)!r} to {p.id} ({first_line(p.command)})")
        table.send(p, text.encode("utf-8"), close=close_stdin)
        p.sent += text
        beyond = p.ring.end
        wait_s = (DEFAULT_SEND_WAIT_MS if wait_ms is None else wait_ms) / 1000
        await table.wait(p, wait_s, beyond=beyond, progress=None)
        await self._check(table, p)
        return self._output(
            "wsl_send_input", table, p, None, None, sent=len(text.encode("utf-8")), closed_stdin=close_stdin
        )

    @_answers("wsl_stop")
    async def stop(self, process: str, *, signal: Signal = "TERM") -> Result:
        table = self._table()
        p = table.get(process)
        acted_on({"process": p.id, "command": p.command})
        ending = await table.stop(p, signal)
        await self._check(table, p)
        self.log.info("process stopped", process=p.id, signal=signal, killed=len(ending.killed))
        return results.Stopped(table.view(p), ending)

    @_answers("wsl_list_processes")
    async def list_processes(self) -> Result:
        table = self._table()
        rows, last = table.listing()
        return results.Processes(tuple(rows), tuple(last), self.config.max_processes)

    # -- sessions ---------------------------------------------------------------------------------

    @_answers("wsl_connect")
    async def connect(self, cwd: str | None = None) -> Result:
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
                out, err = kept_streams(self.config.max_output)
                run = await runner.run(
                    ScriptCall(
                        build_script("pwd", cwd=start, marker=marker, token=token),
                        timeout_s=self.config.exec_timeout_ms / 1000,
                        max_output=1 << 16,
                        stdout_sink=out,
                        stderr_sink=err,
                    ),
                    token=token,
                )
                outcome = shape(run, out, err, max_chars=self.config.max_output, cap=1 << 16, marker=marker)
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
        return results.Opened(sess.id, self._endpoint(), sess.cwd, self.config.policy.readonly)

    @_answers("wsl_disconnect")
    async def disconnect(self, session: str) -> Result:
        self._require()
        sess = self.sessions.close(session)
        self.log.info("session closed", session=sess.id, open_sessions=len(self.sessions.all()))
        return results.Closed(sess.id)

    @_answers("wsl_list_sessions")
    async def list_sessions(self) -> Result:
        self._require()
        rows = tuple(
            results.SessionRow(
                s.id,
                s.cwd,
                s.commands,
                round(self.sessions.idle_seconds(s)),
                max(0, round(self.sessions.idle_s - self.sessions.idle_seconds(s))),
                s.opened_wall,
                bool(s.busy),
            )
            for s in self.sessions.all()
        )
        return results.Sessions(rows, self.sessions.limit, self._endpoint())

    # -- file tools -------------------------------------------------------------------------------

    def _files(self, session: str | None) -> FileTools:
        """The file tools, once the server is configured and ``session`` (if given) exists."""
        _, files = self._require()
        self._session(session)
        return files

    @_answers("wsl_list_dir")
    async def list_dir(self, path: str, session: str | None = None) -> Result:
        files = self._files(session)
        with self._on_path(path):
            return results.Listed(path, await files.list_dir(path))

    @_answers("wsl_read_file")
    async def read_file(
        self,
        path: str,
        session: str | None = None,
        max_bytes: int | None = None,
        offset: int | None = None,
        limit: int | None = None,
    ) -> Result:
        files = self._files(session)
        ceiling = min(max_bytes, self.config.max_read_bytes) if max_bytes else self.config.max_read_bytes
        if offset == 0:
            raise ToolFailure(
                "offset counts lines from 1 (the first line); -1 is the last line, -50 the last 50"
            )
        with self._on_path(path):
            if offset is None and limit is None:
                return results.FileRead(path, await files.read(path, ceiling), ceiling)
            return results.FileRead(path, await files.read_lines(path, ceiling, offset or 1, limit), ceiling)

    @_answers("wsl_edit_file")
    async def edit_file(
        self, path: str, edits: Sequence[Edit], dry_run: bool = False, session: str | None = None
    ) -> Result:
        files = self._files(session)
        if not edits:
            raise ToolFailure("no edits were given")
        if any(not e.old_text for e in edits):
            raise ToolFailure("an edit's oldText is empty; give the exact text to replace")
        if any("\x00" in e.new_text for e in edits):
            raise ToolFailure("an edit's newText holds a NUL byte; wsl_edit_file keeps text files text")
        await self._inside_writable_root(path, f"edit {path}")
        if not dry_run and (edited := await self._edit_known(files, path, edits)) is not None:
            return edited
        with self._on_path(path):
            target, before = await files.read_whole(path, self.config.max_read_bytes, "write", f"edit {path}")
        text = _edit_text(path, before)
        done = apply_edits(text, edits)
        if isinstance(done, Mismatch):
            return results.EditMismatch(path, done, edits[done.index], len(edits))
        diff, left_out = unified_diff(path, text, done.text)
        after = done.text.encode("utf-8")
        if not dry_run and after != before:
            await files.replace(target, after, before)
        return results.Edited(
            path, target.resolved, done.counts, diff, left_out, dry_run, len(before), len(after)
        )

    async def _edit_known(self, files: FileTools, path: str, edits: Sequence[Edit]) -> Result | None:
        """The edit in one script, when the content of ``path`` is known from an earlier call and
        the edits apply to it and change it; None when the file must be read first (nothing known,
        or the file or its path changed since: then nothing was written)."""
        known = files.known(path)
        if known is None:
            return None
        target, before = known
        files.check(path, "write", f"edit {path}")
        try:
            text = _edit_text(path, before)
        except ToolFailure:
            text = ""
        done = apply_edits(text, edits) if text else None
        if not isinstance(done, Applied) or (after := done.text.encode("utf-8")) == before:
            files.forget(path)  # a mismatch or no change: the file as it is now decides
            return None
        try:
            await files.replace(target, after, before, known=True)
        except FileChanged:
            return None
        diff, left_out = unified_diff(path, text, done.text)
        return results.Edited(
            path, target.resolved, done.counts, diff, left_out, False, len(before), len(after)
        )

    @_answers("wsl_write_file")
    async def write_file(
        self, path: str, content: str, append: bool = False, session: str | None = None
    ) -> Result:
        files = self._files(session)
        await self._inside_writable_root(path, f"{'append to' if append else 'write'} {path}")
        target, n = await files.write(path, content.encode("utf-8"), append=append)
        return results.Wrote(path, target.resolved, n, append)

    @_answers("wsl_upload")
    async def upload(self, local_path: str, remote_path: str, session: str | None = None) -> Result:
        files = self._files(session)
        await self._inside_writable_root(remote_path, f"upload {local_path} to {remote_path}")
        return results.Transferred("upload", await files.upload(local_path, remote_path))

    @_answers("wsl_download")
    async def download(self, remote_path: str, local_path: str, session: str | None = None) -> Result:
        files = self._files(session)
        with self._on_path(remote_path):
            return results.Transferred("download", await files.download(remote_path, local_path))

    @_answers("wsl_search")
    async def search(
        self,
        pattern: str | None,
        path: str | None = None,
        *,
        glob: str | None = None,
        literal: bool = False,
        ignore_case: bool = False,
        context_lines: int = 0,
        max_results: int | None = None,
        offset: int = 0,
        session: str | None = None,
    ) -> Result:
        runner, files = self._require()
        sess = self._session(session)
        if pattern is not None and ("\n" in pattern or "\x00" in pattern):
            raise ToolFailure("the pattern holds a line break or a NUL byte; matches are within one line")
        if glob is not None:
            try:
                check_glob(glob)
            except BadGlob as exc:
                raise ToolFailure(f"the glob {quoted(glob)!r} cannot be read: {exc}") from None
        root = path or (sess.cwd if sess else None) or self.config.cwd or await self._home(runner)
        query = Query(pattern, literal, ignore_case, min(context_lines, MAX_CONTEXT), glob)
        files.check(root, "read", f"search {root}")
        resolved = root
        run = await self._search(runner, resolved, query)
        engine, out = engine_of(run.exchange.stdout)
        if engine == "resolved":  # a symlink on the way: the guard judges where it leads first
            resolved = out.rstrip(b"\0").decode("utf-8", "surrogateescape")
            files.check(resolved, "read", f"search {root} (resolves to {resolved})")
            run = await self._search(runner, resolved, query)
            engine, out = engine_of(run.exchange.stdout)
        ex = run.exchange
        cut = "timed out" if ex.timed_out else "output bound" if ex.overflowed else None
        if pattern is None:
            listed = files_of(out)
            return self._files_found(
                listed,
                root=root,
                resolved=resolved,
                query=query,
                offset=offset,
                max_results=max_results,
                cut=cut,
            )
        found = Matches(out, query.context, cut=cut is not None)
        if not found.total and cut is None and ex.exit_code not in (0, 1) and ex.stderr.strip():
            said = ex.stderr.decode("utf-8", "replace").strip()
            raise ToolFailure(f"the search failed: {quoted(said, 300)}")
        taken = found.page(offset, min(max_results or DEFAULT_RESULTS, MAX_RESULTS))
        end = offset + len(taken)
        self.log.debug("searched", engine=engine, matches=found.total, cut=cut)
        return results.Searched(
            root,
            resolved,
            tuple(self._shown(taken)),
            offset,
            end if found.total > end else None,
            found.total,
            cut,
        )

    def _files_found(
        self,
        found: list[str],
        *,
        root: str,
        resolved: str,
        query: Query,
        offset: int,
        max_results: int | None,
        cut: str | None,
    ) -> Result:
        """A search by name: a page of the files found (those a file tool may read)."""
        plain = Guard(self.guard.policy)
        readable = [f for f in found if plain.check_path(f, "read").allowed]
        page = readable[offset : offset + min(max_results or DEFAULT_RESULTS, MAX_RESULTS)]
        end = offset + len(page)
        self.log.debug("searched by name", files=len(readable), cut=cut)
        return results.Searched(
            root,
            resolved,
            (),
            offset,
            end if len(readable) > end else None,
            len(readable),
            cut,
            files=tuple(page),
            glob=query.glob,
        )

    async def _search(self, runner: Runner, root: str, query: Query) -> Run:
        return await runner.run(
            ScriptCall(
                search_script(root, query),
                timeout_s=self.config.exec_timeout_ms / 1000,
                max_output=MAX_OUTPUT,
                login=False,
            )
        )

    def _shown(self, page: list[Match]) -> list[Match]:
        """A page of matches without any the guard would not let a file tool read: a safety net (the
        walk never enters operator paths, nor leaves the root), one check per file."""
        plain = Guard(self.guard.policy)  # not the audited guard: these are no requests of the caller
        verdicts: dict[str, bool] = {}
        for m in page:
            if m.path not in verdicts:
                verdicts[m.path] = plain.check_path(m.path, "read").allowed
        return [m for m in page if verdicts[m.path]]

    async def _home(self, runner: Runner) -> str:
        """The user's home directory in the distro (a search's root when nothing else is given)."""
        run = await runner.run(
            ScriptCall('printf %s "$HOME"', timeout_s=FACTS_TIMEOUT_S, max_output=4096, login=False)
        )
        home = run.exchange.stdout.decode("utf-8", "replace")
        if not home.startswith("/"):
            raise ToolFailure(
                "give an absolute path: there is no session, WSL_CWD or home directory to search"
            )
        return home

    # -- host status ------------------------------------------------------------------------------

    async def _distro_state(self) -> DistroState:
        """The distro's row in ``wsl.exe -l -v``; a transport without a listing runs by definition."""
        assert self.transport is not None and self.config.distro is not None
        listing = await self.transport.list_distros()
        return DistroState(True, "Running") if listing is None else parse_listing(listing, self.config.distro)

    async def state(self) -> tuple[DistroState, Facts | None]:
        """The distro's state; facts are probed only when it is running (probing would start it), and
        not when the sandbox they would run in cannot run (its line says why)."""
        runner, _ = self._require()
        state = await self._distro_state()
        if state.state != "Running":
            return state, None
        try:
            return state, await self.facts(runner)
        except ToolFailure:
            if self.gate is None or self.gate.failure is None:
                raise
            return state, None

    def _sandbox_line(self) -> str | None:
        gate = self.gate
        if gate is None:
            return None
        if gate.off:
            return f"sandbox: {gate.off_line}"
        if gate.failure is not None and gate.required:
            return f"sandbox: REQUIRED BUT NOT RUNNING, nothing runs: {gate.failure}"
        if not gate.ready:
            return "sandbox: auto (probed before the first command)"
        return summary(gate.profile, gate.home, gate.facts.version if gate.facts is not None else "")

    async def facts(self, runner: Runner) -> Facts:
        run = await runner.run(
            ScriptCall(FACTS_SCRIPT, timeout_s=FACTS_TIMEOUT_S, max_output=1 << 16, confine="distro-pids")
        )
        return parse_facts(run.exchange.stdout.decode("utf-8", "replace"))

    @_answers("wsl_list_hosts")
    async def list_hosts(self) -> Result:
        if not self.config.configured:
            return results.NotSetUp(self.plain_linux)
        state, facts = await self.state()
        return results.Hosts(
            self.config,
            self._endpoint(),
            self.transport_kind,
            state,
            facts,
            plain_linux=self.plain_linux and self.transport_kind == "local",
            sandbox=self._sandbox_line(),
        )

    async def check(self) -> results.Checked:
        """``wslmcp shell --check``: the listing, ``id`` through the guarded path, then the facts."""
        checked = results.Checked(self.config, self._endpoint(), self.transport_kind, self.plain_linux)
        if not self.config.configured:
            return checked
        runner, _ = self._require()
        try:
            state = await self._distro_state()
        except TransportError as exc:
            return replace(checked, failure=str(exc))
        checked = replace(checked, state=state)
        if not state.installed:
            return checked
        gate = self.gate
        if gate is not None:
            failure = await gate.probe(runner)
            checked = replace(checked, sandbox=self._sandbox_line())
            if failure is not None and (gate.required or not gate.off):
                return checked
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
            return replace(checked, refused=refused)
        except TransportError as exc:
            return replace(checked, failure=str(exc), probed=True)
        ex = run.exchange
        checked = replace(
            checked,
            probed=True,
            exit_code=ex.exit_code,
            timed_out=ex.timed_out,
            stdout=ex.stdout.decode("utf-8", "replace").strip(),
            stderr=ex.stderr.decode("utf-8", "replace").strip(),
            duration_ms=round(ex.duration_s * 1000),
        )
        if ex.exit_code != 0:
            return checked
        return replace(checked, facts=await self.facts(runner))
