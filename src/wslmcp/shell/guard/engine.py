"""The guard engine: reads a command, walks everything that would run, applies the rule layers.

The walk follows the script in order, tracking what a careful reader can know: variables assigned
earlier, the working directory after ``cd``, functions defined, Windows executables copied under a
new name. Every command substitution, process substitution, ``-c`` payload, ``eval`` text,
here-document fed to a shell and ``find -exec``/``xargs`` command is screened with the same rules.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

from wslmcp.shell.guard import Access, Decision, Policy
from wslmcp.shell.guard.effects import Effects, effects
from wslmcp.shell.guard.expand import UNKNOWN, UNKNOWN_SET, Arg, Env, Expander, printf_text, shown
from wslmcp.shell.guard.limits import (
    MAX_COMMAND_CHARS,
    MAX_LOOP_VALUES,
    MAX_PAYLOAD_DEPTH,
    Budget,
    GuardLimit,
)
from wslmcp.shell.guard.paths import (
    local_form,
    mount_of,
    normalize,
    operator_label,
    resolve,
)
from wslmcp.shell.guard.programs import code_effects, program_payloads
from wslmcp.shell.guard.reader import read
from wslmcp.shell.guard.rules import (
    NOTHING_RUN,
    Refused,
    Segment,
    check_segment,
    refuse,
)
from wslmcp.shell.guard.syntax import (
    OUTPUT_OPS,
    Arith,
    Command,
    CommandSub,
    Compound,
    FunctionDef,
    Lit,
    Param,
    Pipeline,
    ProcessSub,
    Redirect,
    Script,
    Simple,
    Word,
)
from wslmcp.shell.guard.vocabulary import COMMAND_VARIABLES, FIND_RUNNERS, code_options, family, is_a
from wslmcp.shell.guard.wrappers import SHELLS, Payload, Resolved, basename, shell_input
from wslmcp.shell.guard.wrappers import resolve as resolve_wrappers

_SOURCERS = family("sourcer") | family("shell")
_SOURCERS_ONLY = family("sourcer")
_DELETERS_AND_MV = family("deleter") | {"mv"}
_KEYED_PATH = re.compile(r"((?:--?)?[A-Za-z][\w-]*=)?(.*)", re.DOTALL)
_SUB = " (inside a command substitution)"
CWD_METACHARACTERS = "`$;|&<>(){}!*?[]\\\"'\n\r\t"
_OUTPUT_OPS = OUTPUT_OPS
_DECLARERS = family("declarer")


_STDIN_FILES = frozenset({"/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "-"})
_SAME_SHELL = frozenset({"eval", "trap"})
_UNKNOWN_TEXT = "\x00"


class _Walker:
    def __init__(self, policy: Policy, budget: Budget) -> None:
        self.policy = policy
        self.budget = budget
        self.expander = Expander(budget)
        self.aliases: dict[str, str] = {}
        self.links: dict[str, str] = {}
        self.files: dict[str, str | None] = {}
        self.exported: set[str] = set()
        self.shell_aliases: dict[str, str] = {}
        self.functions: dict[str, Command] = {}
        self.seen: list[str] = []
        self.calling: set[str] = set()
        self.defining = 0

    def check(self, seg: Segment) -> Effects:
        self.seen.extend(basename(w) for w in seg.resolved.wrappers)
        if seg.argv:
            self.seen.append(seg.name)
        seg.defining = self.defining > 0
        return check_segment(self.policy, seg)

    # ----------------------------------------------------------------- scripts

    def text(self, text: str, env: Env, context: str, depth: int, feed: _Feed | None = None) -> None:
        if depth > MAX_PAYLOAD_DEPTH:
            raise GuardLimit(
                "parse.too_deep",
                f"the command nests shells, eval or payloads more than {MAX_PAYLOAD_DEPTH} levels deep, "
                "too deep to screen reliably",
            )
        self.script(read(text, self.budget), env, context, depth, feed)

    def script(self, script: Script, env: Env, context: str, depth: int, feed: _Feed | None = None) -> None:
        for pipeline in script.pipelines:
            self.pipeline(pipeline, env, context, depth, feed)

    def pipeline(
        self, pipeline: Pipeline, env: Env, context: str, depth: int, feed: _Feed | None = None
    ) -> None:
        alone = len(pipeline.commands) == 1 and not pipeline.background
        stdin = feed or _Feed(None, pipeline.coproc)
        for command in pipeline.commands:
            scope = env if alone else env.child()
            self.command(command, scope, context, depth, stdin)
            if isinstance(command, Simple):
                out = self.expander.simple_output(command, scope, stdin.text)
                stdin = _Feed(out, out is None)
            else:
                stdin = _Feed(None, True)

    def command(self, command: Command, env: Env, context: str, depth: int, feed: _Feed) -> None:
        self.budget.spend(1)
        if isinstance(command, Simple):
            self.simple(command, env, context, depth, feed)
        elif isinstance(command, Compound):
            self.compound(command, env, context, depth, feed)
        else:
            self.function(command, env, context, depth)

    def function(self, fn: FunctionDef, env: Env, context: str, depth: int) -> None:
        if fn.name and _calls_itself_in_parallel(fn.body, fn.name):
            raise refuse(
                "catastrophe.fork_bomb",
                fn.raw,
                f"blocked as dangerous: '{fn.name}' is a fork bomb (it runs copies of itself in a pipeline or in the background)",
                context,
            )
        # The body is screened now for what it always does; its calls screen it again with their
        # arguments, so names only known from the arguments are judged at the call.
        self.defining += 1
        try:
            self.command(fn.body, env.child(), context, depth, _Feed(None, False))
        finally:
            self.defining -= 1
        if fn.name:
            self.functions[fn.name] = fn.body

    def call(self, seg: Segment, env: Env, context: str, depth: int) -> None:
        """A call of a function defined earlier: its body runs again with these arguments."""
        name = seg.argv[0].text
        body = self.functions.get(name)
        if body is None or name in self.calling:
            return
        if depth + 1 > MAX_PAYLOAD_DEPTH:
            raise GuardLimit(
                "parse.too_deep",
                f"the command nests function calls more than {MAX_PAYLOAD_DEPTH} levels deep, too deep to screen reliably",
            )
        scope = Env(env.home, env.user, seg.cwd, dict(env.vars), [name, *(a.text for a in seg.args)])
        self.calling.add(name)
        try:
            self.command(
                body,
                scope,
                f"{context} (in a call of the function '{name}')",
                depth + 1,
                _Feed(seg.stdin, seg.stdin_unknown),
            )
        finally:
            self.calling.discard(name)

    def compound(self, c: Compound, env: Env, context: str, depth: int, feed: _Feed) -> None:
        scope = env.child() if c.kind == "subshell" else env
        for word in c.words:
            self.substitutions(word, scope, context, depth)
        for sub in c.subs:
            self.script(sub, scope.child(), context + _SUB, depth)
        loop = re.match(r"(?:for|select)\s+([A-Za-z_]\w*)", c.raw) if c.kind in ("for", "select") else None
        if loop is not None:
            values = self.expander.words(c.words, scope) if c.words else [Arg(_UNKNOWN_TEXT)]
            if len(values) > MAX_LOOP_VALUES:
                values = [Arg(_UNKNOWN_TEXT)]
            for value in values or [Arg("")]:
                scope.vars[loop.group(1)] = value.text
                for body in c.bodies:
                    self.script(body, scope, context, depth, feed)
        else:
            for body in c.bodies:
                self.script(body, scope, context, depth, feed)
        writes = self.redirect_writes(c.redirects, env, context, depth, None)
        if writes:
            seg = Segment(c.raw.split("\n", 1)[0], Resolved(argv=[]), writes, env.cwd, context)
            self.check(seg)

    # ----------------------------------------------------------------- simple commands

    def substitutions(
        self, word: Word, env: Env, context: str, depth: int, printed: _Feed | None = None
    ) -> None:
        for part in word.parts:
            if isinstance(part, ProcessSub) and part.direction == ">":
                # `>(sh)` reads what the command writes into it.
                self.script(part.body, env.child(), context + _SUB, depth, printed or _Feed(None, True))
            elif isinstance(part, CommandSub | ProcessSub):
                self.script(part.body, env.child(), context + _SUB, depth)
            elif isinstance(part, Arith):
                for sub in part.subs:
                    self.script(sub, env.child(), context + _SUB, depth)
            elif isinstance(part, Param) and part.arg is not None:
                self.substitutions(part.arg, env, context, depth)

    def redirect_writes(
        self, redirects: list[Redirect], env: Env, context: str, depth: int, printed: _Feed | None
    ) -> list[tuple[str, Arg]]:
        """Targets of output redirections as (operator, target); input sources as ("<", source)."""
        writes: list[tuple[str, Arg]] = []
        for r in redirects:
            if r.target is not None:
                self.substitutions(r.target, env, context, depth, printed)
            if r.heredoc is not None and r.heredoc.body is not None:
                self.substitutions(r.heredoc.body, env, context, depth)
            if r.target is None:
                continue
            target = self.expander.single(r.target, env)
            if (
                env.cwd is not None
                and target.static
                and target.text
                and not target.text.startswith(("/", "~"))
            ):
                # The shell opens redirections in its own directory, before any `env -C` or `sudo -D`.
                target = Arg(resolve(target.text, env.cwd, self.policy.home), target.glob)
            target = self.through_links(target, env, follow_exact=True)
            if r.op in _OUTPUT_OPS or (r.op == ">&" and not re.fullmatch(r"\d+-?|-", target.text)):
                writes.append((r.op, target))
            elif r.op == "<":
                writes.append(("<", target))
        return writes

    def simple(self, cmd: Simple, env: Env, context: str, depth: int, feed: _Feed) -> None:
        for _, value in cmd.assigns:
            self.substitutions(value, env, context, depth)
        printed = self.expander.printed(cmd, env, feed.text) if _prints_somewhere(cmd) else None
        shown_out = _Feed(printed, printed is None)
        for word in cmd.words:
            self.substitutions(word, env, context, depth, shown_out)
        writes = self.redirect_writes(cmd.redirects, env, context, depth, shown_out)
        args = self.expander.words(cmd.words, env)
        self.command_variables(cmd, env, context, depth)
        prefixed = env
        if not args:
            for name, value in cmd.assigns:
                self.expander.assign(name, value, env)
        elif cmd.assigns:
            prefixed = env.child()
            for name, value in cmd.assigns:
                self.expander.assign(name, value, prefixed)
        args = self.unalias(args, prefixed)
        stdin = self.expander.stdin_of(cmd.redirects, env, feed.text)
        stdin_unknown = stdin is None and self.stdin_unknown(cmd.redirects, env, feed)
        args, stdin = self.xargs_file(cmd, args, env, stdin)
        resolved = resolve_wrappers(args, stdin)
        if _evals_environment_setup(cmd, prefixed, self.expander):
            resolved.payloads = []  # the substitution itself is screened; its output only sets up the shell
        cwd = env.cwd
        if resolved.cwd is not None:
            cwd = resolve(resolved.cwd, env.cwd, self.policy.home) if UNKNOWN not in resolved.cwd else None
            cwd = cwd if cwd is not None and cwd.startswith("/") else None
        seg = Segment(cmd.raw, resolved, writes, cwd, context, stdin, stdin_unknown)
        seg.search_path = prefixed.vars.get("PATH")
        seg.resolved.argv = self.path_args(seg.resolved.argv, env)
        eff = self.check(seg)
        self.sourced(cmd, env, seg, context, depth)
        if args or writes:
            for payload in resolved.payloads:
                self.payload(seg, payload, prefixed, cmd.assigns, context=context, depth=depth)
            for label, argv in resolved.nested:
                self.nested(label, argv, seg, env, context=context, depth=depth)
        if (
            args
            and args[0].static
            and args[0].text in self.shell_aliases
            and cmd.words[0].raw == args[0].text
        ):
            # An alias expands as text, then runs (bash does so with expand_aliases set).
            rest = " ".join(shlex.quote(a.text) for a in args[1:])
            text = f"{self.shell_aliases[args[0].text]} {rest}"
            self.payload(seg, Payload(f"alias {args[0].text}", text), env, [], context=context, depth=depth)
        for var in ("BASH_ENV", "ENV"):
            startup = prefixed.vars.get(var)
            if startup is not None and (
                seg.name in SHELLS or any(basename(w) in SHELLS for w in resolved.wrappers)
            ):
                assigned = next((w for n, w in cmd.assigns if n == var), None)
                self.startup_file(seg, var, startup, assigned, env, context=context, depth=depth)
        if resolved.argv:
            self.runs_input(seg, env, context, depth)
            self.binary_payloads(seg, env, context, depth)
            self.call(seg, env, context, depth)
            self.after(seg, env, printed, prefixed.vars.get("IFS"))
        self.remember_writes(seg, eff, env, printed)

    def xargs_file(
        self, cmd: Simple, args: list[Arg], env: Env, stdin: str | None
    ) -> tuple[list[Arg], str | None]:
        """``xargs -a <(…) CMD``: the process substitution's known output is what xargs reads."""
        if not args or basename(args[0].text) != "xargs" or len(cmd.words) != len(args):
            return args, stdin
        for k in range(1, len(cmd.words) - 1):
            following = cmd.words[k + 1]
            if args[k].text in ("-a", "--arg-file") and len(following.parts) == 1:
                part = following.parts[0]
                if isinstance(part, ProcessSub):
                    text = self.expander.output_of(part.body, env.child())
                    if text is not None:
                        return [*args[:k], *args[k + 2 :]], text
        return args, stdin

    def command_variables(self, cmd: Simple, env: Env, context: str, depth: int) -> None:
        """``GIT_SSH_COMMAND='…' git fetch``, ``export EDITOR='…'``: a variable programs run as a
        command is screened as a script where it is set."""
        assigned = [(name, self.expander.single(value, env)) for name, value in cmd.assigns]
        if cmd.words and cmd.words[0].raw in _DECLARERS:
            for word in self.expander.words(cmd.words[1:], env):
                declared, eq, text = word.text.partition("=")
                if eq:
                    assigned.append((declared, Arg(text)))
        for name, arg in assigned:
            # A value only known at run time comes from the environment, not from the agent's text.
            if name.rstrip("+[") in COMMAND_VARIABLES and arg.text and arg.static:
                seg = Segment(cmd.raw, Resolved(argv=[]), [], env.cwd, context)
                label = f"{name.rstrip('+[')} command"
                self.payload(seg, Payload(label, arg.text), env, [], context=context, depth=depth)

    def stdin_unknown(self, redirects: list[Redirect], env: Env, feed: _Feed) -> bool:
        """Is the command's standard input data the guard cannot know (a pipe from a real
        command, a process substitution, a here-document with run-time parts)?"""
        unknown = feed.unknown
        for r in redirects:
            target_text = self.expander.single(r.target, env).text if r.target is not None else ""
            if target_text.startswith(("/dev/tcp/", "/dev/udp/")) and (
                r.fd in ("", "0") or r.op in ("&>", ">&", "<>")
            ):
                unknown = True  # a network socket as stdin (or as every stream, for `>&` and `&>`)
                continue
            if r.fd == "0" and r.op in (">&", "<&") and target_text not in ("0", "-"):
                unknown = True  # stdin duplicated from another descriptor
                continue
            if r.fd not in ("", "0") and r.op not in ("<<", "<<-", "<<<"):
                continue
            if r.heredoc is not None or r.op == "<<<":
                unknown = True
            elif r.op == "<" and r.target is not None:
                target = self.expander.single(r.target, env)
                is_proc = len(r.target.parts) == 1 and isinstance(r.target.parts[0], ProcessSub)
                path = resolve(target.text, env.cwd, self.policy.home)
                unknown = is_proc or (path in self.files and self.files[path] is None)
        return unknown

    def sourced(self, cmd: Simple, env: Env, seg: Segment, context: str, depth: int) -> None:
        """``source <(…)``, ``. <(…)``, ``bash <(…)`` and ``python3 <(…)`` run what the process
        substitution prints (for an interpreter, when it is the program operand)."""
        interpreter = is_a(seg.name, "interpreter") and code_options(seg.name) is not None
        if len(cmd.words) < 2 or not (interpreter or seg.name in _SOURCERS):
            return
        words = cmd.words[1:]
        if interpreter:  # only the program operand is run
            words = [w for w in words if not w.raw.startswith("-")][:1]
        for word in words:
            if len(word.parts) != 1 or not isinstance(word.parts[0], ProcessSub):
                continue
            text = self.expander.output_of(word.parts[0].body, env.child())
            if text is None:
                raise refuse("unresolved.payload", seg, _unknown_substitution(seg.name, interpreter))
            if interpreter:
                self.interpreter_code(seg, text, env, seg.context, depth)
            else:
                self.payload(seg, Payload(f"{seg.name} <(…)", text), env, [], context=context, depth=depth)

    def runs_input(self, seg: Segment, env: Env, context: str, depth: int) -> None:
        """A shell, ``source`` or a script path that runs text: from stdin, or from a file this same
        command wrote. Known text is screened as a script; unknown text is refused."""
        name = seg.name
        sources: list[Arg] = []
        reads_stdin = name in _SOURCERS_ONLY  # a shell's own stdin mode is screened as its payload
        if (
            name in ("at", "batch")
            and seg.stdin_unknown
            and not any(a.text.startswith("-") for a in seg.args)
        ):
            raise refuse(
                "unresolved.payload",
                seg,
                f"'{name}' schedules the script it reads from standard input, which is only known at run time; "
                "give it the commands as plain text (a here-string) so they can be read first",
            )
        if name in _SOURCERS_ONLY and seg.args:
            sources = [seg.args[0]]
        elif name in SHELLS and not seg.resolved.payloads:
            mode, operands = shell_input(seg.args)
            if mode == "stdin":
                sources = [Arg("-")]
            elif mode == "file":
                sources = operands[:1]
                reads_stdin = True  # `bash /dev/stdin <<< …`: the script operand is stdin
        elif is_a(name, "interpreter") and not any(t.text.startswith("-") for t in seg.args[:1]):
            if not seg.args and seg.stdin_unknown:
                raise refuse(
                    "unresolved.payload",
                    seg,
                    f"'{name}' runs a program read from a pipe whose text is only known at run time; "
                    "download or write the program first, then run it by name after reading it",
                )
            return
        written = self.written_text(seg.argv[0], env) if seg.argv and "/" in seg.argv[0].text else False
        if written is not False:
            sources = [seg.argv[0]]
        for source in sources:
            if source.text in _STDIN_FILES:
                if seg.stdin is not None and reads_stdin:
                    self.payload(
                        seg, Payload(f"{name} /dev/stdin", seg.stdin), env, [], context=context, depth=depth
                    )
                elif seg.stdin_unknown:
                    raise refuse(
                        "unresolved.payload",
                        seg,
                        f"'{name}' runs a script read from its standard input, which is only known at run time "
                        "(a pipe from a real command, a download or a process substitution); "
                        "run the commands themselves, or save the script and read it first",
                    )
                continue
            self.runs_file(seg, source, env, context, depth)

    def startup_file(
        self, seg: Segment, var: str, value: str, word: Word | None, env: Env, *, context: str, depth: int
    ) -> None:
        """The file a shell runs first because ``var`` (BASH_ENV, ENV) names it: a process
        substitution's output (``BASH_ENV=<(…)``), the shell's stdin (``/dev/stdin``), or a file."""
        text: str | None = None
        if word is not None and len(word.parts) == 1 and isinstance(word.parts[0], ProcessSub):
            text = self.expander.output_of(word.parts[0].body, env.child())
        elif value in _STDIN_FILES and value != "-":
            text = seg.stdin if seg.stdin is not None or seg.stdin_unknown else ""
        else:
            self.runs_file(seg, Arg(value), env, context, depth)
            return
        if text is None:
            raise refuse(
                "unresolved.payload",
                seg,
                f"the shell first runs the file {var} names, whose text is only known at run time; "
                "run the commands themselves instead",
            )
        self.payload(seg, Payload(f"{var} startup file", text), env, [], context=context, depth=depth)

    def runs_file(self, seg: Segment, source: Arg, env: Env, context: str, depth: int) -> None:
        """A file run as a script: screened when this command wrote it, refused when it wrote it
        with content only known at run time, left alone when it was there before."""
        text = self.written_text(source, env)
        if text is None:
            raise refuse(
                "unresolved.payload",
                seg,
                f"'{source.shown}' is run as a script after this same command wrote it with content only "
                "known at run time; write and run it in separate calls so its text can be read first",
            )
        if isinstance(text, str):
            self.payload(
                seg, Payload(f"{seg.name} {source.shown}", text), env, [], context=context, depth=depth
            )

    def written_text(self, arg: Arg, env: Env) -> str | bool | None:
        """The text an earlier command of this script wrote to ``arg``: a string, None when it
        wrote unknown content, False when nothing here wrote it."""
        if not arg.static:
            return False
        path = resolve(arg.text, env.cwd, self.policy.home)
        if path not in self.files:
            return False
        return self.files[path]

    def remember_writes(self, seg: Segment, eff: Effects, env: Env, printed: str | None) -> None:
        """Files this command writes, with their content when it is known (``echo … > f``); a file
        ``cat`` copies keeps what it was a copy of (a Windows executable stays one)."""
        sources = [a for a in seg.args if not a.text.startswith("-")]
        if seg.name == "cat" and len(sources) == 1 and sources[0].static:
            source = resolve(sources[0].text, env.cwd, self.policy.home)
            for op, target in seg.redirect_writes:
                if op in (">", ">|") and target.static:
                    self.aliases[resolve(target.text, env.cwd, self.policy.home)] = self.aliases.get(
                        source, source
                    )
        targets = [(op, a) for op, a in seg.redirect_writes]
        if not is_a(seg.name, "metadata"):
            targets += [("", a) for a in eff.writes] + [("", a) for a in seg.resolved.writes]
        for op, target in targets:
            if not target.static or target.text == ".":
                continue
            path = resolve(target.text, env.cwd, self.policy.home)
            content: str | None = None
            if op in (">", ">|", ">>") and printed is not None:
                before = self.files.get(path, "") if op == ">>" else ""
                content = None if before is None else before + printed
            elif seg.name == "tee" and seg.stdin is not None:
                content = seg.stdin
            self.files[path] = content

    def payload(
        self,
        seg: Segment,
        payload: Payload,
        env: Env,
        prefix: list[tuple[str, Word]],
        *,
        context: str,
        depth: int,
    ) -> None:
        text, label = payload.text, payload.label
        if UNKNOWN in text or UNKNOWN_SET in text:
            if self.policy.allow_commands is not None:
                raise refuse(
                    "allow_commands",
                    seg,
                    f"the {label} is only known at run time, and this profile only permits {', '.join(self.policy.allow_commands)}",
                )
            raise refuse(
                "unresolved.payload",
                seg,
                f"the text the {label.replace(' payload', '')} runs as a script ('{shown(text)[:80]}') is only known "
                "at run time; write the commands themselves instead of building them from variables or command output",
            )
        same_shell = label.split(" ", 1)[0] in _SAME_SHELL
        variables = (
            dict(env.vars) if same_shell else {k: v for k, v in env.vars.items() if k in self.exported}
        )
        for name, _ in prefix:
            base = name.rstrip("+[")
            if base in env.vars:
                variables[base] = env.vars[base]
        child = Env(env.home, env.user, seg.cwd, variables, payload.positional)
        feed = _Feed(None, True) if payload.stdin_unknown else None
        self.text(
            text, child, f"{context} (inside a '{label.replace(' payload', '')}' payload)", depth + 1, feed
        )

    def nested(
        self, label: str, argv: list[Arg], outer: Segment, env: Env, *, context: str, depth: int
    ) -> None:
        if depth + 1 > MAX_PAYLOAD_DEPTH:
            raise GuardLimit(
                "parse.too_deep",
                f"the command nests commands more than {MAX_PAYLOAD_DEPTH} levels deep, too deep to screen reliably",
            )
        resolved = resolve_wrappers(self.unalias(argv, env), None)
        inner_context = f"{context} (run by {label})"
        seg = Segment(" ".join(a.text for a in argv) or outer.raw, resolved, [], outer.cwd, inner_context)
        seg.resolved.argv = self.path_args(seg.resolved.argv, env)
        self.check(seg)
        for payload in resolved.payloads:
            self.payload(seg, payload, env, [], context=inner_context, depth=depth + 1)
        for sub_label, sub_argv in resolved.nested:
            self.nested(sub_label, sub_argv, seg, env, context=inner_context, depth=depth + 1)
        if resolved.argv:
            self.binary_payloads(seg, env, inner_context, depth + 1)

    def binary_payloads(self, seg: Segment, env: Env, context: str, depth: int) -> None:
        """Commands run by the binary itself: find -exec, awk system(), interpreter one-liners."""
        name = seg.name
        texts = [a.text for a in seg.args]
        if name == "find":
            k = 0
            while k < len(texts):
                if texts[k] in FIND_RUNNERS:
                    end = k + 1
                    while end < len(texts) and texts[end] not in (";", "+"):
                        end += 1
                    argv = seg.args[k + 1 : end]
                    if argv and "{}" in argv[0].text:
                        raise refuse(
                            "unresolved.command",
                            seg,
                            f"find {texts[k]} runs each file it finds as the program, so what runs is only known "
                            "at run time; name the program and pass the file as its argument",
                        )
                    if argv:
                        self.nested(f"find {texts[k]}", argv, seg, env, context=context, depth=depth)
                    k = end
                k += 1
        if is_a(name, "awk"):
            found = effects(name, seg.args)
            for text in found.payloads:
                self.payload(seg, Payload(f"{name} system()", text), env, [], context=context, depth=depth)
            for text in found.piped:
                piped = Payload(f"{name} print |", text, stdin_unknown=True)
                self.payload(seg, piped, env, [], context=context, depth=depth)
        for label, text in program_payloads(name, seg.args, seg.stdin):
            self.payload(seg, Payload(label, text), env, [], context=context, depth=depth)
        letters = code_options(name)
        if letters is not None:
            program: str | None = None
            for k, t in enumerate(texts):
                if re.fullmatch(rf"-[A-Za-z]*[{letters}]", t) and letters and k + 1 < len(texts):
                    program = texts[k + 1]
                    break
            operands = [t for t in texts if not t.startswith("-")]
            if program is None and seg.stdin is not None and not operands:
                program = seg.stdin
            if program is None and not operands and seg.stdin_unknown:
                raise refuse(
                    "unresolved.payload",
                    seg,
                    f"'{name}' runs a program read from a pipe whose text is only known at run time; "
                    "save the program first and run it by name once its text can be read",
                )
            if program is None and operands:
                written = self.written_text(Arg(operands[0]), env)
                if written is None:
                    raise refuse(
                        "unresolved.payload",
                        seg,
                        f"'{operands[0]}' is run by {name} after this same command wrote it with content only "
                        "known at run time; write and run it in separate calls so its text can be read first",
                    )
                program = written if isinstance(written, str) else None
            if program is not None and (UNKNOWN in program or UNKNOWN_SET in program):
                raise refuse(
                    "unresolved.payload",
                    seg,
                    f"the program '{name}' is given is only known at run time; write the program text plainly",
                )
            self.interpreter_code(seg, program or "", env, context, depth)
        if name in ("ssh", "scp", "sftp"):
            for k, t in enumerate(texts):
                option = (
                    t[2:]
                    if t.startswith("-o") and len(t) > 2
                    else (texts[k + 1] if t == "-o" and k + 1 < len(texts) else "")
                )
                key, _, value = option.partition("=")
                if key.strip().lower() in ("proxycommand", "localcommand") and value.strip():
                    self.payload(
                        seg, Payload(f"ssh -o {key.strip()}", value), env, [], context=context, depth=depth
                    )
        if name == "rsync":
            for k, t in enumerate(texts):
                shell = (
                    t.split("=", 1)[1]
                    if t.startswith("--rsh=")
                    else (texts[k + 1] if t in ("-e", "--rsh") and k + 1 < len(texts) else "")
                )
                if shell:
                    self.payload(seg, Payload("rsync -e", shell), env, [], context=context, depth=depth)

    def interpreter_code(self, seg: Segment, program: str, env: Env, context: str, depth: int) -> None:
        """What an interpreter's program does (``programs.code_effects``), screened like commands."""
        code = code_effects(program)
        if code.danger is not None:
            raise refuse(code.rule, seg, f"blocked as dangerous: the {seg.name} program {code.danger}")
        for text in code.commands:
            self.payload(seg, Payload(f"{seg.name} program", text), env, [], context=context, depth=depth)
        for target in code.writes:
            written = Segment(
                seg.raw,
                Resolved(argv=[Arg(seg.name), Arg(target)]),
                [(">", Arg(target))],
                seg.cwd,
                seg.context,
            )
            self.check(written)

    def after(self, seg: Segment, env: Env, printed: str | None, ifs: str | None = None) -> None:
        """What a command changes for the commands after it: cwd, variables, copied executables
        (``ifs``: the IFS the command sees, which splits what ``read`` reads)."""
        name = seg.name
        args = seg.args
        texts = [a.text for a in args]
        if seg.resolved.wrappers and name in ("cd", "pushd", "popd", "export", "unset"):
            return
        if name in ("cd", "pushd"):
            operands = [a for a in args if not re.fullmatch(r"-[LPe@]+", a.text)]
            if not operands:
                env.cwd = env.home or "~"
            else:
                target = operands[0]
                if target.text == "-" or not target.static:
                    env.cwd = None
                else:
                    path = resolve(target.text, env.cwd, self.policy.home)
                    env.cwd = path.rstrip("/") or "/" if path.startswith(("/", "~")) else None
        elif name == "popd":
            env.cwd = None
        elif name in _DECLARERS:
            nameref = any(re.fullmatch(r"-\w*n\w*", t) for t in texts)
            exporting = name == "export" or any(re.fullmatch(r"-\w*x\w*", t) for t in texts)
            for a in args:
                m = re.match(r"([A-Za-z_][A-Za-z0-9_]*)(?:=(.*))?$", a.text, re.S)
                if not m:
                    continue
                if exporting:
                    self.exported.add(m.group(1))
                if nameref or any(re.fullmatch(r"-\w*[aA]\w*", t) for t in texts):
                    env.vars[m.group(1)] = UNKNOWN  # namerefs and arrays: their uses are unknown
                elif m.group(2) is not None:
                    env.vars[m.group(1)] = m.group(2)
        elif name == "unset":
            for a in args:
                env.vars.pop(a.text, None)
        elif name == "alias":
            for a in args:
                alias, eq, expansion = a.text.partition("=")
                if eq:
                    self.shell_aliases[alias] = expansion  # an unknown part makes its use unresolved
        elif name == "hash" and len(texts) >= 3 and texts[0] == "-p":
            # `hash -p PATH NAME`: NAME now runs PATH, as an alias of it would
            for alias in texts[2:]:
                self.shell_aliases[alias] = shlex.quote(texts[1])
        elif name == "set" and "--" in texts:
            env.positional = [
                env.positional[0] if env.positional else "bash",
                *texts[texts.index("--") + 1 :],
            ]
        elif name == "printf" and len(texts) >= 2 and texts[0] == "-v":
            value = printf_text(texts[2:]) if len(texts) > 2 else None
            env.vars[texts[1].split("[", 1)[0]] = (
                value if value is not None and "[" not in texts[1] else UNKNOWN
            )
        elif name in ("read", "mapfile", "readarray"):
            fields = (
                _fields(seg.stdin.split("\n", 1)[0], ifs)
                if seg.stdin is not None and name == "read"
                else None
            )
            names = [t for t in texts if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", t)]
            array = name != "read" or any(re.fullmatch(r"-\w*a", t) for t in texts)
            if not names and name == "read":
                names = ["REPLY"]
            for k, var in enumerate(names):
                plain = all(
                    t in ("-r", "-s", "-e", "-rs", "-sr", "-er", "-re") for t in texts if t.startswith("-")
                )
                known = fields is not None and not array and plain
                if known and fields is not None:
                    value = fields[k] if k < len(names) - 1 else " ".join(fields[k:])
                    env.vars[var] = value if k < len(fields) else ""
                else:
                    env.vars[var] = UNKNOWN
        elif name == "mount" and any(t in ("--bind", "-B", "--rbind", "-R") for t in texts):
            operands = [a for a in args if not a.text.startswith("-")]
            if len(operands) == 2 and all(a.static for a in operands):
                origin, mount_point = (resolve(a.text, env.cwd, self.policy.home) for a in operands)
                self.links[mount_point.rstrip("/") or "/"] = self.links.get(origin, origin)
        elif name in ("cp", "mv", "install", "ln"):
            operands = [a for a in args if not a.text.startswith("-")]
            if len(operands) >= 2 and all(a.static for a in operands):
                dest = resolve(operands[-1].text, env.cwd, self.policy.home)
                for src in operands[:-1]:
                    source = resolve(src.text, env.cwd, self.policy.home)
                    source = self.aliases.get(source, source)
                    if len(operands) == 2:
                        self.aliases[dest] = source
                        if name == "ln":
                            self.links[dest.rstrip("/")] = self.links.get(source, source)
                        elif source in self.files:
                            self.files[dest] = self.files[source]
                    self.aliases[normalize(dest + "/" + basename(src.text))] = source

    def unalias(self, args: list[Arg], env: Env) -> list[Arg]:
        """A binary copied or linked earlier in the script runs as what it was copied from."""
        if not args or not self.aliases or not args[0].static:
            return args
        if "/" not in args[0].text:
            dirs = [d for d in env.vars.get("PATH", "").split(":") if d.startswith("/")]
            found = next(
                (
                    f"{d.rstrip('/')}/{args[0].text}"
                    for d in dirs
                    if f"{d.rstrip('/')}/{args[0].text}" in self.aliases
                ),
                None,
            )
            return [Arg(self.aliases[found]), *args[1:]] if found else args
        path = resolve(args[0].text, env.cwd, self.policy.home)
        original = self.aliases.get(path)
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
        follow = basename(argv[0].text) not in _DELETERS_AND_MV
        return [argv[0], *(self.through_links(a, env, follow) for a in argv[1:])]


def _fields(line: str, ifs: str | None) -> list[str] | None:
    """``line`` split into fields as ``read`` splits it with ``ifs``; None when IFS is unknown."""
    if ifs is None or not ifs.strip(" \t\n"):
        return line.split() if ifs is None or ifs else [line]
    if UNKNOWN in ifs:
        return None
    return [f.strip(" \t\n") for f in re.split("[" + re.escape(ifs) + "]", line)]


@dataclass(frozen=True)
class _Feed:
    """A command's standard input: its text when known, and whether unknown data flows in."""

    text: str | None
    unknown: bool


def _evals_environment_setup(cmd: Simple, env: Env, expander: Expander) -> bool:
    """``eval "$(ssh-agent -s)"``, ``eval "$(pyenv init -)"``: eval of what an installed tool prints
    to set up the shell (variables, PATH, hooks). The tool is named and screened; its output is
    the tool's, not text the agent was handed."""
    if len(cmd.words) < 2 or cmd.words[0].raw != "eval":
        return False
    for word in cmd.words[1:]:
        subs = [p for p in word.parts if isinstance(p, CommandSub)]
        if len(subs) != 1 or any(isinstance(p, Lit) and p.text.strip() for p in word.parts):
            return False
        pipelines = subs[0].body.pipelines
        if len(pipelines) != 1 or len(pipelines[0].commands) != 1:
            return False
        inner = pipelines[0].commands[0]
        if not isinstance(inner, Simple) or not inner.words:
            return False
        first = expander.words(inner.words[:1], env)
        if len(first) != 1 or not first[0].static or not is_a(basename(first[0].text), "env_printer"):
            return False
    return True


def _prints_somewhere(cmd: Simple) -> bool:
    """Does the output of ``cmd`` go somewhere the guard follows (a file, a ``>(…)``)?"""
    return any(r.op in _OUTPUT_OPS for r in cmd.redirects) or any(
        isinstance(part, ProcessSub) for word in cmd.words for part in word.parts
    )


def _calls_itself_in_parallel(body: Command, name: str) -> bool:
    """Does a function body run its own name in a pipeline or in the background?"""
    stack: list[Command] = [body]
    seen = 0
    while stack and seen < 10_000:
        seen += 1
        node = stack.pop()
        if isinstance(node, Compound):
            for script in node.bodies:
                for p in script.pipelines:
                    calls = sum(1 for c in p.commands if _is_call(c, name))
                    if calls and (len(p.commands) > 1 or p.background):
                        return True
                    stack.extend(p.commands)
        elif isinstance(node, FunctionDef):
            stack.append(node.body)
    return False


def _is_call(command: Command, name: str) -> bool:
    if not isinstance(command, Simple) or not command.words:
        return False
    first = command.words[0]
    return len(first.parts) == 1 and isinstance(first.parts[0], Lit) and first.parts[0].text == name


# --------------------------------------------------------------------- entry points


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


def check_command(policy: Policy, command: str, cwd: str | None, budget: Budget | None = None) -> Decision:
    """The decision for ``command``; ``budget`` (fresh by default) counts the work done, for tests
    and benchmarks that check the structural bounds."""
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
    text = command.replace(UNKNOWN_SET, "\x02")
    if not re.sub(r"\\\r?\n", "", text).strip():
        return Decision.reject("parse.empty", None, f"the command is empty; {NOTHING_RUN}")
    if cwd is not None:
        verdict = check_cwd(policy, cwd)
        if not verdict.allowed:
            return verdict
    walker = _Walker(policy, budget if budget is not None else Budget())
    env = Env(policy.home, policy.user, _start_cwd(policy, cwd))
    try:
        walker.text(text, env, "", 0)
    except Refused as refusal:
        return refusal.decision
    except GuardLimit as exc:
        return _limit_decision(exc, command)
    except RecursionError:
        return Decision.reject(
            "parse.too_deep", None, f"the command nests too deeply to screen reliably; {NOTHING_RUN}"
        )
    return Decision.allow()


def commands_seen(policy: Policy, command: str, cwd: str | None = None) -> tuple[Decision, list[str]]:
    """The decision and the name of every binary and wrapper the guard screened, in order.
    For tests that hold the reader against real bash: everything bash runs must be in this list."""
    walker = _Walker(policy, Budget())
    env = Env(policy.home, policy.user, _start_cwd(policy, cwd))
    try:
        walker.text(command, env, "", 0)
    except Refused as refusal:
        return refusal.decision, walker.seen
    except GuardLimit as exc:
        return _limit_decision(exc, command), walker.seen
    return Decision.allow(), walker.seen


def check_cwd(policy: Policy, path: str) -> Decision:
    value = path.strip()
    if not value:
        return Decision.allow()
    for ch in value:
        if ch in CWD_METACHARACTERS or ch == "\x00":
            shown = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\x00": "\\0"}.get(ch, ch)
            return Decision.reject(
                "cwd.metachar",
                value,
                f"cwd contains the shell metacharacter '{shown}', which is not allowed in a directory argument; {NOTHING_RUN}",
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
    label = operator_label(norm)
    if label:
        verb = "written to" if access == "write" else "read"
        return Decision.reject(
            "operator_path",
            value,
            f"{norm} is operator {label} and cannot be {verb} by the agent, even with Windows access open; {NOTHING_RUN}",
        )
    if access == "write" and policy.readonly:
        return Decision.reject(
            "readonly.write", value, f"profile is read-only, file writes are not permitted; {NOTHING_RUN}"
        )
    drive = mount_of(norm)
    if access == "write" and drive is not None and not policy.allow_windows:
        return Decision.reject(
            "windows.mnt_write",
            value,
            f"writes under /mnt/{drive}/ land on the Windows filesystem of the machine running this server "
            f"(set WSL_ALLOW_WINDOWS=true to permit them); {NOTHING_RUN}",
        )
    if policy.allowed_paths is not None:
        listing = ", ".join(policy.allowed_paths)
        if not norm.startswith("/"):
            return Decision.reject(
                "allowed_paths",
                value,
                f"this profile restricts file access to {listing}, so the path must be absolute; {NOTHING_RUN}",
            )
        if not any(_within(norm, entry) for entry in policy.allowed_paths):
            return Decision.reject(
                "allowed_paths",
                norm,
                f"path is outside this profile's allowed paths ({listing}); {NOTHING_RUN}",
            )
    return Decision.allow()


def _within(path: str, entry: str) -> bool:
    base = normalize(entry).rstrip("/")
    if base in ("", "/"):
        return entry.startswith("/")
    candidate = path.rstrip("/")
    return candidate == base or candidate.startswith(base + "/")


def check_local_path(policy: Policy, path: str, access: Access) -> Decision:
    value = path.strip()
    if not value:
        return Decision.reject("path.empty", None, f"local path is empty; {NOTHING_RUN}")
    if "\x00" in value:
        return Decision.reject("path.invalid", value, f"local path contains a NUL character; {NOTHING_RUN}")
    form = local_form(value)
    label = operator_label(form, local=True)
    if label:
        verb = "written to" if access == "write" else "read from"
        return Decision.reject(
            "operator_path",
            value,
            f"local path is protected and cannot be {verb}: {label} ({form}); {NOTHING_RUN}",
        )
    return Decision.allow()


def _unknown_substitution(name: str, interpreter: bool) -> str:
    if interpreter:
        return (
            f"'{name}' runs a program a process substitution prints, which is only known at "
            "run time; save the program first and run it by name once its text can be read"
        )
    return (
        f"'{name}' runs what a process substitution prints, which is only known at run time; "
        "run the commands themselves instead"
    )
