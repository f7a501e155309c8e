"""What a shell tool call would change on the host, from the shell's own knowledge: the tool's
annotations (``tools.py``: a read-only tool changes nothing; a tool that is not destructive changes
only the server's own state; ``wsl_stop`` ends only what this server started) and, for a command, the
guard's flow pass (the effects it finds: paths written, signals, packages, mutations, and what it
cannot see, such as a script file a shell or an interpreter runs).

``changes_of(tool, arguments, policy) -> Changes``: the paths it writes (``None``: one only known at
run time) and everything else it changes, each said in a few words. A recording that replays a
session against this host runs a call only when ``Changes.within(root)``: it changes nothing, or
(``--allow-writes DIR``) it only writes inside ``root``.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from wslmcp.shell.guard.effects import Batch, Change, Format, Packages, Signal, Text, Unknown, Write
from wslmcp.shell.guard.engine import run_flow
from wslmcp.shell.guard.limits import Budget
from wslmcp.shell.guard.policy import Policy
from wslmcp.shell.guard.registry.tables import code_options, is_a
from wslmcp.shell.guard.values import known, shown
from wslmcp.shell.tools import TOOLS

_SPECS = {t.name: t for t in TOOLS}
_SYSTEM_BIN = ("/usr/", "/bin/", "/sbin/")


@dataclass(frozen=True)
class Changes:
    paths: tuple[str | None, ...] = ()
    other: tuple[str, ...] = ()

    @property
    def none(self) -> bool:
        return not self.paths and not self.other

    def within(self, root: str | None) -> bool:
        """It changes nothing, or (``root`` given) it only writes inside ``root``."""
        if self.none:
            return True
        if root is None or self.other:
            return False
        top = posixpath.normpath(root)
        return all(p is not None and (p == top or p.startswith(top.rstrip("/") + "/")) for p in self.paths)

    def said(self) -> str:
        """In a few words, for a recording's list of what it skipped."""
        parts = [
            f"writes {p}" if p is not None else "writes a path only known at run time" for p in self.paths
        ]
        return "; ".join([*parts, *self.other])


def changes_of(tool: str, arguments: Mapping[str, Any], policy: Policy) -> Changes:
    """What calling ``tool`` with ``arguments`` would change on the host (see the module)."""
    spec = _SPECS.get(tool)
    if spec is None:
        return Changes(other=(f"{tool} is not a tool of this server",))
    hints = spec.hints
    if hints.read_only or not hints.destructive:
        return Changes()  # looks, or changes only the server's own state (sessions)
    command = arguments.get("command")
    if isinstance(command, str):
        cwd = arguments.get("cwd")
        return command_changes(policy, command, cwd if isinstance(cwd, str) else None)
    if not hints.open_world and not _path_arguments(spec.input_schema):
        return Changes()  # acts on what this server started (wsl_stop), nothing else
    if hints.open_world:  # input handed to a running program: what it does is only known then
        return Changes(other=(f"{tool} hands input to a running program",))
    if arguments.get("dryRun") is True:
        return Changes()
    paths = tuple(_absolute(arguments.get(name)) for name in _path_arguments(spec.input_schema))
    return Changes(paths=paths)


def _path_arguments(schema: Mapping[str, Any]) -> tuple[str, ...]:
    return tuple(name for name in schema.get("properties", {}) if name == "path" or name.endswith("Path"))


def _absolute(value: object) -> str | None:
    return posixpath.normpath(value) if isinstance(value, str) and value.startswith("/") else None


def command_changes(policy: Policy, command: str, cwd: str | None) -> Changes:
    """What the guard's flow pass finds ``command`` changes. A mutation is the change of the paths
    written beside it (``make -C DIR``, ``git commit``); one with no known path, a signal, packages,
    a format, what the guard cannot read and a program run from a file (a script run by path, or
    by a shell or an interpreter) are changes of their own."""
    flow, limit = run_flow(policy, command, cwd, Budget())
    if limit is not None:
        return Changes(other=("the guard cannot read all of it",))
    paths: list[str | None] = []
    other: list[str] = []
    for batch in flow.batches:
        written = [_written(e, batch.seg.cwd) for e in batch.effects if isinstance(e, Write)]
        paths += written
        other += [said for e in batch.effects if (said := _other(e, bool(written))) is not None]
        if _runs_a_file(batch):
            other.append(f"runs a program from a file ({shown(batch.seg.raw)[:60]})")
    return Changes(tuple(dict.fromkeys(paths)), tuple(dict.fromkeys(other)))


def _written(effect: Write, cwd: str | None) -> str | None:
    """The absolute path ``effect`` writes (a relative one in the known working directory), or None."""
    if not effect.path.static:
        return None
    path = effect.path.text
    if not path.startswith("/") and cwd is not None and known(cwd) and cwd.startswith("/"):
        path = posixpath.join(cwd, path)
    return _absolute(path)


def _other(effect: object, wrote: bool) -> str | None:
    if isinstance(effect, Change):
        return None if effect.kind == "mutation" and wrote else effect.detail
    if isinstance(effect, Signal):
        return f"sends {effect.signal} to processes"
    if isinstance(effect, Packages):
        return f"removes packages {', '.join(effect.names)}"
    if isinstance(effect, Format):
        return effect.detail
    if isinstance(effect, Unknown):
        return f"runs what the guard cannot read ({effect.reason})"
    return None


def _runs_a_file(batch: Batch) -> bool:
    """A program run by a path outside the system's directories (``./build.sh``), or a shell or an
    interpreter given a file (``bash x.sh``, ``python3 x.py``, ``sh < x.sh``), not inline code the
    guard reads (``bash -c``, ``python3 -c``)."""
    argv = [a.text for a in batch.seg.resolved.argv]
    if not argv:
        return False
    if "/" in argv[0] and not argv[0].startswith(_SYSTEM_BIN):
        return True
    name = posixpath.basename(argv[0])
    shell = is_a(name, "shell")
    if not (shell or is_a(name, "interpreter")):
        return False
    inline = {f"-{letter}" for letter in ("c" if shell else code_options(name) or "")}
    if any(isinstance(e, Text) for e in batch.effects) or inline & set(argv[1:]):
        return False
    return any(not w.startswith("-") for w in argv[1:]) or any(
        op.startswith("<") for op, _ in batch.seg.redirects
    )
