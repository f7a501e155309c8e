"""wsl_exec's script wrapper, output shaping and reply text.

The wrapper (one bash script, run by the transport as ``bash -lc SCRIPT``)::

    export WSLMCP_RUN=<token>                      (added by the Runner)
    exec 2>&1                                      (a background process: one stream)
    trap '<end>' EXIT                              (a background process: before the cd)
    cd -- '<cwd>' 2>/dev/null || { printf ... >&2; exit 1; }     (only with a cwd)
    trap '<end>' EXIT                              (a command: after the cd)
    __wslmcp_sig=; for __wslmcp_s in 1 2 3 10 12 14 15; do trap "__wslmcp_sig=$__wslmcp_s; exit" $__wslmcp_s; done
    eval '<the command, single-quoted>'

``eval`` of the single-quoted text runs exactly the text the guard screened, in the login shell,
and an unterminated quote or heredoc in it cannot swallow the wrapper. ``<end>`` prints, for a
session call, ``\\n__WSLMCP_CWD_<token>__<$PWD>`` (even when the command calls ``exit``); then the
exit marker ``\\0WSLMCP_EXIT_<token>:<code>\\0`` (a background process always, a command only when
its shell dies of a signal), where ``<code>`` is ``-N`` for a death by signal N. The token makes
the markers impossible to forge from the command's own output.

**A death by signal.** A shell killed by a signal runs its EXIT trap with ``$?`` still 0, and past
a sandbox or wsl.exe its death reads as the exit code 128+N, like an ``exit 143``. So the fatal
signals a shell can catch (HUP INT QUIT USR1 USR2 ALRM TERM) are trapped: the trap notes the
signal and exits, ``<end>`` writes ``-N``, and the shell then dies of that same signal (trap reset,
``kill -N $$``), so its parent sees what it would have seen. One thing changes: a shell waiting for
a foreground child acts on a trapped signal once the child ends (the sweep signals the child too).
KILL cannot be caught: a run that ends without a marker reads the transport's code. Every tool
reports an ending as ``ExitStatus``: the exit code as a shell reports it (128+N for a death by
signal N) and that signal.
"""

from __future__ import annotations

import re
import signal as signals
from dataclasses import dataclass

from wslmcp.shell.output import Kept, Stream, left_out, shown
from wslmcp.shell.runner import Run, quote
from wslmcp.wording import counted

CWD_FAILURE = "wslmcp: cannot enter the working directory"
KILL = 9  # what every deadline and cap kills with
CAUGHT = (1, 2, 3, 10, 12, 14, 15)  # HUP INT QUIT USR1 USR2 ALRM TERM: fatal, and a shell may trap them
_SIGNAL_TRAPS = (
    "__wslmcp_sig=; for __wslmcp_s in "
    + " ".join(str(n) for n in CAUGHT)
    + '; do trap "__wslmcp_sig=$__wslmcp_s; exit" $__wslmcp_s; done'
)
_DIE = '[ -z "$__wslmcp_sig" ] || { trap - $__wslmcp_sig; kill -$__wslmcp_sig $$; }; exit $__wslmcp_rc'


def cwd_marker(token: str) -> str:
    return f"__WSLMCP_CWD_{token}__"


def exit_marker(token: str) -> bytes:
    """How the exit marker of run ``token`` starts (``\\0WSLMCP_EXIT_<token>:<code>\\0``)."""
    return f"\0WSLMCP_EXIT_{token}:".encode()


def _end_trap(token: str, *, marker: str | None, always: bool) -> str:
    """The EXIT trap (see the module docstring): the cwd marker, the exit marker, dying of the signal."""
    parts = ["__wslmcp_rc=$?"]
    if marker:
        parts.append(f'printf "\\n%s%s\\n" "{marker}" "$PWD"')
    if always:
        parts.append(
            f'printf "\\0WSLMCP_EXIT_%s:%s\\0" {token} "${{__wslmcp_sig:+-}}${{__wslmcp_sig:-$__wslmcp_rc}}"'
        )
    else:
        parts.append(f'[ -z "$__wslmcp_sig" ] || printf "\\0WSLMCP_EXIT_%s:-%s\\0" {token} "$__wslmcp_sig"')
    return "trap '" + "; ".join([*parts, _DIE]) + "' EXIT"


