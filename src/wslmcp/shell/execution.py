"""wsl_exec's script wrapper, output shaping and reply text.

The wrapper (one bash script, run by the transport as ``bash -lc SCRIPT``)::

    export WSLMCP_RUN=<token>                      (added by the Runner)
    cd -- '<cwd>' 2>/dev/null || { printf ... >&2; exit 1; }     (only with a cwd)
    trap '<print cwd marker>' EXIT                 (only for session calls)
    eval '<the command, single-quoted>'

``eval`` of the single-quoted text runs exactly the text the guard screened, in the login shell,
and an unterminated quote or heredoc in it cannot swallow the wrapper. The EXIT trap prints
``\\n__WSLMCP_CWD_<token>__<$PWD>`` even when the command calls ``exit``; the token makes the
marker impossible to forge from the command's own output.
"""

from __future__ import annotations

from dataclasses import dataclass

from wslmcp.shell.runner import Run, quote

CWD_FAILURE = "wslmcp: cannot enter the working directory"


def cwd_marker(token: str) -> str:
    return f"__WSLMCP_CWD_{token}__"


def build_script(command: str, *, cwd: str | None, marker: str | None) -> str:
    lines = []
    if cwd:
        q = quote(cwd)
        lines.append(f"cd -- {q} 2>/dev/null || {{ printf '%s %s\\n' '{CWD_FAILURE}' {q} >&2; exit 1; }}")
    if marker:
        lines.append(
            'trap \'__wslmcp_rc=$?; printf "\\n%s%s\\n" '
            + f'"{marker}"'
            + ' "$PWD"; exit $__wslmcp_rc\' EXIT'
        )
    lines.append(f"eval {quote(command)}")
    return "\n".join(lines)


def split_marker(stdout: str, marker: str) -> tuple[str, str | None]:
    """Remove the last cwd marker line from ``stdout``; return (output, reported cwd or None)."""
    at = stdout.rfind("\n" + marker)
    if at < 0:
        return stdout, None
    rest = stdout[at + 1 + len(marker) :]
    reported, _, after = rest.partition("\n")
    return stdout[:at] + after, reported or None


@dataclass(frozen=True)
class Stream:
    text: str
    total_chars: int
    dropped_chars: int
    total_bytes: int
    capped: bool  # the hard byte cap cut this stream while the command ran


def shape_stream(text: str, total_bytes: int, capped: bool, max_chars: int) -> Stream:
    if len(text) <= max_chars:
        return Stream(text, len(text), 0, total_bytes, capped)
    dropped = len(text) - max_chars
    return Stream(text[:max_chars], len(text), dropped, total_bytes, capped)


@dataclass(frozen=True)
class ExecOutcome:
    stdout: Stream
    stderr: Stream
    exit_code: int | None
    duration_ms: int
    timed_out: bool
    overflowed: bool
    group_killed: tuple[str, ...]  # killed by the transport with the command's process group
    swept: tuple[str, ...]  # killed by the token sweep (inside the distro / outside the group)
    sweep_error: str | None
    reported_cwd: str | None

    @property
    def killed(self) -> tuple[str, ...]:
        return self.group_killed + self.swept


def shape(run: Run, *, max_chars: int, marker: str | None) -> ExecOutcome:
    ex = run.exchange
    raw_out = ex.stdout.decode("utf-8", errors="replace")
    reported = None
    if marker is not None:
        raw_out, reported = split_marker(raw_out, marker)
    stdout = shape_stream(raw_out, ex.stdout_total, ex.stdout_total > len(ex.stdout), max_chars)
    stderr = shape_stream(
        ex.stderr.decode("utf-8", errors="replace"),
        ex.stderr_total,
        ex.stderr_total > len(ex.stderr),
        max_chars,
    )
    return ExecOutcome(
        stdout=stdout,
        stderr=stderr,
        exit_code=ex.exit_code,
        duration_ms=round(ex.duration_s * 1000),
        timed_out=ex.timed_out,
        overflowed=ex.overflowed,
        group_killed=run.group_killed,
        swept=run.swept,
        sweep_error=run.sweep_error,
        reported_cwd=reported,
    )


def _with_marker(stream: Stream) -> str:
    text = stream.text
    if stream.dropped_chars:
        text += f"\n... [truncated {stream.dropped_chars} of {stream.total_chars} characters]"
    if stream.capped:
        text += f"\n... [the command was killed after writing {stream.total_bytes} bytes to this stream]"
    return text


def _processes(names: tuple[str, ...]) -> str:
    return f"{len(names)} process(es): {', '.join(names)}"


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
        return f"{first}, and {len(outcome.swept)} process(es) {where}: {', '.join(outcome.swept)}"
    return f"{first}; no process of this command was left {where}"


def render(
    outcome: ExecOutcome,
    *,
    timeout_ms: int,
    max_chars: int,
    hard_cap: int,
    transport_kind: str,
    cwd: str | None,
    cwd_note: str | None = None,
    sandbox_note: str | None = None,
    sandboxed: bool = False,
) -> str:
    code = outcome.exit_code
    if code is None:
        code_text = "none (killed)"
    elif code < 0:
        code_text = f"none (killed by signal {-code})"
    else:
        code_text = str(code)
    header = [f"exit code: {code_text}", f"{outcome.duration_ms}ms"]
    if cwd:
        header.append(f"cwd: {cwd}")
    lines = ["  ·  ".join(header)]
    if outcome.timed_out:
        lines.append(f"TIMED OUT after {timeout_ms}ms — {describe_kill(outcome, transport_kind, sandboxed)}.")
    elif outcome.overflowed:
        lines.append(
            f"KILLED: output passed the hard cap of {hard_cap} bytes per stream — "
            f"{describe_kill(outcome, transport_kind, sandboxed)}."
        )
    if outcome.stdout.dropped_chars or outcome.stderr.dropped_chars:
        lines.append(
            f"Output was truncated to {max_chars} characters per stream; narrow the command "
            "(grep / head / tail) or raise WSL_MAX_OUTPUT for this profile."
        )
    if cwd_note:
        lines.append(cwd_note)
    if sandbox_note:
        lines.append(sandbox_note)
    lines += ["", "--- stdout ---", _with_marker(outcome.stdout) or "(empty)"]
    if outcome.stderr.text or outcome.stderr.capped:
        lines += ["", "--- stderr ---", _with_marker(outcome.stderr)]
    return "\n".join(lines)
