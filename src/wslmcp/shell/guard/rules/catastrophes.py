"""Catastrophes: effects no policy permits (``catastrophe.*``). Each rule reads effects only.

Deleting or moving away the root, a system directory or a home; destroying a file the host cannot
boot or authenticate without; raw writes onto a block device or a disk repartitioned; the machine
powered off; a fork bomb; ownership or permissions rewritten recursively over a system tree; a
filesystem made on a device; every scheduled job removed; the firewall flushed; WSL stopped.
"""

from __future__ import annotations

import re

from wslmcp.shell.guard.effects import Change, Effect, Format, Segment, Write
from wslmcp.shell.guard.paths import critical_kind, is_block_device, is_critical_file, resolve
from wslmcp.shell.guard.policy import Policy
from wslmcp.shell.guard.rules.base import DANGEROUS, Finding, Rule
from wslmcp.shell.guard.values import Arg

FIND_PROTECTED = frozenset(
    {"bin", "boot", "dev", "etc", "lib", "lib32", "lib64", "libx32", "proc", "sbin", "sys", "usr"}
)
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
    if not isinstance(effect, Write) or effect.how not in _REMOVES:
        return None
    path = _path(seg, effect.path, policy)
    if is_critical_file(path):
        verb = "moves away" if effect.how == "move" else "deletes"
        return _dangerous(
            "catastrophe.critical_file", f"{verb} {path}, a file the host cannot boot or authenticate without"
        )
    return None


def _removes_system_tree(policy: Policy, seg: Segment, effect: Effect) -> Finding | None:
    if not isinstance(effect, Write) or effect.how not in _REMOVES:
        return None
    path = _path(seg, effect.path, policy)
    verb = "moves away" if effect.how == "move" else "deletes"
    if effect.partial:
        if path in ("/", "/*") or path.strip("/") in FIND_PROTECTED:
            return _dangerous("catastrophe.rm_root", f"{seg.name} deletes files found from {path}")
        return None
    kind = critical_kind(path, policy.home)
    if kind:
        return _dangerous(
            "catastrophe.rm_root", f"{seg.name} {verb} {kind} ({path}){_empty_note(effect.path)}"
        )
    if seg.cwd is None and re.fullmatch(r"(\.\./)+\.\./?|(\.\./){2,}", path):
        return _dangerous(
            "catastrophe.rm_root",
            f"{seg.name} {verb} {path}, a parent of the working directory that may be / (the working directory is unknown)",
        )
    return None


def _writes_block_device(policy: Policy, seg: Segment, effect: Effect) -> Finding | None:
    if isinstance(effect, Write):
        path = _path(seg, effect.path, policy)
        if is_block_device(path):
            return _dangerous("catastrophe.block_device", f"writes raw bytes onto the block device {path}")
    if isinstance(effect, Change) and effect.kind == "disk":
        return _dangerous("catastrophe.block_device", effect.detail)
    return None


def _sysrq(policy: Policy, seg: Segment, effect: Effect) -> Finding | None:
    if isinstance(effect, Write) and _path(seg, effect.path, policy) == "/proc/sysrq-trigger":
        return _dangerous(
            "catastrophe.power", "the kernel's sysrq trigger crashes, reboots or powers off the host"
        )
    return None


def _overwrites_critical_file(policy: Policy, seg: Segment, effect: Effect) -> Finding | None:
    if not isinstance(effect, Write) or effect.how not in _OVERWRITES:
        return None
    path = _path(seg, effect.path, policy)
    if is_critical_file(path):
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


def _formats(policy: Policy, seg: Segment, effect: Effect) -> Finding | None:
    if isinstance(effect, Format):
        return _dangerous("catastrophe.mkfs", effect.detail)
    return None


CATASTROPHES: tuple[Rule, ...] = (
    _change("catastrophe.rm_root"),
    Rule("catastrophe.critical_file", (Write,), _removes_critical_file),
    Rule("catastrophe.rm_root", (Write,), _removes_system_tree),
    Rule("catastrophe.block_device", (Write, Change), _writes_block_device),
    Rule("catastrophe.power", (Write,), _sysrq),
    Rule("catastrophe.critical_file", (Write,), _overwrites_critical_file),
    Rule("catastrophe.chmod_root", (Write,), _recursive_metadata),
    Rule("catastrophe.mkfs", (Format,), _formats),
    _change("catastrophe.power"),
    _change("catastrophe.fork_bomb"),
    _change("catastrophe.crontab_remove"),
    _change("catastrophe.firewall_flush"),
    _change("catastrophe.wsl_shutdown"),
)
"""The catastrophe rule passes, in the order their findings win."""