def build_script(
    command: str,
    *,
    cwd: str | None,
    marker: str | None,
    token: str | None = None,
    background: bool = False,
) -> str:
    """The wrapper of the module docstring. Without ``token``, no trap but the session's (a fixed
    script of ours); ``background``: one stream, and the exit marker at every end."""
    lines = []
    if background:
        lines.append("exec 2>&1")
        if token:
            lines.append(_end_trap(token, marker=marker, always=True))
    if cwd:
        q = quote(cwd)
        lines.append(f"cd -- {q} 2>/dev/null || {{ printf '%s %s\\n' '{CWD_FAILURE}' {q} >&2; exit 1; }}")
    if token and not background:
        lines.append(_end_trap(token, marker=marker, always=False))
    elif marker and not background:
        lines.append(
            'trap \'__wslmcp_rc=$?; printf "\\n%s%s\\n" '
            + f'"{marker}"'
            + ' "$PWD"; exit $__wslmcp_rc\' EXIT'
        )
    if token:
        lines.append(_SIGNAL_TRAPS)
    lines.append(f"eval {quote(command)}")
    return "\n".join(lines)


@dataclass(frozen=True)
class ExitStatus:
    """How a command ended, one form for every tool and transport: ``code`` as a shell reports it
    (``$?``: 128+N for a death by signal N; None while unknown) and ``signal``, the N of a death by
    signal (None for an exit)."""

    code: int | None
    signal: int | None = None

    @classmethod
    def of(cls, raw: int | None, *, killed: bool = False) -> ExitStatus:
        """From ``raw`` (an exit code, or -N for a death by signal N: the exit marker's and the local
        transport's form); ``killed``: this server killed the run (deadline, cap, wsl_stop's KILL), so
        it died of KILL unless a marker said otherwise."""
        if raw is not None and raw < 0:
            return cls(128 - raw, -raw)
        if killed and (raw is None or raw == 128 + KILL):
            return cls(128 + KILL, KILL)
        return cls(raw)

    def words(self) -> str:
        """``143 (killed by signal 15, SIGTERM)``, ``0``, or ``none``."""
        if self.code is None:
            return "none"
        if self.signal is None:
            return str(self.code)
        return f"{self.code} (killed by {signal_words(self.signal)})"


def signal_words(number: int) -> str:
    """``signal 15, SIGTERM``."""
    try:
        return f"signal {number}, {signals.Signals(number).name}"
    except ValueError:
        return f"signal {number}"


def take_exit_marker(data: bytes, token: str) -> tuple[bytes, int | None]:
    """``data`` without the exit marker of ``token``, and the code it carried (None: no marker)."""
    found = re.search(re.escape(exit_marker(token)) + rb"(-?\d+)\0", data)
    if found is None:
        return data, None
    return data[: found.start()] + data[found.end() :], int(found.group(1))


def split_marker(stdout: bytes, marker: str) -> tuple[bytes, str | None]:
    """Remove the last cwd marker line from ``stdout``; return (output, reported cwd or None)."""
    at = stdout.rfind(b"\n" + marker.encode())
    if at < 0:
        return stdout, None
    rest = stdout[at + 1 + len(marker) :]
    reported, _, after = rest.partition(b"\n")
    return stdout[:at] + after, reported.decode("utf-8", "replace") or None


@dataclass(frozen=True)
class ExecOutcome:
    stdout: Stream
    stderr: Stream
    status: ExitStatus
    duration_ms: int
    timed_out: bool
    overflowed: bool  # a stream passed the safety cap: the command was stopped
    group_killed: tuple[str, ...]  # killed by the transport with the command's process group
    swept: tuple[str, ...]  # killed by the token sweep (inside the distro / outside the group)
    sweep_error: str | None
    reported_cwd: str | None

    @property
    def killed(self) -> tuple[str, ...]:
        return self.group_killed + self.swept

    @property
    def exit_code(self) -> int | None:
        return self.status.code


def kept_streams(max_chars: int) -> tuple[Kept, Kept]:
    """The sinks a command's stdout and stderr pass through (``output.Kept``)."""
    return Kept.for_chars(max_chars), Kept.for_chars(max_chars)


