"""The policy's rules: deny patterns, sudo, Windows interop, operator paths, writes under
``/mnt``, the read-only profile, the allow-list, and failing closed on what cannot be named.
"""

from __future__ import annotations

from wslmcp.shell.guard.effects import (
    Change,
    Effect,
    Format,
    Packages,
    Read,
    Run,
    Segment,
    Signal,
    Unknown,
    Write,
)
from wslmcp.shell.guard.paths import is_harmless_device, resolve
from wslmcp.shell.guard.policy import Policy
from wslmcp.shell.guard.rules.base import Finding, Rule
from wslmcp.shell.guard.rules.paths import mnt_write_finding, operator_finding, persistence_finding
from wslmcp.shell.guard.values import shown

PLAINLY = (
    "write the program name plainly (rm, /usr/bin/rm), not built from variables, globs or command output"
)


def _deny_patterns(policy: Policy, seg: Segment, effect: Effect) -> Finding | None:
    texts = {shown(seg.raw), seg.normalized()}
    for pattern in policy.deny_patterns:
        if any(pattern.search(t) for t in texts):
            return Finding("deny_pattern", f"blocked by the profile's deny pattern /{pattern.pattern}/")
    return None


def _sudo(policy: Policy, seg: Segment, effect: Effect) -> Finding | None:
    if isinstance(effect, Run) and effect.privileged:
        return Finding(
            "sudo",
            f"privilege escalation via '{effect.privileged[0]}' is disabled for this profile "
            "(set WSL_ALLOW_SUDO=true to permit it)",
        )
    return None


def _interop(policy: Policy, seg: Segment, effect: Effect) -> Finding | None:
    if not isinstance(effect, Run):
        return None
    if effect.windows_path is not None:
        return Finding(
            "windows.interop",
            f"'{effect.program}' is looked up on a PATH that this command points at the Windows drive "
            f"({effect.windows_path}), so it may run a Windows program (set WSL_ALLOW_WINDOWS=true to permit it)",
        )
    if effect.windows is not None:
        return Finding(
            "windows.interop",
            f"'{effect.windows}' is a Windows executable: interop leaves the distro for the machine running "
            "this server (set WSL_ALLOW_WINDOWS=true to permit it)",
        )
    return None


def _operator_paths(policy: Policy, seg: Segment, effect: Effect) -> Finding | None:
    if isinstance(effect, Write | Read):
        return operator_finding(effect.path.text, seg.cwd, policy.home, isinstance(effect, Write))
    return None


def _mount_writes(policy: Policy, seg: Segment, effect: Effect) -> Finding | None:
    if not isinstance(effect, Write) or effect.how == "mount":
        return None  # a mount over /mnt/<drive> hides the drive; it writes nothing there
    path = resolve(effect.path.worst, seg.cwd, policy.home)
    return mnt_write_finding(
        policy, path, path if effect.path.text != "." else f"the working directory {path}"
    )


def _readonly(policy: Policy, seg: Segment, effect: Effect) -> Finding | None:
    if isinstance(effect, Write):
        target = effect.path
        if is_harmless_device(target.text):
            return None
        if effect.op:
            return Finding(
                "readonly.redirect",
                f"profile is read-only and the command redirects output into {target.shown} ({effect.op})",
            )
        where = "the working directory" if target.text == "." else target.shown
        return Finding("readonly.write", f"profile is read-only and '{seg.name}' writes {where}")
    if isinstance(effect, Change | Format):
        return Finding("readonly.write", f"profile is read-only and {effect.detail}")
    if isinstance(effect, Signal) and effect.signal != "0":  # signal 0 only asks whether a process exists
        return Finding("readonly.write", f"profile is read-only and '{seg.name}' signals processes")
    if isinstance(effect, Packages):
        return Finding("readonly.write", f"profile is read-only and '{seg.name}' removes packages")
    return None


_PLANTS = frozenset({"overwrite", "append", "edit", "raw", "link", "extract", "create", "mount"})


def _persistence(policy: Policy, seg: Segment, effect: Effect) -> Finding | None:
    if isinstance(effect, Change):
        return Finding("persistence", effect.detail) if effect.kind == "persist" else None
    if isinstance(effect, Write) and effect.how in _PLANTS:
        return persistence_finding(policy, resolve(effect.path.worst, seg.cwd, policy.home), effect.path.glob)
    return None


def _allow_list(policy: Policy, seg: Segment, effect: Effect) -> Finding | None:
    listing = ", ".join(policy.allow_commands or ())
    if isinstance(effect, Unknown):
        if effect.listed:
            return Finding(
                "allow_commands",
                f"the {effect.label} is only known at run time, and this profile only permits {listing}",
            )
        return None
    if not isinstance(effect, Run):
        return None
    if not seg.argv:
        if seg.resolved.payloads or seg.resolved.nested or not seg.redirect_writes:
            return None
        return Finding(
            "allow_commands", f"this profile only permits {listing}, and this segment runs no listed command"
        )
    if not seg.argv[0].static:
        return Finding(
            "allow_commands",
            f"the command name '{seg.argv[0].shown}' is only known at run time, and this profile only permits {listing}",
        )
    if effect.program not in (policy.allow_commands or ()) and not effect.implicit:
        return Finding(
            "allow_commands", f"'{effect.program}' is not in this profile's allowed commands ({listing})"
        )
    return None


def _unresolved(policy: Policy, seg: Segment, effect: Effect) -> Finding | None:
    """Fail closed: a program or a script the guard cannot name statically is one it cannot screen."""
    if isinstance(effect, Unknown):
        return Finding(f"unresolved.{effect.what}", effect.reason)
    if not isinstance(effect, Run) or seg.defining or not seg.argv:
        return None
    first = seg.argv[0]
    if not first.static:
        return Finding(
            "unresolved.command",
            f"the program this runs ('{first.shown}') is only known at run time (a variable, an array, "
            f"a parameter expansion or command output the guard cannot evaluate); {PLAINLY}",
        )
    if effect.glob:
        return Finding(
            "unresolved.command",
            f"the program name '{first.shown}' is a glob that bash expands at run time; {PLAINLY}",
        )
    return None


DENY = Rule("deny_pattern", (Run,), _deny_patterns, lambda p: bool(p.deny_patterns))
POLICY_RULES: tuple[Rule, ...] = (
    Rule("sudo", (Run,), _sudo, lambda p: not p.allow_sudo),
    Rule("windows.interop", (Run,), _interop, lambda p: not p.allow_windows),
    Rule("operator_path", (Write, Read), _operator_paths),
    Rule("windows.mnt_write", (Write,), _mount_writes, lambda p: not p.allow_windows),
    Rule("readonly", (Write, Change, Format, Signal, Packages), _readonly, lambda p: p.readonly),
    Rule("allow_commands", (Run, Unknown), _allow_list, lambda p: p.allow_commands is not None),
    Rule("persistence", (Write, Change), _persistence),
    Rule("unresolved", (Run, Unknown), _unresolved),
)
"""The policy's rule passes after the catastrophes, in the order their findings win."""
