"""What a command does, as data: the flow pass's output and the rule passes' input.

The flow pass (``flow.py``) turns a script into ``Batch``es, in the order bash would get to them.
A batch is one command as it will run (``Segment``: its text, the words bash passes, the wrappers
looked through, its working directory) and the effects it has:

- ``Run``: a program runs (the segment's resolved words);
- ``Write``: a path is written, and how (overwritten, appended, edited, deleted, moved away, its
  metadata changed, a link or a mount put there, raw bytes written, files extracted into it);
- ``Read``: a word that may name a file the program opens;
- ``Change``: a change without a path (a package installed, the machine powered off, a disk
  repartitioned, a firewall flushed...), of a ``kind`` the rules know;
- ``Signal``: a signal sent, to which processes;
- ``Packages``: packages removed;
- ``Text``: text handed to a shell or an interpreter (the flow pass screens it as a script);
- ``Unknown``: something the flow pass could not read (a program name or a script only known at
  run time): the guard fails closed on it;
- state for the commands after it: ``Var``, ``Alias``, ``Function``, ``Hash``, ``Enter`` (a
  directory entered), ``Link`` (a link or bind mount made), ``Copy`` (a program copied under a new
  name), ``Positional``.

The rule passes (``rules/``) judge effects only; they never look at program names.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from wslmcp.shell.guard.values import Arg, basename, shown

# --------------------------------------------------------------------- one command as it will run


@dataclass
class Payload:
    """Text run as a shell script, with the label used in refusals and its positional parameters."""

    label: str
    text: str
    positional: list[str] | None = None
    stdin_unknown: bool = False  # the script's stdin is data only known at run time
    same_shell: bool = False  # run by this shell (eval, trap), so it sees every variable


@dataclass
class Resolved:
    """A word list after wrappers are looked through: the program that finally runs (``argv``),
    the wrappers on the way, text they run as a script, argument lists run by another program."""

    argv: list[Arg]
    wrappers: list[str] = field(default_factory=list)
    payloads: list[Payload] = field(default_factory=list)
    nested: list[tuple[str, list[Arg]]] = field(default_factory=list)
    privileged: list[str] = field(default_factory=list)
    cwd: str | None = None
    writes: list[Arg] = field(default_factory=list)
    environment: list[tuple[str, str]] = field(default_factory=list)  # NAME=VALUE a wrapper sets
    steps: list[tuple[str, list[Arg]]] = field(default_factory=list)  # each wrapper with its arguments
    _named: tuple[str, str] = field(default=("", ""), repr=False, compare=False)  # (argv[0], its name)

    @property
    def binary(self) -> str:
        first = self.argv[0].text if self.argv else ""
        if first != self._named[0]:
            self._named = (first, basename(first) if first else "")
        return self._named[1]


@dataclass(eq=False)
class Segment:
    """One command as it will run: its text, its resolved words, what its redirections open."""

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
        """The resolved command as text (``reboot now`` for ``nohup env X=1 /sbin/reboot now``)."""
        if not self.argv:
            return self.raw
        return " ".join([self.name, *(shown(a.text) for a in self.args)])


# --------------------------------------------------------------------- effects

How = Literal[
    "overwrite",
    "append",
    "edit",
    "metadata",
    "delete",
    "remove_empty",
    "move",
    "raw",
    "link",
    "mount",
    "extract",
    "create",
]
"""How a path is written: its content replaced (``>``, ``cp``, ``curl -o``), appended to (``>>``,
``tee -a``), edited in place (``sed -i``, ``<>``), its metadata changed (``chmod``, ``chattr``,
``touch``), deleted (or, for ``rmdir``, removed when empty), moved away, raw bytes written over it (``dd of=``), a link or a mount put in
its place, files extracted into it (a directory), or created (``mkdir``, ``mktemp``)."""

ChangeKind = Literal[
    "mutation",
    "power",
    "disk",
    "format",
    "firewall_flush",
    "crontab_remove",
    "wsl_stop",
    "fork_bomb",
    "no_preserve_root",
    "windows_profile_delete",
    "persist",
]


@dataclass(frozen=True)
class Run:
    """The segment's program runs: ``program`` is its resolved name (empty for a bare redirection);
    ``privileged`` the wrappers and program that raise privileges; ``windows`` a Windows program
    on the way (by name or by its place on a Windows drive); ``windows_path`` a Windows directory
    on the ``PATH`` the program is looked up on; ``implicit`` a harmless builtin every allow-list
    permits; ``glob`` the program word is a glob bash expands at run time (``/bin/r?``)."""

    program: str
    privileged: tuple[str, ...] = ()
    windows: str | None = None
    windows_path: str | None = None
    implicit: bool = False
    glob: bool = False


@dataclass(frozen=True)
class Write:
    path: Arg
    how: How
    op: str = ""
    recursive: bool = False
    partial: bool = False  # only some files under ``path`` (find with a test)


@dataclass(frozen=True)
class Read:
    path: Arg


@dataclass(frozen=True)
class Change:
    kind: ChangeKind
    detail: str


@dataclass(frozen=True)
class Format:
    """A filesystem made on ``targets`` (a device, or a regular file holding an image)."""

    targets: tuple[Arg, ...]
    detail: str


@dataclass(frozen=True)
class Signal:
    """``signal`` sent to ``pids`` (``-1`` is every process), to every process matching a name
    pattern the program was given (``everything`` when it matches anything, ``init`` when it
    matches PID 1), or to every process of ``users``."""

    signal: str
    pids: tuple[str, ...] = ()
    users: tuple[str, ...] = ()
    everything: bool = False
    init: bool = False


@dataclass(frozen=True)
class Packages:
    """Packages removed (names or patterns); ``forced`` when essential ones are explicitly allowed."""

    names: tuple[str, ...]
    forced: bool = False
    essential: tuple[str, ...] = ()  # the essential packages the names may match


@dataclass(frozen=True)
class Text:
    """Text handed to a shell or an interpreter, known statically; the flow pass screens it."""

    label: str
    text: str


@dataclass(frozen=True)
class Unknown:
    """What the flow pass could not read: a program (``command``) or a script (``payload``) only
    known at run time. ``listed``: under an allow-list, that list's rule refuses it first."""

    what: Literal["command", "payload"]
    reason: str
    listed: bool = False
    label: str = ""