def shape(run: Run, out: Kept, err: Kept, *, max_chars: int, cap: int, marker: str | None) -> ExecOutcome:
    """The outcome of a command whose streams went to ``out`` and ``err`` (``kept_streams``): the
    exit marker and the cwd marker taken out of stdout's end, each stream as a reply shows it."""
    ex = run.exchange
    signalled: int | None = None
    reported: str | None = None

    def unmark(data: bytes) -> bytes:
        nonlocal signalled, reported
        data, signalled = take_exit_marker(data, run.token)
        if marker is not None:
            data, reported = split_marker(data, marker)
        return data

    out.rewrite_end(unmark)
    return ExecOutcome(
        stdout=shown(out, max_chars, written=ex.stdout_total, capped=ex.overflowed and ex.stdout_total > cap),
        stderr=shown(err, max_chars, written=ex.stderr_total, capped=ex.overflowed and ex.stderr_total > cap),
        status=ExitStatus.of(signalled)
        if signalled is not None
        else ExitStatus.of(ex.exit_code, killed=ex.timed_out or ex.overflowed),
        duration_ms=round(ex.duration_s * 1000),
        timed_out=ex.timed_out,
        overflowed=ex.overflowed,
        group_killed=run.group_killed,
        swept=run.swept,
        sweep_error=run.sweep_error,
        reported_cwd=reported,
    )


def _processes(names: tuple[str, ...]) -> str:
    return f"{counted(len(names), 'process', 'processes')}: {', '.join(names)}"


def describe_kill(outcome: ExecOutcome, transport_kind: str, sandboxed: bool = False) -> str:
    """What was killed: the transport's own kill (naming the process group's members where the
    transport reports them), then what the token sweep found beyond it. Under the sandbox every
    process the command started lives in its PID namespace, which ends with the first of them."""
    if transport_kind == "wsl.exe":
        first, where = "wsl.exe was killed", "inside the distro"
    else:
        first, where = "the command's process group was killed", "outside its process group"
        if outcome.group_killed:
            first += f" ({_processes(outcome.group_killed)})"
    if sandboxed:
        first += " with the sandbox, whose PID namespace takes every process in it along"
    if outcome.sweep_error:
        return f"{first}; the sweep inside the distro failed, so processes may survive: {outcome.sweep_error}"
    if outcome.swept:
        return f"{first}, and {counted(len(outcome.swept), 'process', 'processes')} {where}: {', '.join(outcome.swept)}"
    return f"{first}; no process of this command was left {where}"


def render(
    outcome: ExecOutcome,
    *,
    timeout_ms: int,
    max_chars: int,
    cap: int,
    transport_kind: str,
    cwd: str | None,
    cwd_note: str | None = None,
    sandbox_note: str | None = None,
    sandboxed: bool = False,
) -> str:
    header = [f"exit code: {outcome.status.words()}", f"{outcome.duration_ms}ms"]
    if cwd:
        header.append(f"cwd: {cwd}")
    lines = ["  ·  ".join(header)]
    if outcome.timed_out:
        lines.append(f"TIMED OUT after {timeout_ms}ms — {describe_kill(outcome, transport_kind, sandboxed)}.")
    elif outcome.overflowed:
        which = " and ".join(
            n for n, s in (("stdout", outcome.stdout), ("stderr", outcome.stderr)) if s.capped
        )
        lines.append(
            f"STOPPED: {which or 'its output'} passed the safety cap of {cap} bytes (WSL_OUTPUT_CAP_BYTES) — "
            f"{describe_kill(outcome, transport_kind, sandboxed)}."
        )
    cut = [(n, s) for n, s in (("stdout", outcome.stdout), ("stderr", outcome.stderr)) if s.dropped_chars]
    if cut:
        said = "; ".join(f"{n}: {left_out(s)} of {s.total_chars} left out" for n, s in cut)
        lines.append(
            f"Long output: its first and last lines are kept, {max_chars} characters per stream ({said}); "
            "narrow the command (grep / head / tail) or raise WSL_MAX_OUTPUT for this profile."
        )
    if cwd_note:
        lines.append(cwd_note)
    if sandbox_note:
        lines.append(sandbox_note)
    lines += ["", "--- stdout ---", outcome.stdout.text or "(empty)"]
    if outcome.stderr.text:
        lines += ["", "--- stderr ---", outcome.stderr.text]
    return "\n".join(lines)
