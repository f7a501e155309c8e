"""The registry: everything the guard knows about programs, in one place.

Per program: the options that take a value and how it parses them (``options``), its families,
read-only verbs, help, version and dry-run forms (``tables``), how it runs other programs or text
(``launch``: wrappers, shells, ``eval``; ``texts``: commands from its own options, configuration
and scripts; ``code``: what inline interpreter code does), what it writes (``writes``), what it
does to the machine (``system``), what it prints (``outputs``) and how it changes the shell's state
(``builtins``). No module outside this package compares a program's name with a literal: the flow
pass asks the registry what a program does and gets effects back; the rules judge the effects.
"""

from __future__ import annotations

from wslmcp.shell.guard.effects import Effect, Read
from wslmcp.shell.guard.registry.later import later_effects
from wslmcp.shell.guard.registry.options import parse_as
from wslmcp.shell.guard.registry.packages import package_effects
from wslmcp.shell.guard.registry.processes import signal_effects
from wslmcp.shell.guard.registry.system import system_effects
from wslmcp.shell.guard.registry.tables import is_a
from wslmcp.shell.guard.registry.writes import file_effects
from wslmcp.shell.guard.values import Arg


def effects_of(name: str, args: list[Arg], raw: str) -> list[Effect]:
    """What running ``name ARGS`` (typed as ``raw``) does: the paths it writes, the changes it makes
    to the machine, and the words that may name a file it opens (``Read``)."""
    found = file_effects(name, args)
    found.extend(system_effects(name, args, raw))
    found.extend(signal_effects(name, args))
    found.extend(package_effects(name, args))
    found.extend(later_effects(name, args, raw))
    written = {id(e.path) for e in found if hasattr(e, "path")}
    found.extend(Read(a) for a in path_words(name, args) if id(a) not in written)
    return found


def wrapper_effects(name: str, args: list[Arg], raw: str) -> list[Effect]:
    """What a wrapper does itself besides running its command: ``at`` and ``systemd-run --on-…``
    schedule it for later."""
    return later_effects(name, args, raw)


def path_words(name: str, args: list[Arg]) -> list[Arg]:
    """The words of ``name ARGS`` that may name a file: all but ``echo``'s text and the pattern of
    ``grep``, ``sed``, ``awk`` and the like."""
    if is_a(name, "text"):
        return []
    if is_a(name, "pattern_first"):
        p = parse_as(name, args)
        skip = p.operands[0] if p.operands and not p.has("-e", "-f", "--regexp", "--file") else None
        return [a for a in args if a is not skip]
    return list(args)