# state for the commands after it


@dataclass(frozen=True)
class Var:
    """A variable set (``value`` None: only its attributes change, e.g. ``export NAME``)."""

    name: str
    value: str | None
    exported: bool = False
    integer: bool = False  # ``declare -i``: what is assigned to it is evaluated as arithmetic
    refers: str | None = None  # ``declare -n``: the variable this name stands for


@dataclass(frozen=True)
class Unset:
    name: str


@dataclass(frozen=True)
class Alias:
    name: str
    text: str


@dataclass(frozen=True)
class Function:
    name: str


@dataclass(frozen=True)
class Hash:
    name: str
    path: str


@dataclass(frozen=True)
class Enter:
    """The working directory changes to ``path`` (None: to a directory only known at run time)."""

    path: str | None


@dataclass(frozen=True)
class Link:
    """A link or a bind mount at ``path`` reaching ``target``."""

    path: str
    target: str


@dataclass(frozen=True)
class Copy:
    """``path`` now holds a copy of (or a link to) ``source``; ``into``: ``path`` is the directory
    the copy lands in (one of several sources)."""

    path: str
    source: str
    into: bool = False


@dataclass(frozen=True)
class Positional:
    values: tuple[str, ...]


@dataclass(frozen=True)
class Setting:
    """A program's configuration set for its later runs in this command (``git config alias.p push``)."""

    program: str
    key: str
    value: str


Effect = (
    Run
    | Write
    | Read
    | Change
    | Format
    | Signal
    | Packages
    | Text
    | Unknown
    | Var
    | Unset
    | Alias
    | Function
    | Hash
    | Enter
    | Link
    | Copy
    | Positional
    | Setting
)


@dataclass
class Batch:
    """One segment and the effects the flow pass found for it at one point of the walk."""

    seg: Segment
    effects: list[Effect]
