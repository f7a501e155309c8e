"""Running scripts through a transport: run tokens, bounded concurrency, and killing what a timed-out
or runaway command left running inside the distro.

Every script gets ``export WSLMCP_RUN=<token>`` as its first line. Every process it starts inherits
that variable, so when the deadline passes (or a stream passes the safety cap) a second, short
script finds every process in the distro whose environment carries the token, stops them all
(three rounds, to catch children forked meanwhile), names them, and kills them. The wsl.exe
transport only kills wsl.exe itself; this sweep is what kills the Linux side. The local transport
stops the command's process group at the deadline, names its members and kills them
(``Exchange.killed``); the sweep then catches what escaped the group (``setsid``). Either way
``Run.killed`` names every process that was killed.

Under a sandbox every command is followed by the after-command check (``shell.sandbox_launcher``):
its report comes back on stderr marked with a tag the runner gives the call (``ScriptCall.tag``, not
known to the command), and is taken out there (``Run.undone``). A call cut short (the deadline, the
output cap) is followed, after the sweep, by a ``check`` call, which does the check of a run whose
watcher was killed with it and hands over the report. Every report a call gets is also added to the
list ``REPORTS`` holds in the calling context, so a tool can say what was undone whatever ran.
"""

from __future__ import annotations

import asyncio
import re
import secrets
from collections.abc import Callable, Iterable
from contextvars import ContextVar
from dataclasses import dataclass, replace
from typing import Protocol

from wslmcp.boundaries.process import ByteSink, Exchange
from wslmcp.boundaries.replay_miss import NotRecorded, tolerate
from wslmcp.boundaries.shell_transport import ScriptCall, ShellTransport, TransportError
from wslmcp.shell.output import Kept
from wslmcp.shell.sandbox import split_report

MAX_CONCURRENT = 32
SWEEP_TIMEOUT_S = 10.0
CHECK_TIMEOUT_S = 30.0
# What the after-command check undid, for the tool call in whose context the runs ran (None: not asked).
REPORTS: ContextVar[list[str] | None] = ContextVar("REPORTS", default=None)
_TOKEN_RE = re.compile(r"[0-9a-f]{8,64}")
_HEX_RE = re.compile(r"[0-9a-f]{1,64}")

# Carriers of run token T: processes whose command line holds the script's first line "export
# WSLMCP_RUN=T" (the script's own top-level shell, whose /proc environ predates its export), found
# first so that they are signalled first (a shell told of TERM before its foreground child dies of
# it dies of TERM too, and says so), and processes whose environment holds WSLMCP_RUN=T (everything
# the command started). The command-line
# pattern is written "=[x]yz..." so that neither this script's shell nor grep matches itself.
# Several tokens are swept at once (one pattern each). KILL stops every carrier first (three rounds,
# to catch children forked meanwhile), names them, then kills them; another signal (INT, TERM) is
# sent without stopping, so the carriers can act on it, and a process is named once the signal
# reached it; 0 only looks. One gone meanwhile, or a zombie, is left out.
_SWEEP = r"""t='WSLMCP_RUN={token}'
c='export WSLMCP_RUN=[{head}]{tail}'
if printf 'a\0' | grep -qzx a 2>/dev/null; then
  carriers() {{ grep -lsa -- "$c" /proc/[0-9]*/cmdline 2>/dev/null; grep -lsxzF -- "$t" /proc/[0-9]*/environ 2>/dev/null; }}
else  # a grep without -z (busybox builds): one process at a time
  carriers() {{ for f in /proc/[0-9]*/cmdline; do grep -qs -- "$c" "$f" 2>/dev/null && echo "$f"; done
    for f in /proc/[0-9]*/environ; do {{ tr '\0' '\n' < "$f"; }} 2>/dev/null | grep -qxF -- "$t" && echo "$f"; done; }}
fi
all=' '
for round in 1 2 3; do
  new=0
  for f in $(carriers); do
    p=${{f#/proc/}}; p=${{p%/*}}
    [ "$p" = $$ ] && continue
    case "$all" in *" $p "*) ;; *) all="$all$p "; new=1; {freeze} ;; esac
  done
  [ "$new" = 0 ] && break
done
for p in $all; do
  {{ read -r n < /proc/$p/comm && read -r l < /proc/$p/stat; }} 2>/dev/null || continue
  l=${{l##*) }}; [ "${{l%% *}}" = Z ] && continue
  case {spare}$n in 1bwrap) continue ;; esac
  {act}
done
for p in $k; do kill -KILL "$p" 2>/dev/null; done
exit 0"""
# KILL names every process first (each is stopped, so each dies), then kills them (killing one may
# end others: a sandbox's namespace); another signal names a process once it was sent the signal.
_NAMED_THEN_KILLED = 'k="$k $p"; printf \'%s %s\\n\' "$p" "$n"'
_SIGNALLED = 'kill -{signal} "$p" 2>/dev/null && printf \'%s %s\\n\' "$p" "$n"'

