"""Text bash evaluates even when it was quoted, and variables other programs run as code.

An arithmetic context evaluates the value of every variable it names (and expands the subscripts
written in those values); a variable name given as text has its subscript expanded; prompts are
expanded when printed; hook variables (``registry/variables.py``) are judged where they are set,
in the terms of the program that reads them. The walk (``flow.Flow``) supplies how text is run.
"""

from __future__ import annotations

import re

from wslmcp.shell.guard.effects import Payload, Resolved, Segment
from wslmcp.shell.guard.expand import Env
from wslmcp.shell.guard.reader import read_expansions
from wslmcp.shell.guard.registry.builtins import arithmetic_texts, variable_names
from wslmcp.shell.guard.registry.tables import is_a
from wslmcp.shell.guard.registry.variables import hook_runs, is_hook
from wslmcp.shell.guard.syntax import Assign, CommandSub, Param, ProcessSub, Simple, Word
from wslmcp.shell.guard.tracked import Feed, Tracked
from wslmcp.shell.guard.values import Arg, known

STDIN_FILES = frozenset({"/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "-"})
_ARITH_NAME = re.compile(r"\$\{?([A-Za-z_]\w*)|(?<![\w$.])([A-Za-z_]\w*)")
_SUBSCRIPTED = re.compile(r"[A-Za-z_]\w*\[(.*)\]$", re.S)
_ARITH_TESTS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})
MAX_EVALUATED = 64


