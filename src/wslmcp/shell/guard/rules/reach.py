"""Destruction judged by its reach, whatever program does it.

A write destroys a tree when it deletes or moves away a path, or deletes, moves away or overwrites
(``truncate``, ``cp /dev/null``, ``dd``) every name a glob or a listing gives it: ``rm -rf ~``,
``find ~ -delete``, ``ls ~ | xargs rm -rf``, ``find ~ -type f -exec shred -u {} +``,
``for f in $(ls ~); do rm -rf "$f"; done``, ``truncate -s 0 ~/*``. What it reaches decides:

| reach | every name | names a test or a filter chose |
| --- | --- | --- |
| ``/``, a system tree | ``catastrophe.rm_root`` (never asked) | ``catastrophe.rm_root`` for ``/`` and the trees the system runs from |
| a home | ``catastrophe.rm_root`` (never asked) | ``mass_delete``: a question |
| a writable root (``WSL_ALLOWED_PATHS``) | ``mass_delete``: a question | allowed (``find ROOT -name '*.pyc' -delete``) |
| anything else (a project, a cache) | allowed | allowed |
"""

from __future__ import annotations

from dataclasses import dataclass

from wslmcp.shell.guard.effects import Effect, Segment, Write
from wslmcp.shell.guard.paths import critical_kind, normalize, resolve
from wslmcp.shell.guard.policy import Policy
from wslmcp.shell.guard.rules.base import Finding, Rule
from wslmcp.shell.guard.values import listed_in

FIND_PROTECTED = frozenset(
    {"bin", "boot", "dev", "etc", "lib", "lib32", "lib64", "libx32", "proc", "sbin", "sys", "usr"}
)
"""The trees the system runs from: deleting any names chosen from across one is a catastrophe."""
_REMOVES = frozenset({"delete", "move"})
_OVERWRITES = frozenset({"overwrite", "raw"})
_HOMES = ("the home directory", "a home directory")


@dataclass(frozen=True)
class Reach:
    """Where a destroying write reaches: ``path`` (resolved), every name under it or only some, and
    whether the names come from a listing (``ls ~ | xargs rm``) rather than the path itself."""

    path: str
    every: bool
    listed: bool
    verb: str


def reach(policy: Policy, seg: Segment, effect: Effect) -> Reach | None:
    """What a write destroys, when it destroys: a path deleted or moved away (``find ROOT EXPR -delete``
    chooses some names under it), or every name a glob or a listing gives a delete, a move or an overwrite."""
    if not isinstance(effect, Write) or effect.how not in _REMOVES | _OVERWRITES:
        return None
    verb = {"delete": "deletes", "move": "moves away"}.get(effect.how, "overwrites")
    listed = listed_in(effect.path.text)
    if listed is not None:
        root, every = listed
        return Reach(resolve(normalize(root), seg.cwd, policy.home), every, True, verb)
    if effect.how in _OVERWRITES and (not effect.path.glob or effect.op):
        return None  # one file replaced (a glob in a redirection names one file): an ordinary write
    path = resolve(effect.path.worst, seg.cwd, policy.home)
    return Reach(path, not effect.partial, False, verb)


def is_home(path: str, policy: Policy) -> bool:
    """``path`` is a home, every home (``/home``), or root's."""
    return critical_kind(path, policy.home) in _HOMES or path.rstrip("/") in ("/home", "/root")


def writable_root(path: str, policy: Policy) -> str | None:
    """The ``WSL_ALLOWED_PATHS`` entry ``path`` is (or names every entry of), else None."""
    bare = path.rstrip("/")
    for root in policy.allowed_paths or ():
        if bare in (root, f"{root}/*"):
            return root
    return None


def _mass_delete(policy: Policy, seg: Segment, effect: Effect) -> Finding | None:
    """Names chosen from across a whole home, or everything in a writable root: what a person may
    approve, but no agent should do unasked."""
    found = reach(policy, seg, effect)
    if found is None or (critical_kind(found.path, policy.home) and found.every):
        return None  # a catastrophe answers first
    what = f"'{seg.name}' {found.verb}" if seg.name else found.verb
    if not found.every and is_home(found.path, policy):
        source = "a listing of" if found.listed else "a search across"
        return Finding(
            "mass_delete",
            f"{what} names chosen from {source} the whole home ({found.path}), not one project in it",
        )
    root = writable_root(found.path, policy) if found.every else None
    if root is not None:
        return Finding("mass_delete", f"{what} everything in the writable root {root}")
    return None


MASS_DELETE = Rule("mass_delete", (Write,), _mass_delete)
