"""What the flow pass knows while it walks, and what it has found so far.

State (variables live in ``expand.Env``): programs copied under a new name, links and bind mounts,
files written with known content, exported names, aliases and hashed names, functions, settings
programs keep for their later runs. The state effects a command has (``effects.py``) are applied
here; the batches found so far are kept here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from wslmcp.shell.guard.effects import (
    Alias,
    Batch,
    Change,
    Copy,
    Effect,
    Enter,
    Hash,
    Link,
    Positional,
    Segment,
    Setting,
    Unknown,
    Unset,
    Var,
    Write,
)
from wslmcp.shell.guard.expand import Env, Expander
from wslmcp.shell.guard.limits import Budget
from wslmcp.shell.guard.paths import normalize, resolve
from wslmcp.shell.guard.policy import Policy
from wslmcp.shell.guard.registry.builtins import Context, alias_of_hash, state_effects
from wslmcp.shell.guard.registry.outputs import copies_stdin_to_files, passes_file_through
from wslmcp.shell.guard.registry.tables import is_a
from wslmcp.shell.guard.syntax import Command
from wslmcp.shell.guard.values import Arg, basename

_KEYED_PATH = re.compile(r"((?:--?)?[A-Za-z][\w-]*=)?(.*)", re.DOTALL)


def deferred(effect: Effect) -> bool:
    """Effects judged after what a command runs now (scheduling a job, storing a command)."""
    return isinstance(effect, Change) and effect.kind == "persist"


@dataclass(frozen=True)
class Feed:
    """A command's standard input: its text when known, and whether unknown data flows in."""

    text: str | None
    unknown: bool