class Evaluating(Tracked):
    """What bash and other programs evaluate; the walk supplies the methods that run text."""

    def payload(
        self, seg: Segment, payload: Payload, env: Env, prefix: list[Assign], *, context: str, depth: int
    ) -> None:
        raise NotImplementedError

    def substitutions(
        self, word: Word, env: Env, context: str, depth: int, printed: Feed | None = None
    ) -> None:
        raise NotImplementedError

    def interpreter_code(self, seg: Segment, program: str, env: Env, context: str, depth: int) -> None:
        raise NotImplementedError

    def program_runs_of(
        self, seg: Segment, program: str, args: list[Arg], env: Env, *, context: str, depth: int
    ) -> None:
        raise NotImplementedError

    def hooks(self, cmd: Simple, env: Env, stdin: str | None, context: str, depth: int) -> None:
        """Variables this command sets whose value a program runs (``registry.variables``):
        judged where they are set, in the terms of the program that reads them."""
        for var, word, arg in self.assigned_values(cmd, env):
            self.hook(var, arg, word, env, stdin=stdin, raw=cmd.raw, context=context, depth=depth)

    def assigned_values(self, cmd: Simple, env: Env) -> list[tuple[str, Word | None, Arg]]:
        found: list[tuple[str, Word | None, Arg]] = []
        for a in cmd.assigns:
            if not is_hook(a.name):
                continue
            words = a.array if a.array is not None else [a.value] if a.index is None else []
            found.extend((a.name, w, self.expander.single(w, env)) for w in words)
        if cmd.words and is_a(cmd.words[0].raw, "declarer"):
            for word in cmd.words[1:]:
                for arg in self.expander.word(word, env):
                    declared, eq, text = arg.text.partition("=")
                    if eq:
                        found.append((declared, word, Arg(text)))
        return found

    def hook(
        self,
        var: str,
        arg: Arg,
        word: Word | None,
        env: Env,
        *,
        stdin: str | None,
        raw: str,
        context: str,
        depth: int,
    ) -> None:
        if not is_hook(var) or not arg.text:
            return
        seg = Segment(raw, Resolved(argv=[]), [], env.cwd, context, stdin)
        if not arg.static:
            # A value only known at run time comes from the environment, unless the command builds
            # it from what another command prints.
            if word is not None and self.from_output(word, env):
                self.unknown(
                    seg,
                    "payload",
                    f"{var} is set to what a command prints at run time, and a program runs that value; "
                    "write the value itself",
                )
            return
        runs = hook_runs(var, arg.text)
        for label, text in runs.texts:
            self.payload(seg, Payload(label, text), env, [], context=context, depth=depth)
        for text in runs.prompts:
            self.expansions(text, env, context, depth, prompt=True)
        for interpreter, code in runs.code:
            self.code(seg, interpreter, code, env, context=context, depth=depth)
        for program, words in runs.options:
            self.program_runs_of(seg, program, [Arg(w) for w in words], env, context=context, depth=depth)
        for interpreter, path in runs.files:
            self.code_file(seg, interpreter, path, env, context=context, depth=depth)
        for reason in runs.unknown:
            self.unknown(seg, "payload", reason)

    def from_output(self, word: Word, env: Env) -> bool:
        """Does ``word`` hold the output of a command the guard cannot evaluate?"""
        return any(
            isinstance(p, CommandSub | ProcessSub) and self.expander.output_of(p.body, env.child()) is None
            for p in word.parts
        )

    def code(
        self, seg: Segment, interpreter: str, program: str, env: Env, *, context: str, depth: int
    ) -> None:
        """Code an interpreter runs because of a variable or a program's command (``PERL5OPT``, gdb's ``python``)."""
        runner = Segment(seg.raw, Resolved(argv=[Arg(interpreter)]), [], seg.cwd, seg.context, seg.stdin)
        if not known(program):
            self.unknown(
                runner,
                "payload",
                f"the {interpreter} code this runs is only known at run time; write it plainly",
            )
            return
        self.interpreter_code(runner, program, env, context, depth)

    def code_file(
        self, seg: Segment, interpreter: str, path: str, env: Env, *, context: str, depth: int
    ) -> None:
        """A file of code a program runs first: its stdin, or a file this command wrote."""
        if path in STDIN_FILES and seg.stdin is not None:
            self.code(seg, interpreter, seg.stdin, env, context=context, depth=depth)
            return
        written = self.written_text(Arg(path), env)
        if written is None:
            self.unknown(
                seg,
                "payload",
                f"'{path}' is run by {interpreter} after this same command wrote it with content only known at "
                "run time; write and run it in separate calls so its text can be read first",
            )
        elif isinstance(written, str):
            self.code(seg, interpreter, written, env, context=context, depth=depth)

    def expansions(self, text: str, env: Env, context: str, depth: int, *, prompt: bool = False) -> None:
        """Text bash expands when it evaluates it (a prompt, a subscript): its substitutions run.
        A prompt is decoded first (``\\$`` becomes ``$``, which may then start a substitution)."""
        if prompt:
            text = text.replace("\\$", "$").replace("\\[", "").replace("\\]", "")
        if re.search(r"[$`]", text):
            word = read_expansions(text, self.budget)
            self.substitutions(word, env.child(), context + " (in text bash evaluates)", depth)

    def arithmetic(self, text: str, env: Env, context: str, depth: int, *, expand: bool = False) -> None:
        """An arithmetic expression: bash evaluates the value of every variable it names as an
        expression too, and expands the subscripts written in those values (``x='a[$(cmd)]'; ((x))``
        runs ``cmd``). ``expand``: ``text`` itself is a value (``let 'x=a[$(cmd)]'``)."""
        if expand:
            self.expansions(text, env, context, depth)
        seen: set[str] = set()
        pending = [text]
        while pending and len(seen) < MAX_EVALUATED:
            for m in _ARITH_NAME.finditer(pending.pop()):
                var = m.group(1) or m.group(2)
                if var in seen:
                    continue
                seen.add(var)
                for value in [env.vars.get(var, ""), *env.arrays.get(var, ()), env.namerefs.get(var, "")]:
                    if value and known(value):
                        self.expansions(value, env, context, depth)
                        pending.append(value)

    def variable_name(self, text: str, env: Env, context: str, depth: int) -> None:
        """A variable name given as text (``printf -v``, ``read``, ``[[ -v ]]``, ``${!x}``): bash
        expands and evaluates a subscript written in it."""
        m = _SUBSCRIPTED.match(text)
        if m is not None:
            self.arithmetic(m.group(1), env, context, depth, expand=True)

    def test_words(self, words: list[Word], env: Env, context: str, depth: int) -> None:
        """``[[ … ]]``: arithmetic comparisons evaluate both sides; ``-v`` names a variable."""
        for k, word in enumerate(words):
            if word.raw in _ARITH_TESTS:
                for side in words[k - 1 : k] + words[k + 1 : k + 2]:
                    self.arithmetic(side.raw, env, context, depth)
            elif word.raw == "-v" and k + 1 < len(words):
                self.variable_name(self.expander.single(words[k + 1], env).text, env, context, depth)

    def evaluated_arguments(self, seg: Segment, env: Env, context: str, depth: int) -> None:
        """Arguments a builtin evaluates: variable names (``read 'a[$(cmd)]'``) and arithmetic
        (``let``, ``declare -i``)."""
        if not seg.argv:
            return
        for name in variable_names(seg.name, seg.args):
            if known(name):
                self.variable_name(name, env, context, depth)
        for text in arithmetic_texts(seg.name, seg.args):
            if known(text):
                self.arithmetic(text, env, context, depth, expand=True)

    def parameter(self, part: Param, env: Env, context: str, depth: int) -> None:
        """A parameter's subscript and operand; what bash evaluates in its value: a subscript
        (``${a[$x]}``, ``${!x}``), a substring offset (``${x:$n}``), a prompt (``${x@P}``)."""
        for inner in (part.index, part.arg):
            if inner is not None:
                self.substitutions(inner, env, context, depth)
        if part.index is not None:
            self.arithmetic(part.index.raw, env, context, depth)
        if part.op in (":", "") and part.arg is not None:
            self.arithmetic(part.arg.raw, env, context, depth)
        value = env.vars.get(part.name)
        if value is None or not known(value):
            return
        if part.op == "!":
            self.variable_name(value, env, context, depth)
        elif part.op == "@" and part.arg is not None and part.arg.raw == "P":
            self.expansions(value, env, context, depth, prompt=True)
