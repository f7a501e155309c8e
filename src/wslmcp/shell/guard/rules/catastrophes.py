"""Catastrophes: effects no policy permits (``catastrophe.*``). Each rule reads effects only.

Deleting or moving away the root, a system directory or a home; destroying a file the host cannot
boot or authenticate without; raw writes onto a block device or a disk repartitioned; the machine
powered off; a fork bomb; ownership, permissions or attributes rewritten recursively over a system
tree; a mount over a system tree; a system program, library or loader file destroyed; a filesystem
made on a device; every scheduled job removed; the firewall flushed; WSL stopped; every process
(or PID 1) signalled; essential packages removed.
"""

from __future__ import annotations

import re

from wslmcp.shell.guard.effects import Change, Effect, Format, Packages, Segment, Signal, Write
from wslmcp.shell.guard.paths import (
    as_pattern,
    critical_kind,
    is_block_device,
    is_critical_file,
    is_harmless_device,
    mount_protected,
    power_file,
    resolve,
    system_file,
)
from wslmcp.shell.guard.policy import Policy
from wslmcp.shell.guard.rules.base import DANGEROUS, Finding, Rule
from wslmcp.shell.guard.rules.reach import FIND_PROTECTED, reach
from wslmcp.shell.guard.values import Arg

_OVERWRITES = frozenset({"overwrite", "raw", "link", "extract", "create"})
_REMOVES = frozenset({"delete", "move"})
_CHANGE_RULES = {
    "no_preserve_root": "catastrophe.rm_root",
    "windows_profile_delete": "catastrophe.rm_root",
    "power": "catastrophe.power",
    "disk": "catastrophe.block_device",
    "fork_bomb": "catastrophe.fork_bomb",
    "crontab_remove": "catastrophe.crontab_remove",
    "firewall_flush": "catastrophe.firewall_flush",
    "wsl_stop": "catastrophe.wsl_shutdown",
}


def _path(seg: Segment, arg: Arg, policy: Policy) -> str:
    return resolve(arg.worst, seg.cwd, policy.home)


def _empty_note(arg: Arg) -> str:
    return "" if arg.static else f" when the unknown part of '{arg.shown}' is empty or unset"


def _dangerous(rule: str, why: str) -> Finding:
    return Finding(rule, DANGEROUS + why)


def _change(rule: str) -> Rule:
    def check(policy: Policy, seg: Segment, effect: Effect) -> Finding | None:
        if isinstance(effect, Change) and _CHANGE_RULES.get(effect.kind) == rule:
            return _dangerous(rule, effect.detail)
        return None

    return Rule(rule, (Change,), check)


def _removes_critical_file(policy: Policy, seg: Segment, effect: Effect) -> Finding | None:
    if not isinstance(effect, Write) or effect.how not in _REMOVES or effect.path.glob:
        return None  # a glob of removals is judged by the tree it reaches
    path = _path(seg, effect.path, policy)
    if is_critical_file(as_pattern(path, effect.path.glob)):
        verb = "moves away" if effect.how == "move" else "deletes"
        return _dangerous(
            "catastrophe.critical_file", f"{verb} {path}, a file the host cannot boot or authenticate without"
        )
    return None


def _removes_system_tree(policy: Policy, seg: Segment, effect: Effect) -> Finding | None:
    """The root, a system tree or a home destroyed (``rules.reach``: whatever program does it, also
    through a glob or a listing); names chosen from across ``/`` or a tree the system runs from."""
    found = reach(policy, seg, effect)
    if found is None or not isinstance(effect, Write):
        return None
    path, verb = found.path, found.verb
    what = f"{seg.name} {verb}" if seg.name else verb
    if not found.every:
        if path in ("/", "/*") or path.strip("/") in FIND_PROTECTED:
            chosen = "listed" if found.listed else "found"
            return _dangerous("catastrophe.rm_root", f"{what} files {chosen} from {path}")
        return None
    kind = critical_kind(path, policy.home)
    if kind:
        each, note = ("every name listed from ", "") if found.listed else ("", _empty_note(effect.path))
        return _dangerous("catastrophe.rm_root", f"{what} {each}{kind} ({path}){note}")
    if seg.cwd is None and re.fullmatch(r"(\.\./)+\.\./?|(\.\./){2,}", path):
        return _dangerous(
            "catastrophe.rm_root",
            f"{what} {path}, a parent of the working directory that may be / (the working directory is unknown)",
        )
    return None


def _writes_block_device(policy: Policy, seg: Segment, effect: Effect) -> Finding | None:
    if isinstance(effect, Write) and effect.how != "mount":
        path = _path(seg, effect.path, policy)
        if is_block_device(path):
            return _dangerous("catastrophe.block_device", f"writes raw bytes onto the block device {path}")
    if isinstance(effect, Change) and effect.kind == "disk":
        return _dangerous("catastrophe.block_device", effect.detail)
    return None


def _power_files(policy: Policy, seg: Segment, effect: Effect) -> Finding | None:
    if isinstance(effect, Write) and power_file(
        as_pattern(path := _path(seg, effect.path, policy), effect.path.glob)
    ):
        return _dangerous(
            "catastrophe.power", f"writing {path} crashes, reboots, powers off or suspends the host"
        )
    return None