class Tracked:
    """The state of one walk and the batches it found."""

    def __init__(self, policy: Policy, budget: Budget) -> None:
        self.policy = policy
        self.budget = budget
        self.expander = Expander(budget)
        self.batches: list[Batch] = []
        self.copies: dict[str, str] = {}  # a path -> the program it is a copy of
        self.links: dict[str, str] = {}  # a link or bind mount -> the path it reaches
        self.files: dict[str, str | None] = {}  # a path written here -> its content (None: unknown)
        self.exported: set[str] = set()
        self.aliases: dict[str, str] = {}
        self.functions: dict[str, Command] = {}
        self.seen: list[str] = []
        self.calling: set[str] = set()
        self.defining = 0
        self.settings: dict[str, dict[str, str]] = {}  # a program -> its configuration set here

    def emit(self, seg: Segment, effects: list[Effect]) -> None:
        self.batches.append(Batch(seg, effects))

    def emit_deferred(self, seg: Segment, effects: list[Effect]) -> None:
        later = [e for e in effects if deferred(e)]
        if later:
            self.emit(seg, later)

    def unknown(self, seg: Segment, what: str, reason: str, label: str = "") -> None:
        self.emit(seg, [Unknown("payload" if what == "payload" else "command", reason, label=label)])

    def written_text(self, arg: Arg, env: Env) -> str | bool | None:
        """The text an earlier command of this script wrote to ``arg``: a string, None when it
        wrote unknown content, False when nothing here wrote it."""
        if not arg.static:
            return False
        if arg.text in self.expander.process_files:
            return self.expander.process_files[arg.text]
        path = resolve(arg.text, env.cwd, self.policy.home)
        if path not in self.files:
            return False
        return self.files[path]

    def remember_writes(self, seg: Segment, effects: list[Effect], env: Env, printed: str | None) -> None:
        """Files this command writes, with their content when it is known (``echo … > f``); a file
        a program copies to its output keeps what it was a copy of (a Windows executable stays one)."""
        source = passes_file_through(seg.name, [a.text for a in seg.args]) if seg.argv else None
        if source is not None:
            origin = resolve(source, env.cwd, self.policy.home)
            for op, target in seg.redirect_writes:
                if op in (">", ">|") and target.static:
                    self.copies[resolve(target.text, env.cwd, self.policy.home)] = self.copies.get(
                        origin, origin
                    )
        targets = [(op, a) for op, a in seg.redirect_writes]
        targets += [
            ("", e.path) for e in effects if isinstance(e, Write) and not e.op and e.how != "metadata"
        ]
        for op, target in targets:
            if not target.static or target.text == ".":
                continue
            path = resolve(target.text, env.cwd, self.policy.home)
            content: str | None = None
            if op in (">", ">|", ">>") and printed is not None:
                before = self.files.get(path, "") if op == ">>" else ""
                content = None if before is None else before + printed
            elif copies_stdin_to_files(seg.name) and seg.stdin is not None:
                content = seg.stdin
            self.files[path] = content

    def after(self, seg: Segment, env: Env, ifs: str | None) -> None:
        """What a command changes for the commands after it (``ifs``: the IFS the command sees,
        which splits what ``read`` reads)."""
        shell_name = env.positional[0] if env.positional else "bash"
        context = Context(seg.stdin, ifs, shell_name)
        effects = state_effects(seg.name, seg.args, context, wrapped=bool(seg.resolved.wrappers))
        if effects:
            self.emit(seg, effects)
        for effect in effects:
            self.apply(effect, env)

    def apply(self, effect: Effect, env: Env) -> None:
        if isinstance(effect, Enter):
            self.enter(effect.path, env)
        elif isinstance(effect, Var):
            if effect.exported:
                self.exported.add(effect.name)
            if effect.integer:
                env.integers.add(effect.name)
            if effect.refers:
                env.namerefs[effect.name] = effect.refers
            if effect.value is not None:
                env.vars[effect.name] = effect.value
        elif isinstance(effect, Unset):
            env.vars.pop(effect.name, None)
        elif isinstance(effect, Alias):
            self.aliases[effect.name] = effect.text
        elif isinstance(effect, Hash):
            self.aliases[effect.name] = alias_of_hash(effect.path)
        elif isinstance(effect, Positional):
            env.positional = list(effect.values)
        elif isinstance(effect, Link):
            origin, point = (resolve(p, env.cwd, self.policy.home) for p in (effect.target, effect.path))
            self.links[point.rstrip("/") or "/"] = self.links.get(origin, origin)
        elif isinstance(effect, Copy):
            self.copy(effect, env)
        elif isinstance(effect, Setting):
            self.settings.setdefault(effect.program, {})[effect.key] = effect.value

    def enter(self, path: str | None, env: Env) -> None:
        if path is None:
            env.cwd = None
        elif path == "~":
            env.cwd = env.home or "~"
        else:
            target = resolve(path, env.cwd, self.policy.home)
            env.cwd = target.rstrip("/") or "/" if target.startswith(("/", "~")) else None

    def copy(self, effect: Copy, env: Env) -> None:
        dest = resolve(effect.path, env.cwd, self.policy.home)
        source = resolve(effect.source, env.cwd, self.policy.home)
        source = self.copies.get(source, source)
        if effect.into:
            self.copies[normalize(dest + "/" + basename(effect.source))] = source
            return
        self.copies[dest] = source
        if source in self.files:
            self.files[dest] = self.files[source]

    def unalias(self, args: list[Arg], env: Env) -> list[Arg]:
        """A binary copied or linked earlier in the script runs as what it was copied from."""
        if not args or not self.copies or not args[0].static:
            return args
        if "/" not in args[0].text:
            dirs = [d for d in env.vars.get("PATH", "").split(":") if d.startswith("/")]
            found = next(
                (
                    f"{d.rstrip('/')}/{args[0].text}"
                    for d in dirs
                    if f"{d.rstrip('/')}/{args[0].text}" in self.copies
                ),
                None,
            )
            return [Arg(self.copies[found]), *args[1:]] if found else args
        path = resolve(args[0].text, env.cwd, self.policy.home)
        original = self.copies.get(path)
        return [Arg(original), *args[1:]] if original else args

    def through_links(self, arg: Arg, env: Env, follow_exact: bool) -> Arg:
        """A path reached through a link made earlier in this script, as the path it reaches."""
        if not self.links or not arg.static:
            return arg
        # An operand in ``key=path`` form (dd's ``of=``, ``--output=``) reaches the link the same way.
        keyed = _KEYED_PATH.fullmatch(arg.text)
        key, value = (keyed.group(1) or "", keyed.group(2)) if keyed else ("", arg.text)
        path = resolve(value, env.cwd, self.policy.home)
        for link, target in self.links.items():
            if path.startswith(link + "/") or (follow_exact and path == link):
                return Arg(key + normalize(target + path[len(link) :]), arg.glob)
        return arg

    def path_args(self, argv: list[Arg], env: Env) -> list[Arg]:
        if not self.links or not argv:
            return argv
        follow = not is_a(basename(argv[0].text), "unlinker")  # rm and mv act on the link itself
        return [argv[0], *(self.through_links(a, env, follow) for a in argv[1:])]
