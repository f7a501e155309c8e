"""The guard's four questions, each answered in two passes for a command: the flow pass turns the
script into effects (``flow.py``), the rule passes judge them (``rules/``). Paths, working
directories and local paths are judged by the path rules alone (``rules/paths.py``).
"""

from __future__ import annotations

import re
from dataclasses import fields, replace

from wslmcp.shell.guard.effects import Effect
from wslmcp.shell.guard.expand import Env
from wslmcp.shell.guard.flow import Flow
from wslmcp.shell.guard.limits import MAX_COMMAND_CHARS, Budget, GuardLimit
from wslmcp.shell.guard.paths import (
    as_pattern,
    distro_form,
    local_form,
    normalize,
    operator_label,
    resolve,
    runs_later,
)
from wslmcp.shell.guard.policy import NOTHING_RUN, Access, Decision, Policy
from wslmcp.shell.guard.rules import decide
from wslmcp.shell.guard.rules.paths import allowed_paths_finding, mnt_write_finding, persistence_finding
from wslmcp.shell.guard.values import LISTED, UNKNOWN_SET, Arg, shown

CWD_METACHARACTERS = "`$;|&<>(){}!*?[]\\\"'\n\r\t"


def _limit_decision(exc: GuardLimit, text: str | None) -> Decision:
    segment = None if text is None else (text if len(text) <= 200 else text[:200] + "…")
    return Decision.reject(exc.rule, segment, f"{exc.reason}; {NOTHING_RUN}")


def _start_cwd(policy: Policy, cwd: str | None) -> str | None:
    if not cwd:
        return None
    cwd = cwd.strip()
    if cwd == "~" or cwd.startswith("~/"):
        if not policy.home:
            return None
        cwd = policy.home + cwd[1:]
    return normalize(cwd).rstrip("/") or "/" if cwd.startswith("/") else None


def _refused_text(policy: Policy, command: str) -> Decision | None:
    """Text the guard refuses before reading it: too long, a NUL, nothing at all."""
    if len(command) > MAX_COMMAND_CHARS:
        return Decision.reject(
            "parse.too_long",
            command[:200] + "…",
            f"the command is {len(command)} characters, more than the {MAX_COMMAND_CHARS} the guard screens; {NOTHING_RUN}",
        )
    if "\x00" in command:
        return Decision.reject(
            "parse.invalid",
            None,
            f"the command contains a NUL character, which bash cannot pass on; {NOTHING_RUN}",
        )
    if not re.sub(r"\\\r?\n", "", command).strip():
        return Decision.reject("parse.empty", None, f"the command is empty; {NOTHING_RUN}")
    return None


def run_flow(policy: Policy, command: str, cwd: str | None, budget: Budget) -> tuple[Flow, Decision | None]:
    """The flow pass over ``command``: its batches, and the refusal for a bound it ran past (if any)."""
    flow = Flow(policy, budget)
    env = Env(policy.home, policy.user, _start_cwd(policy, cwd))
    try:
        flow.text(command.replace(UNKNOWN_SET, "\x02").replace(LISTED, "\x02"), env, "", 0)
    except GuardLimit as exc:
        return flow, _limit_decision(exc, command)
    except RecursionError:
        return flow, Decision.reject(
            "parse.too_deep", None, f"the command nests too deeply to screen reliably; {NOTHING_RUN}"
        )
    return flow, None


def check_command(policy: Policy, command: str, cwd: str | None, budget: Budget | None = None) -> Decision:
    """The decision for ``command``; ``budget`` (fresh by default) counts the work done, for tests
    and benchmarks that check the structural bounds."""
    refused = _refused_text(policy, command)
    if refused is not None:
        return refused
    if cwd is not None:
        verdict = check_cwd(policy, cwd)
        if not verdict.allowed:
            return verdict
    flow, limit = run_flow(policy, command, cwd, budget if budget is not None else Budget())
    decision = decide(policy, flow.batches)
    if decision is not None and limit is not None:  # the rest was never read: no one may approve it
        return replace(decision, others=(*decision.others, limit))
    return decision or limit or Decision.allow()


def commands_seen(policy: Policy, command: str, cwd: str | None = None) -> tuple[Decision, list[str]]:
    """The decision and the name of every binary and wrapper the guard screened, in order.
    For tests that hold the reader against real bash: everything bash runs must be in this list."""
    flow, limit = run_flow(policy, command, cwd, Budget())
    return decide(policy, flow.batches) or limit or Decision.allow(), flow.seen