SIGNALS = ("INT", "TERM", "KILL")
# Runs the gate does not wait for: the probe itself, and one a person approved outside the sandbox.
_UNGATED = ("probe", "none")
LOOK = "0"  # the sweep that signals nothing: who still carries the token

# Under a sandbox the command's processes sit in a PID namespace of their own (and a user namespace
# whose processes' environments the sweep, in a sandbox of its own, may not read): the carriers found
# by command line are bubblewrap's two processes, and everything else is found as their descendants
# (parent pids from /proc/<pid>/stat). Killing the namespace's first process ends all of it anyway;
# so INT and TERM spare bubblewrap's processes ("spare"), which end with the command: a TERMed
# bubblewrap would take the namespace down with KILL before the command's shell could act on it.
_DESCENDANTS = r"""  for s in /proc/[0-9]*/stat; do
    read -r l < "$s" 2>/dev/null || continue
    p=${{l%% *}}; l=${{l##*) }}; set -- $l
    [ "$p" = $$ ] && continue
    case "$all" in *" $2 "*) case "$all" in *" $p "*) ;; *) all="$all$p "; new=1; {freeze} ;; esac ;; esac
  done
"""
_SWEEP_TREE = _SWEEP.replace('  [ "$new" = 0 ] && break\n', _DESCENDANTS + '  [ "$new" = 0 ] && break\n')


def sweep_script(*tokens: str, signal: str = "KILL", descendants: bool = False) -> str:
    """The sweep for ``tokens`` (see ``_SWEEP``): ``signal`` (``INT``, ``TERM`` or ``KILL``; ``LOOK``
    names without signalling) to every process that carries one of them; with ``descendants``, also
    to every process descending from one found (``_DESCENDANTS``), bubblewrap's spared by INT and
    TERM. Several tokens are several grep patterns, one a line."""
    if signal not in (*SIGNALS, LOOK) or not tokens or not all(_HEX_RE.fullmatch(t) for t in tokens):
        raise ValueError(f"a sweep needs run tokens and one of {', '.join(SIGNALS)}")
    freeze = 'kill -STOP "$p" 2>/dev/null' if signal == "KILL" else ":"
    return (_SWEEP_TREE if descendants else _SWEEP).format(
        token="\nWSLMCP_RUN=".join(tokens),
        head=tokens[0][0],
        tail="\nexport WSLMCP_RUN=".join([tokens[0][1:], *(f"[{t[0]}]{t[1:]}" for t in tokens[1:])]),
        freeze=freeze,
        act=_NAMED_THEN_KILLED if signal == "KILL" else _SIGNALLED.format(signal=signal),
        spare=int(descendants and signal not in ("KILL", LOOK)),
    )


def _take_report(exchange: Exchange, sink: ByteSink | None, tag: str) -> tuple[Exchange, tuple[str, ...]]:
    """The after-command check's report taken out of the run's stderr, from the end of its sink
    when it had one (``output.Kept``, which keeps its counts true) or else from what was captured."""
    found: tuple[str, ...] = ()
    if isinstance(sink, Kept):

        def take(data: bytes) -> bytes:
            nonlocal found
            data, found = split_report(data, tag)
            return data

        sink.rewrite_end(take)
        return exchange, _reported(found)
    stderr, found = split_report(exchange.stderr, tag)
    taken = len(exchange.stderr) - len(stderr)  # (not the command's: out of its count too)
    return replace(exchange, stderr=stderr, stderr_total=exchange.stderr_total - taken), _reported(found)


