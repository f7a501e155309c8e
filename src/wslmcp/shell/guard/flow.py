"""The flow pass: walks a script the way bash would run it and turns every command into effects.

The walk follows the script in order, tracking what a careful reader can know: variables assigned
earlier, the working directory after ``cd``, functions and aliases defined, files written with
known content, links and bind mounts made, programs copied under a new name. Every command
substitution, process substitution, ``-c`` payload, ``eval`` text, here-document fed to a shell,
``find -exec``/``xargs`` command and hook text is walked the same way. What each command does is
asked of the registry; nothing here knows a program by name. The output is a list of ``Batch``es
(``effects.py``) that the rule passes judge; the flow pass itself refuses nothing.
"""

from __future__ import annotations

import re
import shlex

from wslmcp.shell.guard.effects import (
    Alias,
    Change,
    Effect,
    Function,
    Hash,
    Payload,
    Read,
    Resolved,
    Run,
    Segment,
    Text,
    Unknown,
    Var,
    Write,
)
from wslmcp.shell.guard.evaluated import STDIN_FILES, Evaluating
from wslmcp.shell.guard.expand import Env, Expander
from wslmcp.shell.guard.limits import MAX_LOOP_VALUES, MAX_PAYLOAD_DEPTH, GuardLimit
from wslmcp.shell.guard.paths import mount_of, normalize, resolve
from wslmcp.shell.guard.reader import read
from wslmcp.shell.guard.registry import effects_of, wrapper_effects
from wslmcp.shell.guard.registry.code import code_effects
from wslmcp.shell.guard.registry.launch import SHELLS, arg_file_options, shell_input
from wslmcp.shell.guard.registry.launch import resolve as resolve_wrappers
from wslmcp.shell.guard.registry.tables import (
    code_options,
    is_a,
    is_windows_name,
    strip_windows_extension,
)
from wslmcp.shell.guard.registry.texts import (
    config_commands,
    config_files,
    program_runs,
    reads_commands,
    reads_environment,
)
from wslmcp.shell.guard.registry.variables import (
    STARTUP_FILES,
    element_pairs,
    table_entries,
)
from wslmcp.shell.guard.syntax import (
    OUTPUT_OPS,
    Arith,
    Assign,
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
from wslmcp.shell.guard.tracked import Feed, deferred
from wslmcp.shell.guard.values import UNKNOWN, Arg, basename, known, readable, shown

_SUB = " (inside a command substitution)"
_HOW_OF_OP = {">>": "append", "&>>": "append", "<>": "edit"}


class Flow(Evaluating):
    """One walk over one command: ``batches`` is what it found, in the order bash would meet it."""

    # ----------------------------------------------------------------- output

    def screen(self, seg: Segment, extra: list[Effect] | None = None) -> list[Effect]:
        """The effects of one command as it will run, emitted as one batch."""
        self.seen.extend(basename(w) for w in seg.resolved.wrappers)
        if seg.argv:
            self.seen.append(seg.name)
        seg.defining = self.defining > 0
        effects = segment_effects(seg)
        if extra:
            effects.extend(extra)
        self.emit(seg, [e for e in effects if not deferred(e)])
        return effects

    # ----------------------------------------------------------------- scripts

    def text(self, text: str, env: Env, context: str, depth: int, feed: Feed | None = None) -> None:
        if depth > MAX_PAYLOAD_DEPTH:
            raise GuardLimit(
                "parse.too_deep",
                f"the command nests shells, eval or payloads more than {MAX_PAYLOAD_DEPTH} levels deep, "
                "too deep to screen reliably",
            )
        self.script(read(text, self.budget), env, context, depth, feed)

    def script(self, script: Script, env: Env, context: str, depth: int, feed: Feed | None = None) -> None:
        for pipeline in script.pipelines:
            self.pipeline(pipeline, env, context, depth, feed)

    def pipeline(
        self, pipeline: Pipeline, env: Env, context: str, depth: int, feed: Feed | None = None
    ) -> None:
        alone = len(pipeline.commands) == 1 and not pipeline.background
        stdin = feed or Feed(None, pipeline.coproc)
        for command in pipeline.commands:
            scope = env if alone else env.child()
            self.command(command, scope, context, depth, stdin)
            if isinstance(command, Simple):
                out = self.expander.simple_output(command, scope, stdin.text)
                stdin = Feed(out, out is None)
            else:
                stdin = Feed(None, True)

    def command(self, command: Command, env: Env, context: str, depth: int, feed: Feed) -> None:
        self.budget.spend(1)
        if isinstance(command, Simple):
            self.simple(command, env, context, depth, feed)
        elif isinstance(command, Compound):
            self.compound(command, env, context, depth, feed)
        else:
            self.function(command, env, context, depth)

    def function(self, fn: FunctionDef, env: Env, context: str, depth: int) -> None:
        seg = Segment(fn.raw, Resolved(argv=[]), [], env.cwd, context)
        effects: list[Effect] = [Function(fn.name)] if fn.name else []
        if fn.name and _calls_itself_in_parallel(fn.body, fn.name):
            why = f"'{fn.name}' is a fork bomb (it runs copies of itself in a pipeline or in the background)"
            effects.append(Change("fork_bomb", why))
        if effects:
            self.emit(seg, effects)
        # The body is screened now for what it always does; its calls screen it again with their
        # arguments, so names only known from the arguments are judged at the call.
        self.defining += 1
        try:
            self.command(fn.body, env.child(), context, depth, Feed(None, False))
        finally:
            self.defining -= 1
        if fn.name:
            self.functions[fn.name] = fn.body

    def call(self, seg: Segment, env: Env, context: str, depth: int) -> None:
        """A call of a function defined earlier: its body runs again with these arguments."""
        called = seg.argv[0].text
        body = self.functions.get(called)
        if body is None or called in self.calling:
            return
        if depth + 1 > MAX_PAYLOAD_DEPTH:
            raise GuardLimit(
                "parse.too_deep",
                f"the command nests function calls more than {MAX_PAYLOAD_DEPTH} levels deep, too deep to screen reliably",
            )
        scope = Env(env.home, env.user, seg.cwd, dict(env.vars), [called, *(a.text for a in seg.args)])
        self.calling.add(called)
        try:
            inner = f"{context} (in a call of the function '{called}')"
            self.command(body, scope, inner, depth + 1, Feed(seg.stdin, seg.stdin_unknown))
        finally:
            self.calling.discard(called)

    def compound(self, c: Compound, env: Env, context: str, depth: int, feed: Feed) -> None:
        scope = env.child() if c.kind == "subshell" else env
        for word in c.words:
            self.substitutions(word, scope, context, depth)
        for sub in c.subs:
            self.script(sub, scope.child(), context + _SUB, depth)
        if c.expr:
            self.arithmetic(c.expr, scope, context, depth)
        redirected = self.expander.stdin_of(c.redirects, scope, feed.text)
        if redirected is not None and redirected != feed.text:  # `while read f; do …; done < <(ls ~)`
            feed = Feed(redirected, False)
        if c.kind == "test":
            self.test_words(c.words, scope, context, depth)
        if c.var:
            values = self.expander.words(c.words, scope) if c.words else [Arg(UNKNOWN)]
            if len(values) > MAX_LOOP_VALUES:
                values = [Arg(UNKNOWN)]
            for value in values or [Arg("")]:
                scope.vars[c.var] = value.text
                for body in c.bodies:
                    self.script(body, scope, context, depth, feed)
        else:
            for body in c.bodies:
                self.script(body, scope, context, depth, feed)
        writes = self.redirect_targets(c.redirects, env, context, depth, None)
        if writes:
            self.screen(Segment(c.raw.split("\n", 1)[0], Resolved(argv=[]), writes, env.cwd, context))

    # ----------------------------------------------------------------- words

    def substitutions(
        self, word: Word, env: Env, context: str, depth: int, printed: Feed | None = None
    ) -> None:
        for part in word.parts:
            if isinstance(part, ProcessSub) and part.direction == ">":
                # `>(sh)` reads what the command writes into it.
                self.script(part.body, env.child(), context + _SUB, depth, printed or Feed(None, True))
            elif isinstance(part, CommandSub | ProcessSub):
                self.script(part.body, env.child(), context + _SUB, depth)
            elif isinstance(part, Arith):
                for sub in part.subs:
                    self.script(sub, env.child(), context + _SUB, depth)
                self.arithmetic(part.text, env, context, depth)
            elif isinstance(part, Param):
                self.parameter(part, env, context, depth)

    def redirect_targets(
        self, redirects: list[Redirect], env: Env, context: str, depth: int, printed: Feed | None
    ) -> list[tuple[str, Arg]]:
        """Targets of output redirections as (operator, target); input sources as ("<", source)."""
        targets: list[tuple[str, Arg]] = []
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
            if r.op in OUTPUT_OPS or (r.op == ">&" and not re.fullmatch(r"\d+-?|-", target.text)):
                targets.append((r.op, target))
            elif r.op == "<":
                targets.append(("<", target))
        return targets

    # ----------------------------------------------------------------- simple commands

    def simple(self, cmd: Simple, env: Env, context: str, depth: int, feed: Feed) -> None:
        for a in cmd.assigns:
            for word in (a.index, a.value, *(a.array or ())):
                if word is not None:
                    self.substitutions(word, env, context, depth)
        printed = self.expander.printed(cmd, env, feed.text) if _prints_somewhere(cmd) else None
        shown_out = Feed(printed, printed is None)
        for word in cmd.words:
            self.substitutions(word, env, context, depth, shown_out)
        redirects = self.redirect_targets(cmd.redirects, env, context, depth, shown_out)
        args = self.expander.words(cmd.words, env)
        stdin = self.expander.stdin_of(cmd.redirects, env, feed.text)
        self.hooks(cmd, env, stdin, context, depth)
        prefixed, assigned = self.assignments(cmd, args, env, context, depth)
        args = self.unalias(args, prefixed)
        stdin_unknown = stdin is None and self.stdin_unknown(cmd.redirects, env, feed)
        args, stdin = self.arg_file(cmd, args, env, stdin)
        seg = self.segment(cmd, args, stdin, prefixed, env, redirects=redirects, context=context)
        seg.stdin_unknown = stdin_unknown
        if _evals_environment_setup(cmd, prefixed, self.expander):
            seg.resolved.payloads = []  # the substitution itself is screened; its output only sets up the shell
        for var, value in seg.resolved.environment:
            self.hook(var, Arg(value), None, env, stdin=seg.stdin, raw=cmd.raw, context=context, depth=depth)
        effects = self.screen(seg, assigned)
        self.evaluated_arguments(seg, env, context, depth)
        self.sourced(cmd, env, seg, context, depth)
        if args or redirects:
            for payload in seg.resolved.payloads:
                self.payload(seg, payload, prefixed, cmd.assigns, context=context, depth=depth)
            for label, argv in seg.resolved.nested:
                self.nested(label, argv, seg, env, context=context, depth=depth)
        self.expand_alias(cmd, args, seg, env, context=context, depth=depth)
        self.startup_files(cmd, seg, prefixed, env, context=context, depth=depth)
        if seg.argv:
            self.runs_input(seg, env, context, depth)
            environment = self.environment_of(seg, prefixed) if reads_environment(seg.name) else None
            self.program_runs(seg, env, context, depth, environment=environment)
            self.call(seg, env, context, depth)
            self.after(seg, env, prefixed.vars.get("IFS"))
        self.remember_writes(seg, effects, env, printed)
        self.emit_deferred(seg, effects)

    def segment(
        self,
        cmd: Simple,
        args: list[Arg],
        stdin: str | None,
        prefixed: Env,
        env: Env,
        *,
        redirects: list[tuple[str, Arg]],
        context: str,
    ) -> Segment:
        """The command as it will run: wrappers looked through, its working directory resolved."""
        resolved = resolve_wrappers(args, stdin)
        cwd = env.cwd
        if resolved.cwd is not None:
            cwd = resolve(resolved.cwd, env.cwd, self.policy.home) if UNKNOWN not in resolved.cwd else None
            cwd = cwd if cwd is not None and cwd.startswith("/") else None
        seg = Segment(cmd.raw, resolved, redirects, cwd, context, stdin)
        seg.search_path = prefixed.vars.get("PATH")
        seg.resolved.argv = self.path_args(seg.resolved.argv, env)
        return seg

    def assignments(
        self, cmd: Simple, args: list[Arg], env: Env, context: str, depth: int
    ) -> tuple[Env, list[Effect]]:
        """Leading assignments: they set the shell's variables (no command) or the command's own
        environment (a prefix). Returns the environment the command sees and the variables set
        (with the aliases and hashed names an assignment to ``BASH_ALIASES``/``BASH_CMDS`` makes)."""
        if not cmd.assigns:
            return env, []
        target = env if not args else env.child()
        effects: list[Effect] = []
        for a in cmd.assigns:
            if a.index is not None:
                self.arithmetic(a.index.raw, env, context, depth)
            if a.name in env.integers:
                self.arithmetic(self.expander.single(a.value, env).text, env, context, depth, expand=True)
            self.expander.assign(a, target)
            effects.append(Var(a.name, target.vars.get(a.name, UNKNOWN), exported=bool(args)))
            effects.extend(self.table_entries(a, env))
        for effect in effects:
            if isinstance(effect, Alias | Hash):
                self.apply(effect, target)
        return target, effects

    def table_entries(self, a: Assign, env: Env) -> list[Effect]:
        if a.index is not None:
            pairs = [(self.expander.single(a.index, env).text, self.expander.single(a.value, env).text)]
        elif a.array is not None:
            pairs = element_pairs([self.expander.single(w, env).text for w in a.array])
        else:
            return []
        return table_entries(a.name, [(k, v) for k, v in pairs if known(k) and known(v)])

    def arg_file(
        self, cmd: Simple, args: list[Arg], env: Env, stdin: str | None
    ) -> tuple[list[Arg], str | None]:
        """``xargs -a <(…) CMD``: the process substitution's known output is what xargs reads."""
        options = arg_file_options(basename(args[0].text)) if args else ()
        if not options or len(cmd.words) != len(args):
            return args, stdin
        for k in range(1, len(cmd.words) - 1):
            following = cmd.words[k + 1]
            if args[k].text in options and len(following.parts) == 1:
                part = following.parts[0]
                if isinstance(part, ProcessSub):
                    text = self.expander.output_of(part.body, env.child())
                    if text is not None:
                        return [*args[:k], *args[k + 2 :]], text
        return args, stdin

    def expand_alias(
        self, cmd: Simple, args: list[Arg], seg: Segment, env: Env, *, context: str, depth: int
    ) -> None:
        """An alias expands as text, then runs (bash does so with expand_aliases set)."""
        if args and args[0].static and args[0].text in self.aliases and cmd.words[0].raw == args[0].text:
            rest = " ".join(shlex.quote(a.text) for a in args[1:])
            text = f"{self.aliases[args[0].text]} {rest}"
            self.payload(seg, Payload(f"alias {args[0].text}", text), env, [], context=context, depth=depth)

    def stdin_unknown(self, redirects: list[Redirect], env: Env, feed: Feed) -> bool:
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
                is_proc = len(r.target.parts) == 1 and isinstance(r.target.parts[0], ProcessSub)
                path = resolve(target_text, env.cwd, self.policy.home)
                unknown = is_proc or (path in self.files and self.files[path] is None)
        return unknown

    # ----------------------------------------------------------------- text run as a script

    def sourced(self, cmd: Simple, env: Env, seg: Segment, context: str, depth: int) -> None:
        """``source <(…)``, ``. <(…)``, ``bash <(…)`` and ``python3 <(…)`` run what the process
        substitution prints (for an interpreter, when it is the program operand)."""
        interpreter = is_a(seg.name, "interpreter") and code_options(seg.name) is not None
        if len(cmd.words) < 2 or not (interpreter or is_a(seg.name, "sourcer") or seg.name in SHELLS):
            return
        words = cmd.words[1:]
        if interpreter:  # only the program operand is run
            words = [w for w in words if not w.raw.startswith("-")][:1]
        for word in words:
            if len(word.parts) != 1 or not isinstance(word.parts[0], ProcessSub):
                continue
            text = self.expander.output_of(word.parts[0].body, env.child())
            if text is None:
                self.unknown(seg, "payload", _unknown_substitution(seg.name, interpreter))
            elif interpreter:
                self.interpreter_code(seg, text, env, seg.context, depth)
            else:
                self.payload(seg, Payload(f"{seg.name} <(…)", text), env, [], context=context, depth=depth)

    def runs_input(self, seg: Segment, env: Env, context: str, depth: int) -> None:
        """A shell, ``source`` or a script path that runs text: from stdin, or from a file this same
        command wrote. Known text is screened as a script; unknown text is refused."""
        name = seg.name
        if (
            is_a(name, "scheduler")
            and seg.stdin_unknown
            and not any(a.text.startswith("-") for a in seg.args)
        ):
            self.unknown(
                seg,
                "payload",
                f"'{name}' schedules the script it reads from standard input, which is only known at run time; "
                "give it the commands as plain text (a here-string) so they can be read first",
            )
            return
        if seg.stdin_unknown and reads_commands(name, seg.args):
            self.unknown(
                seg,
                "payload",
                f"'{name}' runs the commands it reads from standard input, which are only known at run time "
                "(a pipe from a real command or a download); save them to a file and read it first",
            )
            return
        sources, reads_stdin = self.script_sources(seg)
        if sources is None:
            return
        if "/" in seg.argv[0].text and self.written_text(seg.argv[0], env) is not False:
            sources = [seg.argv[0]]
        for source in sources:
            if source.text not in STDIN_FILES:
                self.runs_file(seg, source, env, context, depth)
            elif seg.stdin is not None and reads_stdin:
                self.payload(
                    seg, Payload(f"{name} /dev/stdin", seg.stdin), env, [], context=context, depth=depth
                )
            elif seg.stdin_unknown:
                self.unknown(
                    seg,
                    "payload",
                    f"'{name}' runs a script read from its standard input, which is only known at run time "
                    "(a pipe from a real command, a download or a process substitution); "
                    "run the commands themselves, or save the script and read it first",
                )

    def script_sources(self, seg: Segment) -> tuple[list[Arg] | None, bool]:
        """Where ``seg`` reads a script from, and whether it reads its stdin as one. None: an
        interpreter (its program is screened with its code), done here when it reads a pipe."""
        name = seg.name
        if is_a(name, "sourcer"):
            return seg.args[:1], True
        if name in SHELLS and not seg.resolved.payloads:
            mode, operands = shell_input(seg.args)
            if mode == "stdin":
                return [Arg("-")], False
            if mode == "file":
                return operands[:1], True  # `bash /dev/stdin <<< …`: the script operand is stdin
            return [], False
        if is_a(name, "interpreter") and not any(t.text.startswith("-") for t in seg.args[:1]):
            if not seg.args and seg.stdin_unknown:
                self.unknown(
                    seg,
                    "payload",
                    f"'{name}' runs a program read from a pipe whose text is only known at run time; "
                    "download or write the program first, then run it by name after reading it",
                )
            return None, False
        return [], False

    def startup_files(
        self, cmd: Simple, seg: Segment, prefixed: Env, env: Env, *, context: str, depth: int
    ) -> None:
        """A shell first runs the file ``BASH_ENV``/``ENV`` names."""
        shell = seg.name in SHELLS or any(basename(w) in SHELLS for w in seg.resolved.wrappers)
        environment = self.environment_of(seg, prefixed)
        for var in STARTUP_FILES if shell else ():
            startup = environment.get(var)
            if startup is not None:
                assigned = next((a.value for a in cmd.assigns if a.name == var), None)
                self.startup_file(seg, var, startup, assigned, env, context=context, depth=depth)

    def startup_file(
        self, seg: Segment, var: str, value: str, word: Word | None, env: Env, *, context: str, depth: int
    ) -> None:
        """The file a shell runs first because ``var`` names it: a process substitution's output
        (``BASH_ENV=<(…)``), the shell's stdin (``/dev/stdin``), or a file."""
        text: str | None = None
        if word is not None and len(word.parts) == 1 and isinstance(word.parts[0], ProcessSub):
            text = self.expander.output_of(word.parts[0].body, env.child())
        elif value in STDIN_FILES and value != "-":
            text = seg.stdin if seg.stdin is not None or seg.stdin_unknown else ""
        else:
            self.runs_file(seg, Arg(value), env, context, depth)
            return
        if text is None:
            self.unknown(
                seg,
                "payload",
                f"the shell first runs the file {var} names, whose text is only known at run time; "
                "run the commands themselves instead",
            )
            return
        self.payload(seg, Payload(f"{var} startup file", text), env, [], context=context, depth=depth)

    def runs_file(self, seg: Segment, source: Arg, env: Env, context: str, depth: int) -> None:
        """A file run as a script: screened when this command wrote it, refused when it wrote it
        with content only known at run time, left alone when it was there before."""
        text = self.written_text(source, env)
        if text is None:
            self.unknown(
                seg,
                "payload",
                f"'{source.shown}' is run as a script after this same command wrote it with content only "
                "known at run time; write and run it in separate calls so its text can be read first",
            )
        elif isinstance(text, str):
            self.payload(
                seg, Payload(f"{seg.name} {source.shown}", text), env, [], context=context, depth=depth
            )

    def payload(
        self,
        seg: Segment,
        payload: Payload,
        env: Env,
        prefix: list[Assign],
        *,
        context: str,
        depth: int,
    ) -> None:
        """Text run as a script: walked like the command itself, in the environment it will see."""
        text, label = payload.text, payload.label
        if not readable(text):
            self.emit(
                seg,
                [
                    Unknown(
                        "payload",
                        f"the text the {label.replace(' payload', '')} runs as a script ('{shown(text)[:80]}') is only "
                        "known at run time; write the commands themselves instead of building them from variables "
                        "or command output",
                        listed=True,
                        label=label,
                    )
                ],
            )
            return
        self.emit(seg, [Text(label, text)])
        variables = (
            dict(env.vars)
            if payload.same_shell
            else {k: v for k, v in env.vars.items() if k in self.exported}
        )
        for a in prefix:
            if a.name in env.vars:
                variables[a.name] = env.vars[a.name]
        child = Env(env.home, env.user, seg.cwd, variables, payload.positional)
        feed = Feed(None, True) if payload.stdin_unknown else None
        self.text(
            text, child, f"{context} (inside a '{label.replace(' payload', '')}' payload)", depth + 1, feed
        )

    def nested(
        self, label: str, argv: list[Arg], outer: Segment, env: Env, *, context: str, depth: int
    ) -> None:
        """An argument list another program runs (``find -exec``, ``xargs``), screened as a command."""
        if depth + 1 > MAX_PAYLOAD_DEPTH:
            raise GuardLimit(
                "parse.too_deep",
                f"the command nests commands more than {MAX_PAYLOAD_DEPTH} levels deep, too deep to screen reliably",
            )
        resolved = resolve_wrappers(self.unalias(argv, env), None)
        inner_context = f"{context} (run by {label})"
        seg = Segment(" ".join(a.text for a in argv) or outer.raw, resolved, [], outer.cwd, inner_context)
        seg.resolved.argv = self.path_args(seg.resolved.argv, env)
        self.screen(seg)
        for payload in resolved.payloads:
            self.payload(seg, payload, env, [], context=inner_context, depth=depth + 1)
        for sub_label, sub_argv in resolved.nested:
            self.nested(sub_label, sub_argv, seg, env, context=inner_context, depth=depth + 1)
        if resolved.argv:
            self.program_runs(seg, env, inner_context, depth + 1)

    def environment_of(self, seg: Segment, env: Env) -> dict[str, str]:
        """The variables a program sees: the script's, its prefix assignments, a wrapper's."""
        return {**env.vars, **dict(seg.resolved.environment)}

    def program_runs(
        self, seg: Segment, env: Env, context: str, depth: int, environment: dict[str, str] | None = None
    ) -> None:
        """What the program itself runs: ``find -exec``, ``awk`` ``system()``, commands from its
        options, its environment, its configuration set here or written here, interpreter one-liners."""
        runs = program_runs(seg.name, seg.args, seg.stdin, environment or {}, self.settings.get(seg.name, {}))
        for label, argv in runs.argvs:
            self.nested(label, argv, seg, env, context=context, depth=depth)
        if runs.unknown:
            self.emit(seg, list(runs.unknown))
        for payload in runs.texts:
            self.payload(seg, payload, env, [], context=context, depth=depth)
        for interpreter, program in runs.code:
            self.code(seg, interpreter, program, env, context=context, depth=depth)
        self.written_configuration(seg, env, environment or {}, context=context, depth=depth)
        if code_options(seg.name) is not None:
            self.interpreter(seg, env, context, depth)

    def program_runs_of(
        self, seg: Segment, program: str, args: list[Arg], env: Env, *, context: str, depth: int
    ) -> None:
        """What ``program`` would run with these options (a variable holding its options)."""
        runner = Segment(seg.raw, Resolved(argv=[Arg(program), *args]), [], seg.cwd, seg.context, seg.stdin)
        self.program_runs(runner, env, context, depth)

    def written_configuration(
        self, seg: Segment, env: Env, environment: dict[str, str], *, context: str, depth: int
    ) -> None:
        """A file of commands the program reads (a makefile, ``package.json``, an ssh config) that
        this same command wrote: its commands are screened; unknown content is refused."""
        for path, kind in config_files(seg.name, seg.args, environment):
            written = self.written_text(Arg(path), Env(env.home, env.user, seg.cwd))
            if path in STDIN_FILES and seg.stdin is not None:
                written = seg.stdin
            if written is None:
                self.unknown(
                    seg,
                    "payload",
                    f"'{seg.name}' runs commands from {path}, which this same command wrote with content only known "
                    "at run time; write it and run it in separate calls so its text can be read first",
                )
            elif isinstance(written, str):
                for label, text in config_commands(kind, written, seg.args):
                    self.payload(
                        seg, Payload(f"{label} ({path})", text), env, [], context=context, depth=depth
                    )

    def interpreter(self, seg: Segment, env: Env, context: str, depth: int) -> None:
        """An interpreter's program: from its code option, its stdin, or a file written here."""
        name = seg.name
        letters = code_options(name) or ""
        texts = [a.text for a in seg.args]
        program: str | None = None
        for k, t in enumerate(texts):
            if letters and re.fullmatch(rf"-[A-Za-z]*[{letters}]", t) and k + 1 < len(texts):
                program = texts[k + 1]
                break
        operands = [t for t in texts if not t.startswith("-")]
        if program is None and seg.stdin is not None and not operands:
            program = seg.stdin
        if program is None and not operands and seg.stdin_unknown:
            self.unknown(
                seg,
                "payload",
                f"'{name}' runs a program read from a pipe whose text is only known at run time; "
                "save the program first and run it by name once its text can be read",
            )
            return
        if program is None and operands:
            written = self.written_text(Arg(operands[0]), env)
            if written is None:
                self.unknown(
                    seg,
                    "payload",
                    f"'{operands[0]}' is run by {name} after this same command wrote it with content only "
                    "known at run time; write and run it in separate calls so its text can be read first",
                )
                return
            program = written if isinstance(written, str) else None
        if program is not None and not known(program):
            self.unknown(
                seg,
                "payload",
                f"the program '{name}' is given is only known at run time; write the program text plainly",
            )
            return
        self.interpreter_code(seg, program or "", env, context, depth)

    def interpreter_code(self, seg: Segment, program: str, env: Env, context: str, depth: int) -> None:
        """What an interpreter's program does (``registry.code``), screened like commands."""
        code = code_effects(program)
        if code.danger is not None:
            self.emit(seg, [Change("fork_bomb", f"the {seg.name} program {code.danger}")])
            return
        for text in code.commands:
            self.payload(seg, Payload(f"{seg.name} program", text), env, [], context=context, depth=depth)
        for target in code.writes:  # the program writes the file itself: no redirection of the shell's
            written = Segment(
                seg.raw,
                Resolved(argv=[Arg(seg.name), Arg(target)], writes=[Arg(target)]),
                [],
                seg.cwd,
                seg.context,
            )
            self.screen(written)

    # ----------------------------------------------------------------- state


def run_effect(seg: Segment) -> Run:
    """The program that runs, with what the sudo, interop and allow-list rules judge."""
    privileged = list(seg.resolved.privileged)
    if seg.argv and is_a(strip_windows_extension(seg.name), "privilege"):
        privileged.append(seg.name)
    candidates = [*seg.resolved.wrappers, *(a.text for a in seg.argv[:1])]
    windows = next((basename(t) for t in candidates if _is_windows_program(t, seg.cwd)), None)
    windows_path = None
    if seg.argv and seg.search_path and "/" not in seg.argv[0].text and not is_a(seg.name, "builtin"):
        windows_path = next(
            (d for d in seg.search_path.split(":") if mount_of(normalize(d)) is not None), None
        )
    glob = bool(seg.argv) and _is_glob_name(seg.argv[0])
    return Run(seg.name, tuple(privileged), windows, windows_path, is_a(seg.name, "implicit"), glob)


def _is_glob_name(arg: Arg) -> bool:
    """Does the program word hold an unquoted glob bash would expand (``/bin/r?``, ``/usr/*/rm``)?"""
    return (
        arg.glob and not is_a(arg.text, "bracket") and bool(re.search(r"[*?]|\[[^\]]+\]|[@!+]\(", arg.text))
    )


def _is_windows_program(text: str, cwd: str | None) -> bool:
    return is_windows_name(basename(text)) or ("/" in text and mount_of(resolve(text, cwd, None)) is not None)


def segment_effects(seg: Segment) -> list[Effect]:
    """Everything one command does: it runs, its redirections open files, its program's effects."""
    effects: list[Effect] = [run_effect(seg)]
    for op, target in seg.redirect_writes:
        effects.append(Write(target, _HOW_OF_OP.get(op, "overwrite"), op=op))  # type: ignore[arg-type]
    effects.extend(Read(a) for a in seg.redirect_reads)
    effects.extend(Write(a, "overwrite") for a in seg.resolved.writes)
    for wrapper, args in seg.resolved.steps:
        effects.extend(wrapper_effects(basename(wrapper), args, seg.raw))
    if seg.argv:
        effects.extend(effects_of(seg.name, seg.args, seg.raw))
    return effects


def _evals_environment_setup(cmd: Simple, env: Env, expander: Expander) -> bool:
    """``eval "$(ssh-agent -s)"``, ``eval "$(pyenv init -)"``: eval of what an installed tool prints
    to set up the shell (variables, PATH, hooks). The tool is named and screened; its output is
    the tool's, not text the agent was handed."""
    if len(cmd.words) < 2 or not is_a(cmd.words[0].raw, "evaluator"):
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
    return any(r.op in OUTPUT_OPS for r in cmd.redirects) or any(
        isinstance(part, ProcessSub) for word in cmd.words for part in word.parts
    )


def _calls_itself_in_parallel(body: Command, fn: str) -> bool:
    """Does a function body run its own name in a pipeline or in the background?"""
    stack: list[Command] = [body]
    seen = 0
    while stack and seen < 10_000:
        seen += 1
        node = stack.pop()
        if isinstance(node, Compound):
            for script in node.bodies:
                for p in script.pipelines:
                    calls = sum(1 for c in p.commands if _is_call(c, fn))
                    if calls and (len(p.commands) > 1 or p.background):
                        return True
                    stack.extend(p.commands)
        elif isinstance(node, FunctionDef):
            stack.append(node.body)
    return False


def _is_call(command: Command, fn: str) -> bool:
    if not isinstance(command, Simple) or not command.words:
        return False
    first = command.words[0]
    return len(first.parts) == 1 and isinstance(first.parts[0], Lit) and first.parts[0].text == fn


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
