"""The rule layers, applied to one resolved command (a "segment") at a time.

Order: deny patterns, catastrophes (always on), sudo, Windows interop, operator paths (always on),
writes under ``/mnt/<drive>/``, read-only, the allowed-commands list. The first refusal wins.
Every refusal names its rule with a stable dotted identifier (see docs/guard.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from wslmcp.shell.guard import Decision, Policy
from wslmcp.shell.guard.effects import Effects, effects
from wslmcp.shell.guard.expand import Arg, shown
from wslmcp.shell.guard.options import parse_as
from wslmcp.shell.guard.paths import (
    critical_kind,
    is_block_device,
    is_critical_file,
    is_harmless_device,
    mount_of,
    normalize,
    operator_label,
    resolve,
)
from wslmcp.shell.guard.vocabulary import (
    FIND_RUNNERS,
    POWER_METHODS,
    POWER_TARGETS,
    POWER_VERBS,
    READS,
    UNIT_STARTERS,
    WINDOWS_EXTENSIONS,
    WINDOWS_FEATURE_TOOLS,
    WINDOWS_REMOVERS,
    family,
    is_a,
    is_info_form,
    strip_windows_extension,
    words,
)
from wslmcp.shell.guard.wrappers import PRIVILEGE_NAMES, Resolved, basename

NOTHING_RUN = "nothing was run"
IMPLICITLY_ALLOWED = frozenset({"cd", "pwd", "true", "false", ":", "exit", "export", "unset", "test", "["})
FIND_PROTECTED = frozenset(
    {"bin", "boot", "dev", "etc", "lib", "lib32", "lib64", "libx32", "proc", "sbin", "sys", "usr"}
)
DELETERS = family("deleter")
FIND_GLOBAL_OPTIONS = words(
    "-depth -d -mount -xdev -P -L -H -maxdepth -mindepth -ignore_readdir_race -noleaf"
)


class Refused(Exception):
    def __init__(self, decision: Decision) -> None:
        super().__init__(decision.reason)
        self.decision = decision


@dataclass
class Segment:
    """One command as it will run: its text, its resolved words, and what it writes."""

    raw: str
    resolved: Resolved
    redirects: list[tuple[str, Arg]]
    cwd: str | None
    context: str
    stdin: str | None = None
    stdin_unknown: bool = False
    defining: bool = False
    search_path: str | None = None

    @property
    def redirect_writes(self) -> list[tuple[str, Arg]]:
        return [(op, a) for op, a in self.redirects if op != "<"]

    @property
    def redirect_reads(self) -> list[Arg]:
        return [a for op, a in self.redirects if op == "<"]

    @property
    def argv(self) -> list[Arg]:
        return self.resolved.argv

    @property
    def name(self) -> str:
        return self.resolved.binary

    @property
    def args(self) -> list[Arg]:
        return self.resolved.argv[1:]

    def normalized(self) -> str:
        if not self.argv:
            return self.raw
        return " ".join([self.name, *(shown(a.text) for a in self.args)])


def refuse(rule: str, segment: Segment | str | None, why: str, context: str = "") -> Refused:
    text = segment.raw if isinstance(segment, Segment) else segment
    if isinstance(segment, Segment):
        context = segment.context
    return Refused(
        Decision.reject(rule, shown(text) if text is not None else None, f"{why}{context}; {NOTHING_RUN}")
    )


def check_segment(policy: Policy, seg: Segment) -> Effects:
    """Apply every rule layer to ``seg``; raise ``Refused`` on the first that fires."""
    _deny_patterns(policy, seg)
    eff = effects(seg.name, seg.args) if seg.argv else Effects()
    _catastrophes(policy, seg, eff)
    if not policy.allow_sudo:
        _sudo(seg)
    if not policy.allow_windows:
        _interop(seg)
    _operator_paths(policy, seg, eff)
    if not policy.allow_windows:
        _mount_writes(policy, seg, eff)
    if policy.readonly:
        _readonly(seg, eff)
    if policy.allow_commands is not None:
        _allow_list(policy, seg)
    if not seg.defining:
        _unresolved(seg)
    return eff


# --------------------------------------------------------------------- deny patterns


def _deny_patterns(policy: Policy, seg: Segment) -> None:
    texts = {shown(seg.raw), seg.normalized()}
    for pattern in policy.deny_patterns:
        if any(pattern.search(t) for t in texts):
            raise refuse("deny_pattern", seg, f"blocked by the profile's deny pattern /{pattern.pattern}/")


# --------------------------------------------------------------------- what cannot be named

PLAINLY = (
    "write the program name plainly (rm, /usr/bin/rm), not built from variables, globs or command output"
)


def is_glob_name(arg: Arg) -> bool:
    """Does the program word hold an unquoted glob bash would expand (``/bin/r?``, ``/usr/*/rm``)?"""
    return arg.glob and arg.text not in ("[", "[[") and bool(re.search(r"[*?]|\[[^\]]+\]", arg.text))


def _unresolved(seg: Segment) -> None:
    """Fail closed: a program the guard cannot name statically is a program it cannot screen."""
    if not seg.argv:
        return
    first = seg.argv[0]
    if not first.static:
        raise refuse(
            "unresolved.command",
            seg,
            f"the program this runs ('{first.shown}') is only known at run time (a variable, an array, "
            f"a parameter expansion or command output the guard cannot evaluate); {PLAINLY}",
        )
    if is_glob_name(first):
        raise refuse(
            "unresolved.command",
            seg,
            f"the program name '{first.shown}' is a glob that bash expands at run time; {PLAINLY}",
        )


# --------------------------------------------------------------------- catastrophes


def _resolved_paths(seg: Segment, args: list[Arg], home: str | None) -> list[tuple[Arg, str]]:
    return [(a, resolve(a.worst, seg.cwd, home)) for a in args if a.worst]


def _empty_note(arg: Arg) -> str:
    return "" if arg.static else f" when the unknown part of '{arg.shown}' is empty or unset"


def _all_writes(seg: Segment, eff: Effects) -> list[tuple[str, Arg]]:
    writes = [(op, a) for op, a in seg.redirect_writes]
    writes.extend(("", a) for a in eff.writes)
    writes.extend(("", a) for a in seg.resolved.writes)
    return writes


class _Case:
    """What every catastrophe rule looks at: the segment, its effects, and its words."""

    def __init__(self, seg: Segment, eff: Effects, home: str | None) -> None:
        self.seg = seg
        self.eff = eff
        self.home = home
        self.name = seg.name
        self.texts = [a.text for a in seg.args]


def _no_preserve_root(c: _Case) -> str | None:
    if "--no-preserve-root" in c.texts:
        return "explicitly disables the root-deletion safeguard (--no-preserve-root)"
    return None


def _deleted_paths(c: _Case) -> list[tuple[Arg, str]]:
    if not (is_a(c.name, "deleter") or c.name == "mv"):
        return []
    p = parse_as(c.name, c.seg.args)
    victims = p.operands if c.name != "mv" or p.values("-t", "--target-directory") else p.operands[:-1]
    return _resolved_paths(c.seg, victims, c.home)


def _deletes_critical_file(c: _Case) -> str | None:
    verb = "moves away" if c.name == "mv" else "deletes"
    for _, path in _deleted_paths(c):
        if is_critical_file(path):
            return f"{verb} {path}, a file the host cannot boot or authenticate without"
    return None


def _deletes_system_tree(c: _Case) -> str | None:
    verb = "moves away" if c.name == "mv" else "deletes"
    for arg, path in _deleted_paths(c):
        kind = critical_kind(path, c.home)
        if kind:
            return f"{c.name} {verb} {kind} ({path}){_empty_note(arg)}"
        if c.seg.cwd is None and re.fullmatch(r"(\.\./)+\.\./?|(\.\./){2,}", path):
            return f"{c.name} {verb} {path}, a parent of the working directory that may be / (the working directory is unknown)"
    return None


def _written_paths(c: _Case) -> list[tuple[str, str]]:
    return [(op, resolve(target.worst, c.seg.cwd, c.home)) for op, target in _all_writes(c.seg, c.eff)]


def _writes_block_device(c: _Case) -> str | None:
    for _, path in _written_paths(c):
        if is_block_device(path):
            return f"writes raw bytes onto the block device {path}"
    if is_a(c.name, "disk") and c.eff.mutation:
        return c.eff.mutation
    return None


def _sysrq(c: _Case) -> str | None:
    if any(path == "/proc/sysrq-trigger" for _, path in _written_paths(c)):
        return "the kernel's sysrq trigger crashes, reboots or powers off the host"
    return None


def _overwrites_critical_file(c: _Case) -> str | None:
    if is_a(c.name, "deleter") or is_a(c.name, "overwrites_ok"):
        return None
    if c.name == "tee" and any(t in ("-a", "--append") for t in c.texts):
        return None
    for op, path in _written_paths(c):
        if is_critical_file(path) and op in (">", ">|", "&>", ""):
            return f"overwrites {path}, a file the host cannot boot or authenticate without"
    return None


def _dd_over_system(c: _Case) -> str | None:
    if c.name != "dd":
        return None
    for _, path in _written_paths(c):
        if re.match(r"/(etc|boot|bin|sbin|usr|lib\w*)(/|$)", path):
            return f"dd writes raw bytes over the system path {path}"
    return None


def _rsync_delete(c: _Case) -> str | None:
    if c.name != "rsync" or not any(t.startswith("--delete") for t in c.texts):
        return None
    p = parse_as("rsync", c.seg.args)
    if len(p.operands) > 1:
        dest = resolve(p.operands[-1].worst, c.seg.cwd, c.home)
        kind = critical_kind(dest, c.home)
        if kind:
            return f"rsync --delete empties {kind} ({dest})"
    return None


def _find_delete(c: _Case) -> str | None:
    if c.name != "find":
        return None
    texts = c.texts
    deleting = "-delete" in texts or any(
        t in FIND_RUNNERS and k + 1 < len(texts) and basename(texts[k + 1]) in DELETERS
        for k, t in enumerate(texts)
    )
    if not deleting:
        return None
    # With no test before the action, find deletes everything under its roots.
    action = next(k for k, t in enumerate(texts) if t == "-delete" or t in FIND_RUNNERS)
    selective = any(t.startswith("-") and t not in FIND_GLOBAL_OPTIONS for t in texts[:action])
    for a in c.seg.args:
        if a.text.startswith(("-", "(", "!")):
            break
        root = resolve(a.worst, c.seg.cwd, c.home)
        if root in ("/", "/*") or root.strip("/") in FIND_PROTECTED:
            return f"find deletes files found from {root}"
        kind = None if selective else critical_kind(root, c.home)
        if kind:
            return f"find deletes everything under {kind} ({root})"
    return None


def _recursive_chmod(c: _Case) -> str | None:
    if not is_a(c.name, "ownership"):
        return None
    texts = c.texts
    if not any(t == "--recursive" or re.fullmatch(r"-[A-Za-z]*R[A-Za-z]*", t) for t in texts):
        return None
    for arg, path in _resolved_paths(c.seg, [a for a in c.seg.args if not a.text.startswith("-")], c.home):
        kind = critical_kind(path, c.home, include_homes=False)
        if kind and kind != "a home directory":
            return f"recursively rewrites ownership or permissions of {kind} ({path}){_empty_note(arg)}"
    return None


def _formats(c: _Case) -> str | None:
    if is_a(c.name, "formatter") and not is_info_form(c.name, c.texts):
        return "formats a filesystem"
    return None


def _powers_off(c: _Case) -> str | None:
    win = strip_windows_extension(c.name)
    texts = c.texts
    if is_a(c.name.lower(), "power_cmdlet"):
        return "powers off or reboots the machine, ending this session"
    if is_a(win, "power"):
        if is_info_form(win, texts) or (win == "shutdown" and texts and texts[0] in ("-c", "/a", "/?")):
            return None
        return "powers off or reboots the machine, ending this session"
    if is_a(c.name, "runlevel") and any(t in ("0", "6") for t in texts):
        return "changes the runlevel to halt or reboot"
    if is_a(c.name, "service"):
        p = parse_as(c.name, c.seg.args)
        words = [a.text for a in p.operands]
        verb = words[0] if words else ""
        if verb in READS[c.name] or is_info_form(c.name, texts):
            return None
        units = {w if "." in w else w + ".target" for w in words[1:]}
        if verb in POWER_VERBS or (verb in UNIT_STARTERS and units & POWER_TARGETS):
            return f"'{c.name} {verb}' powers off, restarts or degrades the machine this server runs in"
    if c.name in ("dbus-send", "busctl", "gdbus", "qdbus") and any(POWER_METHODS.search(t) for t in texts):
        return f"'{c.name}' asks logind or systemd to power off, reboot or suspend the machine"
    return None


def _crontab_remove(c: _Case) -> str | None:
    if c.name == "crontab" and any(re.fullmatch(r"-[A-Za-z]*r[A-Za-z]*", t) for t in c.texts):
        return "crontab -r removes every scheduled job of the user"
    return None


def _firewall_flush(c: _Case) -> str | None:
    texts = c.texts
    flushing = (
        c.name in ("iptables", "ip6tables")
        and any(t == "--flush" or re.fullmatch(r"-[A-Za-z]*F[A-Za-z]*", t) for t in texts)
    ) or (c.name == "nft" and texts[:1] == ["flush"])
    return "flushes the firewall rules and can lock this session out" if flushing else None


CATASTROPHES: tuple[tuple[str, Callable[[_Case], str | None]], ...] = (
    ("catastrophe.rm_root", _no_preserve_root),
    ("catastrophe.critical_file", _deletes_critical_file),
    ("catastrophe.rm_root", _deletes_system_tree),
    ("catastrophe.block_device", _writes_block_device),
    ("catastrophe.power", _sysrq),
    ("catastrophe.critical_file", _overwrites_critical_file),
    ("catastrophe.critical_file", _dd_over_system),
    ("catastrophe.rm_root", _rsync_delete),
    ("catastrophe.rm_root", _find_delete),
    ("catastrophe.chmod_root", _recursive_chmod),
    ("catastrophe.mkfs", _formats),
    ("catastrophe.power", _powers_off),
    ("catastrophe.crontab_remove", _crontab_remove),
    ("catastrophe.firewall_flush", _firewall_flush),
)
"""Each catastrophe: its stable rule id and a check returning why it fires (None when it does not)."""


def _catastrophes(policy: Policy, seg: Segment, eff: Effects) -> None:
    case = _Case(seg, eff, policy.home)
    for rule, check in CATASTROPHES:
        why = check(case)
        if why:
            raise refuse(rule, seg, f"blocked as dangerous: {why}")
    _wsl_catastrophes(seg, strip_windows_extension(seg.name), case.texts)
    if policy.allow_windows:
        _powershell_catastrophes(seg, strip_windows_extension(seg.name))


def _wsl_catastrophes(seg: Segment, win: str, texts: list[str]) -> None:
    lowered = [t.lower() for t in texts]
    if win == "wsl":
        skip = False
        for t in lowered:
            if skip:
                skip = False
                continue
            if t in ("-e", "--exec", "--") or not t.startswith("-"):
                break
            if t in ("--shutdown", "--terminate", "-t", "--unregister", "--uninstall"):
                raise refuse(
                    "catastrophe.wsl_shutdown",
                    seg,
                    f"blocked as dangerous: 'wsl {t}' stops or removes the distro this server runs in",
                )
            skip = t in ("-d", "--distribution", "-u", "--user", "--cd", "--distribution-id")
    if win == "wslconfig" and any(t in ("/t", "/u", "/terminate", "/unregister") for t in lowered):
        raise refuse(
            "catastrophe.wsl_shutdown",
            seg,
            "blocked as dangerous: wslconfig /t or /u terminates or unregisters the distro this server runs in",
        )
    if win == "taskkill" and any(re.search(r"vmmem|wsl|vmcompute", t) for t in lowered):
        raise refuse(
            "catastrophe.wsl_shutdown",
            seg,
            "blocked as dangerous: taskkill of the WSL processes stops the distro this server runs in",
        )
    if win in ("sc", "net", "stop-service", "restart-service") and any(
        re.search(r"lxssmanager|wslservice|vmcompute", t) for t in lowered
    ):
        raise refuse(
            "catastrophe.wsl_shutdown",
            seg,
            "blocked as dangerous: stopping the WSL service stops the distro this server runs in",
        )


_WSL_PROCESSES = re.compile(r"vmmem|vmwp|wslservice|wslhost|\bwsl|vmcompute|lxss", re.IGNORECASE)
_WSL_FEATURES = re.compile(r"subsystem-linux|virtualmachineplatform|hyper-?v|hypervisor", re.IGNORECASE)
_PROFILE = re.compile(
    r"""(?:^|[\s'"=])(?:[a-z]:[\\/]+(?:users(?:[\\/]+[^\\/\s'"]+)?|windows)?|\$env:(?:userprofile|homedrive|systemroot|windir)|"""
    r"""%(?:userprofile|systemroot|windir)%|\$home|~)[\\/]*(?=$|[\s'"])""",
    re.IGNORECASE,
)
_RECURSE = re.compile(r"(?:^|\s)(?:-r(?:e(?:c(?:u(?:r(?:s(?:e)?)?)?)?)?)?|/s)(?=\s|$)", re.IGNORECASE)


def _powershell_catastrophes(seg: Segment, win: str) -> None:
    """Windows-side disasters, reachable once Windows is open: stopping WSL or its VM, removing the
    WSL feature, formatting or wiping a disk, recursively deleting a user profile or the system."""
    raw = seg.raw
    args = " ".join(a.text for a in seg.args)
    if (
        win in ("stop-process", "spps") or (win == "kill" and re.search(r"-(process)?name", args, re.I))
    ) and (_WSL_PROCESSES.search(args)):
        raise refuse(
            "catastrophe.wsl_shutdown",
            seg,
            "blocked as dangerous: stopping the WSL processes stops the distro this server runs in",
        )
    if (
        win in WINDOWS_FEATURE_TOOLS
        and _WSL_FEATURES.search(raw)
        and not re.search(r"\b(get-|/get-|enable)", raw, re.I)
    ):
        raise refuse(
            "catastrophe.wsl_shutdown",
            seg,
            "blocked as dangerous: removing the WSL or virtual machine feature removes the distro this server runs in",
        )
    if win == "bcdedit" and re.search(r"hypervisorlaunchtype\s+off", args, re.I):
        raise refuse(
            "catastrophe.wsl_shutdown",
            seg,
            "blocked as dangerous: turning the hypervisor off stops WSL 2 on the next boot",
        )
    if win in ("format-volume", "format") and seg.args:
        raise refuse("catastrophe.mkfs", seg, "blocked as dangerous: formats a Windows volume")
    if win in ("clear-disk", "initialize-disk", "remove-partition", "diskpart", "set-disk"):
        raise refuse(
            "catastrophe.block_device",
            seg,
            f"blocked as dangerous: '{seg.name}' wipes or repartitions a disk",
        )
    if win in WINDOWS_REMOVERS and _RECURSE.search(" " + raw) and _PROFILE.search(raw.split(None, 1)[-1]):
        raise refuse(
            "catastrophe.rm_root",
            seg,
            "blocked as dangerous: recursively deletes a Windows user profile, the users folder or the system",
        )


# --------------------------------------------------------------------- sudo


def _sudo(seg: Segment) -> None:
    names = [*seg.resolved.privileged]
    if seg.argv and strip_windows_extension(seg.name) in PRIVILEGE_NAMES:
        names.append(seg.name)
    if names:
        raise refuse(
            "sudo",
            seg,
            f"privilege escalation via '{names[0]}' is disabled for this profile (set WSL_ALLOW_SUDO=true to permit it)",
        )


# --------------------------------------------------------------------- Windows


def is_windows_executable(text: str, cwd: str | None) -> bool:
    name = basename(text).lower()
    if name.endswith(WINDOWS_EXTENSIONS) or is_a(name, "interop"):
        return True
    if "/" in text:
        path = resolve(text, cwd, None)
        if mount_of(path) is not None:
            return True
    return False


def _interop(seg: Segment) -> None:
    candidates = [*seg.resolved.wrappers]
    if seg.argv:
        candidates.append(seg.argv[0].text)
    if seg.argv and seg.search_path and "/" not in seg.argv[0].text and not is_a(seg.name, "builtin"):
        drives = [d for d in seg.search_path.split(":") if mount_of(normalize(d)) is not None]
        if drives:
            raise refuse(
                "windows.interop",
                seg,
                f"'{seg.name}' is looked up on a PATH that this command points at the Windows drive ({drives[0]}), "
                "so it may run a Windows program (set WSL_ALLOW_WINDOWS=true to permit it)",
            )
    for text in candidates:
        if is_windows_executable(text, seg.cwd):
            raise refuse(
                "windows.interop",
                seg,
                f"'{basename(text)}' is a Windows executable: interop leaves the distro for the machine running "
                "this server (set WSL_ALLOW_WINDOWS=true to permit it)",
            )


def _mount_writes(policy: Policy, seg: Segment, eff: Effects) -> None:
    for _, target in _all_writes(seg, eff):
        path = resolve(target.worst, seg.cwd, policy.home)
        drive = mount_of(path)
        if drive is not None:
            shown_target = path if target.text != "." else f"the working directory {path}"
            raise refuse(
                "windows.mnt_write",
                seg,
                f"writing to {shown_target} lands on the Windows filesystem of the machine running this server "
                f"(set WSL_ALLOW_WINDOWS=true to permit writes under /mnt/{drive}/; reads and copies out of it are allowed)",
            )


# --------------------------------------------------------------------- operator paths


def _operator_candidates(seg: Segment, eff: Effects) -> list[tuple[Arg, bool]]:
    """(argument, written) pairs that may name a file."""
    out: list[tuple[Arg, bool]] = []
    written = {id(a) for _, a in _all_writes(seg, eff)}
    args = seg.args
    if is_a(seg.name, "text"):
        args = []
    elif is_a(seg.name, "pattern_first"):
        p = parse_as(seg.name, args)
        skip = p.operands[0] if p.operands and not p.has("-e", "-f", "--regexp", "--file") else None
        args = [a for a in args if a is not skip]
    out.extend((a, id(a) in written) for a in args)
    out.extend((a, True) for _, a in seg.redirect_writes)
    out.extend((a, False) for a in seg.redirect_reads)
    out.extend((a, True) for a in seg.resolved.writes)
    out.extend((a, True) for a in eff.writes if id(a) not in {id(x) for x, _ in out})
    return out


def operator_hit(text: str, cwd: str | None, home: str | None) -> tuple[str, str] | None:
    if not text:
        return None
    value = text.split("=", 1)[1] if re.match(r"-{1,2}[\w-]+=", text) else text
    candidates = [normalize(value) if "/" in value else value]
    if "/" in value or value.startswith("~") or cwd is not None:
        candidates.append(resolve(value, cwd, home))
    for c in candidates:
        label = operator_label(c)
        if label:
            return label, c
    return None


def _operator_paths(policy: Policy, seg: Segment, eff: Effects) -> None:
    for arg, written in _operator_candidates(seg, eff):
        hit = operator_hit(arg.text, seg.cwd, policy.home)
        if hit is None:
            continue
        label, path = hit
        verb = "written to" if written else "read or used"
        where = " (reached through the Windows drive mount)" if mount_of(path) else ""
        raise refuse(
            "operator_path",
            seg,
            f"{shown(path)} is operator {label} and cannot be {verb} by the agent, even with Windows access open{where}",
        )


# --------------------------------------------------------------------- read-only


def _readonly(seg: Segment, eff: Effects) -> None:
    for op, target in seg.redirect_writes:
        if not is_harmless_device(target.text):
            raise refuse(
                "readonly.redirect",
                seg,
                f"profile is read-only and the command redirects output into {target.shown} ({op})",
            )
    for target in seg.resolved.writes:
        if not is_harmless_device(target.text):
            raise refuse("readonly.write", seg, f"profile is read-only and the command writes {target.shown}")
    written = [a for a in eff.writes if not is_harmless_device(a.text)]
    if written:
        target = written[0]
        where = "the working directory" if target.text == "." else target.shown
        raise refuse("readonly.write", seg, f"profile is read-only and '{seg.name}' writes {where}")
    if eff.mutation:
        raise refuse("readonly.write", seg, f"profile is read-only and {eff.mutation}")


# --------------------------------------------------------------------- allow-list


def _allow_list(policy: Policy, seg: Segment) -> None:
    allowed = policy.allow_commands or ()
    listing = ", ".join(allowed)
    if not seg.argv:
        if seg.resolved.payloads or seg.resolved.nested:
            return
        if seg.redirect_writes:
            raise refuse(
                "allow_commands",
                seg,
                f"this profile only permits {listing}, and this segment runs no listed command",
            )
        return
    name = seg.name
    if not seg.argv[0].static:
        raise refuse(
            "allow_commands",
            seg,
            f"the command name '{seg.argv[0].shown}' is only known at run time, and this profile only permits {listing}",
        )
    if name not in allowed and name not in IMPLICITLY_ALLOWED:
        raise refuse("allow_commands", seg, f"'{name}' is not in this profile's allowed commands ({listing})")