def _reported(undone: tuple[str, ...]) -> tuple[str, ...]:
    """``undone``, added to the calling context's ``REPORTS``."""
    reports = REPORTS.get()
    if reports is not None:
        reports.extend(undone)
    return undone


def quote(text: str) -> str:
    """Single-quote ``text`` for bash: the only way in or out of the quotes is ``'\\''``."""
    return "'" + text.replace("'", "'\\''") + "'"


def random_token() -> str:
    return secrets.token_hex(8)


@dataclass(frozen=True)
class Run:
    """One script's exchange, plus what was killed when it was cut short (``pid comm`` each):
    ``group_killed`` by the transport (the local process group), ``swept`` by the token sweep."""

    exchange: Exchange
    token: str
    swept: tuple[str, ...] = ()
    sweep_error: str | None = None
    undone: tuple[str, ...] = ()  # what the sandbox's after-command check undid (its report)

    @property
    def group_killed(self) -> tuple[str, ...]:
        return self.exchange.killed

    @property
    def killed(self) -> tuple[str, ...]:
        """Every process killed, the transport's kill first."""
        return self.group_killed + self.swept


class Gate(Protocol):
    """What must hold before anything runs (the sandbox can be set up); ``check`` raises
    ``ToolFailure`` saying why not. It may run a ``confine="probe"`` call, which it does not gate."""

    async def check(self, runner: Runner) -> None: ...