def effects_as_data(policy: Policy, command: str, cwd: str | None) -> list[dict[str, object]]:
    """What the flow pass found for ``command``, batch by batch, as plain data (for ``explain``)."""
    flow, _ = run_flow(policy, command, cwd, Budget())
    return [
        {
            "command": shown(b.seg.raw),
            "context": b.seg.context.strip() or None,
            "effects": [_effect_data(e) for e in b.effects],
        }
        for b in flow.batches
    ]


def _effect_data(effect: Effect) -> dict[str, object]:
    data: dict[str, object] = {"effect": type(effect).__name__}
    for f in fields(effect):
        value = getattr(effect, f.name)
        if isinstance(value, Arg):
            value = value.shown
        elif isinstance(value, tuple):
            value = [v.shown if isinstance(v, Arg) else v for v in value]
        if value not in (None, "", False, [], ()):
            data[f.name] = value
    return data


def check_cwd(policy: Policy, path: str) -> Decision:
    value = path.strip()
    if not value:
        return Decision.allow()
    for ch in value:
        if ch in CWD_METACHARACTERS or ch == "\x00":
            shown_char = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\x00": "\\0"}.get(ch, ch)
            return Decision.reject(
                "cwd.metachar",
                value,
                f"cwd contains the shell metacharacter '{shown_char}', which is not allowed in a directory argument; {NOTHING_RUN}",
            )
    resolved = resolve(value, None, policy.home)
    label = operator_label(resolved)
    if label:
        return Decision.reject(
            "operator_path",
            value,
            f"{resolved} is operator {label} and cannot be used as a working directory; {NOTHING_RUN}",
        )
    return Decision.allow()


def check_path(policy: Policy, path: str, access: Access) -> Decision:
    # Judged exactly as given: the file tools operate on this very string, so a trimmed form
    # ("/var/log" for "/var/log\t") would let a sibling outside the allowed paths through.
    value = path
    if not value.strip():
        return Decision.reject("path.empty", None, f"path is empty; {NOTHING_RUN}")
    if "\x00" in value or "\n" in value:
        return Decision.reject(
            "path.invalid", value, f"path contains a NUL or newline character; {NOTHING_RUN}"
        )
    norm = resolve(value, None, policy.home)
    label = operator_label(as_pattern(norm, glob=False))  # a file tool's path is one literal name
    if label:
        verb = "written to" if access == "write" else "read"
        return Decision.reject(
            "operator_path",
            value,
            f"{norm} is operator {label} and cannot be {verb} by the agent, even with Windows access open; {NOTHING_RUN}",
        )
    found: list[Decision] = []
    if access == "write" and policy.readonly:
        found.append(
            Decision.reject(
                "readonly.write", value, f"profile is read-only, file writes are not permitted; {NOTHING_RUN}"
            )
        )
    finding = (
        mnt_write_finding(policy, norm, None) or persistence_finding(policy, norm)
        if access == "write"
        else None
    )
    for f in (finding, allowed_paths_finding(policy, value, norm)):
        if f is not None:
            segment = norm if f.rule == "allowed_paths" and norm.startswith("/") else value
            found.append(Decision.reject(f.rule, segment, f"{f.why}; {NOTHING_RUN}"))
    return replace(found[0], others=tuple(found[1:])) if found else Decision.allow()


def check_local_path(policy: Policy, path: str, access: Access) -> Decision:
    value = path.strip()
    if not value:
        return Decision.reject("path.empty", None, f"local path is empty; {NOTHING_RUN}")
    if "\x00" in value:
        return Decision.reject("path.invalid", value, f"local path contains a NUL character; {NOTHING_RUN}")
    form = local_form(value)
    label = operator_label(as_pattern(form, glob=False), local=True)
    if label:
        verb = "written to" if access == "write" else "read from"
        return Decision.reject(
            "operator_path",
            value,
            f"local path is protected and cannot be {verb}: {label} ({form}); {NOTHING_RUN}",
        )
    later = runs_later(as_pattern(distro_form(form), glob=False), None) if access == "write" else None
    if later:
        return Decision.reject(
            "persistence",
            value,
            f"local path is a {later}: what is written there runs later, outside this call; {NOTHING_RUN}",
        )
    return Decision.allow()