def _overwrites_critical_file(policy: Policy, seg: Segment, effect: Effect) -> Finding | None:
    if not isinstance(effect, Write) or effect.how not in _OVERWRITES:
        return None
    path = _path(seg, effect.path, policy)
    if is_critical_file(as_pattern(path, effect.path.glob)):
        return _dangerous(
            "catastrophe.critical_file",
            f"overwrites {path}, a file the host cannot boot or authenticate without",
        )
    if effect.how == "raw" and re.match(r"/(etc|boot|bin|sbin|usr|lib\w*)(/|$)", path):
        return _dangerous(
            "catastrophe.critical_file", f"{seg.name} writes raw bytes over the system path {path}"
        )
    return None


def _recursive_metadata(policy: Policy, seg: Segment, effect: Effect) -> Finding | None:
    if not isinstance(effect, Write) or effect.how != "metadata" or not effect.recursive:
        return None
    path = _path(seg, effect.path, policy)
    kind = critical_kind(path, policy.home, include_homes=False)
    if kind and kind != "a home directory":
        return _dangerous(
            "catastrophe.chmod_root",
            f"recursively rewrites ownership, permissions or attributes of {kind} ({path}){_empty_note(effect.path)}",
        )
    return None


def _mounts_over_system(policy: Policy, seg: Segment, effect: Effect) -> Finding | None:
    if not isinstance(effect, Write) or effect.how != "mount":
        return None
    path = _path(seg, effect.path, policy)
    kind = mount_protected(path, policy.home)
    if kind:
        return _dangerous(
            "catastrophe.mount",
            f"'{seg.name}' mounts over or unmounts {kind} ({path}), hiding what the system runs",
        )
    return None


_VERBS = {"delete": "deletes", "move": "moves away", "metadata": "changes the permissions of"}


def _destroys_system_file(policy: Policy, seg: Segment, effect: Effect) -> Finding | None:
    if not isinstance(effect, Write) or effect.how in ("remove_empty", "mount"):
        return None
    path = _path(seg, effect.path, policy)
    kind = system_file(as_pattern(path, effect.path.glob))
    if kind:
        return _dangerous(
            "catastrophe.system_file", f"'{seg.name}' {_VERBS.get(effect.how, 'writes')} {path}, {kind}"
        )
    return None


def _formats(policy: Policy, seg: Segment, effect: Effect) -> Finding | None:
    """A filesystem made on a device (or on what cannot be told from one); an image file is fine."""
    if not isinstance(effect, Format):
        return None
    for target in effect.targets or (None,):
        if target is None or not target.static:
            return _dangerous("catastrophe.mkfs", effect.detail)
        path = _path(seg, target, policy)
        if path.startswith("/dev/") and not is_harmless_device(path):
            return _dangerous("catastrophe.mkfs", f"{effect.detail} on the device {path}")
    return None


def _kills_everything(policy: Policy, seg: Segment, effect: Effect) -> Finding | None:
    """A signal to every process (``kill -1``, a pattern matching anything), to PID 1, or to every
    process of root or of this server's own user."""
    if not isinstance(effect, Signal) or effect.signal == "0":
        return None
    mine = ("root", "0", *((policy.user,) if policy.user else ()))
    if "-1" in effect.pids or effect.everything:
        return _dangerous(
            "catastrophe.kill_all",
            f"'{seg.name}' sends SIG{effect.signal} to every process, this server included",
        )
    if "1" in effect.pids or effect.init:
        return _dangerous(
            "catastrophe.kill_all", f"'{seg.name}' sends SIG{effect.signal} to PID 1, which ends the distro"
        )
    users = [u for u in effect.users if u in mine]
    if users:
        return _dangerous(
            "catastrophe.kill_all", f"'{seg.name}' sends SIG{effect.signal} to every process of {users[0]}"
        )
    return None


def _removes_essential_packages(policy: Policy, seg: Segment, effect: Effect) -> Finding | None:
    if isinstance(effect, Packages) and (effect.essential or effect.forced):
        what = ", ".join(effect.essential) if effect.essential else "essential packages (explicitly allowed)"
        return _dangerous(
            "catastrophe.essential_package",
            f"'{seg.name}' removes {what}, without which the system does not run",
        )
    return None


CATASTROPHES: tuple[Rule, ...] = (
    _change("catastrophe.rm_root"),
    Rule("catastrophe.critical_file", (Write,), _removes_critical_file),
    Rule("catastrophe.rm_root", (Write,), _removes_system_tree),
    Rule("catastrophe.block_device", (Write, Change), _writes_block_device),
    Rule("catastrophe.power", (Write,), _power_files),
    Rule("catastrophe.critical_file", (Write,), _overwrites_critical_file),
    Rule("catastrophe.chmod_root", (Write,), _recursive_metadata),
    Rule("catastrophe.mount", (Write,), _mounts_over_system),
    Rule("catastrophe.system_file", (Write,), _destroys_system_file),
    Rule("catastrophe.mkfs", (Format,), _formats),
    _change("catastrophe.power"),
    _change("catastrophe.fork_bomb"),
    _change("catastrophe.crontab_remove"),
    _change("catastrophe.firewall_flush"),
    _change("catastrophe.wsl_shutdown"),
    Rule("catastrophe.kill_all", (Signal,), _kills_everything),
    Rule("catastrophe.essential_package", (Packages,), _removes_essential_packages),
)
"""The catastrophe rule passes, in the order their findings win."""