class Runner:
    """The one way scripts reach a transport. ``tokens`` makes run tokens (random in production,
    a counter when replaying recorded exchanges); ``gate``, when given, is checked before every run."""

    def __init__(
        self,
        transport: ShellTransport,
        tokens: Callable[[], str] = random_token,
        max_concurrent: int = MAX_CONCURRENT,
        gate: Gate | None = None,
    ) -> None:
        self.transport = transport
        self.tokens = tokens
        self.gate = gate
        self._slots = asyncio.Semaphore(max_concurrent)
        self._interrupted: set[str] = set()
        self._unconfined: set[str] = set()  # runs a person approved outside the sandbox: swept outside it

    async def run(self, call: ScriptCall, *, token: str | None = None, bounded: bool = True) -> Run:
        """Run ``call`` under a run token (``token``, or a fresh one from ``tokens``); ``login=False``
        for fixed scripts that need no profile. ``bounded=False`` (a background process, which
        WSL_MAX_PROCESSES bounds) takes no concurrency slot."""
        token = token or self.tokens()
        if not _TOKEN_RE.fullmatch(token):
            raise ValueError(f"run tokens must be 8-64 lowercase hex digits, got {token!r}")
        if self.gate is not None and call.confine not in _UNGATED:
            await self.gate.check(self)
        checked = self.transport.confinement is not None and call.confine == "own"
        tag = self.tokens() if checked and not call.merge_stderr else ""
        tagged = replace(call, script=f"export WSLMCP_RUN={token}\n{call.script}", tag=tag)
        if call.confine == "none":
            self._unconfined.add(token)
        try:
            if bounded:
                async with self._slots:
                    exchange = await self.transport.run(tagged)
            else:
                exchange = await self.transport.run(tagged)
        except BaseException:
            self._interrupted.add(token)  # cancelled (shutdown) or failed: swept by ``shutdown``
            raise
        undone: tuple[str, ...] = ()
        if tag:
            exchange, undone = _take_report(exchange, call.stderr_sink, tag)
        if not (exchange.timed_out or exchange.overflowed):
            return Run(exchange, token, undone=undone)
        swept, error = await self.sweep(token)
        if checked:  # (a watcher that outlived the kill reported on stderr and in its report file)
            undone += tuple(line for line in await self.check(token) if line not in undone)
        already = {line.split(" ", 1)[0] for line in exchange.killed}
        kept = tuple(s for s in swept if s.split(" ", 1)[0] not in already)
        return Run(exchange, token, kept, error, undone)

    async def check(self, *tokens: str) -> tuple[str, ...]:
        """The after-command check of the runs ``tokens`` name (``*``: every run whose check never
        ran), done now under the sandbox: what it undid, also added to ``REPORTS``; nothing without one."""
        if self.transport.confinement is None or not tokens:
            return ()
        try:
            exchange = await self.transport.run(
                ScriptCall(
                    "\n".join(tokens),
                    timeout_s=CHECK_TIMEOUT_S,
                    max_output=1 << 20,
                    login=False,
                    confine="check",
                )
            )
        except (TransportError, NotRecorded) as exc:
            return _reported((f"the after-command check could not run: {exc}",))
        lines = exchange.stdout.decode("utf-8", "replace").splitlines()
        return _reported(tuple(line for line in lines if line.strip()))

    async def shutdown(self, also: Iterable[str] = ()) -> tuple[tuple[str, ...], str | None]:
        """Kill what runs of every interrupted run (a call cancelled when the server shuts down
        leaves its distro side running behind a killed wsl.exe) and of the runs ``also`` names, in
        one sweep; returns who was killed, and why the sweep failed if it did."""
        tokens = sorted(self._interrupted.union(also))
        self._interrupted.clear()
        if not tokens:
            return (), None
        swept = await self.sweep(*tokens)
        await self.check(*tokens)  # the after-command checks their killed watchers left undone
        return swept

    async def look(self, token: str) -> tuple[tuple[str, ...], str | None]:
        """Who still carries ``token`` (``pid comm`` each, no signal sent), and why the look failed
        if it did. A replay whose recording holds no look (recorded before looks were) finds nobody."""
        try:
            return await self._sweep(token, signal=LOOK, unconfined=token in self._unconfined), None
        except NotRecorded as exc:
            tolerate(exc)
            return (), None
        except _SweepFailed as exc:
            return (), str(exc)

    async def sweep(self, *tokens: str, signal: str = "KILL") -> tuple[tuple[str, ...], str | None]:
        """Send ``signal`` to every process in the distro whose environment carries
        ``WSLMCP_RUN=<one of tokens>`` (``KILL`` by default); returns who, and why it failed if it did.
        The carriers of a run outside the sandbox are swept outside it (inside, a sweep may not read
        the environment of a process with capabilities it lacks)."""
        outside = [t for t in tokens if t in self._unconfined]
        inside = [t for t in tokens if t not in self._unconfined]
        swept: list[str] = []
        failures: list[str] = []
        for group, unconfined in ((inside, False), (outside, True)):
            if not group:
                continue
            try:
                swept += await self._sweep(*group, signal=signal, unconfined=unconfined)
            except _SweepFailed as exc:
                failures.append(str(exc))
            except NotRecorded as exc:  # a replay that did not record a sweep ran none
                tolerate(exc)
                failures.append(str(exc))
        return tuple(swept), failures[0] if failures else None

    async def _sweep(self, *tokens: str, signal: str, unconfined: bool) -> tuple[str, ...]:
        confined = self.transport.confinement is not None and not unconfined
        try:
            exchange = await self.transport.run(
                ScriptCall(
                    sweep_script(*tokens, signal=signal, descendants=confined),
                    timeout_s=SWEEP_TIMEOUT_S,
                    max_output=1 << 20,
                    login=False,
                    confine="none" if unconfined else "distro-pids",
                )
            )
        except TransportError as exc:
            raise _SweepFailed(str(exc)) from exc
        if exchange.timed_out or exchange.exit_code != 0:
            said = exchange.stderr.decode("utf-8", "replace").strip()
            raise _SweepFailed(f"the kill sweep failed ({said or f'exit code {exchange.exit_code}'})")
        lines = exchange.stdout.decode("utf-8", "replace").splitlines()
        return tuple(line.strip() for line in lines if line.strip())


class _SweepFailed(Exception):
    """The sweep could not run, or failed (its message says why)."""
