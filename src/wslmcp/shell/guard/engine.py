"""The guard engine: reads a command, walks everything that would run, applies the rule layers.

The walk follows the script in order, tracking what a careful reader can know: variables assigned
earlier, the working directory after ``cd``, functions defined, Windows executables copied under a
new name. Every command substitution, process substitution, ``-c`` payload, ``eval`` text,
here-document fed to a shell and ``find -exec``/``xargs`` command is screened with the same rules.
"""

from __future__ import annotations

import re

from wslmcp.shell.guard import Access, Decision, Policy
from wslmcp.shell.guard.effects import interpreter_payloads
from wslmcp.shell.guard.expand import UNKNOWN, UNKNOWN_SET, Arg, Env, Expander
from wslmcp.shell.guard.limits import MAX_COMMAND_CHARS, MAX_PAYLOAD_DEPTH, Budget, GuardLimit
from wslmcp.shell.guard.paths import (
    local_form,
    mount_of,
    normalize,
    operator_label,
    resolve,
)
from wslmcp.shell.guard.reader import read
from wslmcp.shell.guard.rules import (
    NOTHING_RUN,
    Refused,
    Segment,
    check_segment,
    refuse,
)
from wslmcp.shell.guard.syntax import (
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
from wslmcp.shell.guard.vocabulary import code_options, family, is_a
from wslmcp.shell.guard.wrappers import Resolved, basename
from wslmcp.shell.guard.wrappers import resolve as resolve_wrappers

_SOURCERS = family("sourcer") | family("shell")
_SUB = " (inside a command substitution)"
CWD_METACHARACTERS = "`$;|&<>(){}!*?[]\\\"'\n\r\t"
_OUTPUT_OPS = (">", ">>", ">|", "&>", "&>>", "<>")
_DECLARERS = family("declarer")


class _Walker:
    def __init__(self, policy: Policy, budget: Budget) -> None:
        self.policy = policy
        self.budget = budget
        self.expander = Expander(budget)
        self.aliases: dict[str, str] = {}
        self.functions: dict[str, Command] = {}
        self.seen: list[str] = []
        self.calling: set[str] = set()

    def check(self, seg: Segment) -> None:
        self.seen.extend(basename(w) for w in seg.resolved.wrappers)
        if seg.argv:
            self.seen.append(seg.name)
        check_segment(self.policy, seg)

    # ----------------------------------------------------------------- scripts

    def text(self, text: str, env: Env, context: str, depth: int) -> None:
        if depth > MAX_PAYLOAD_DEPTH:
            raise GuardLimit(
                "parse.too_deep",
                f"the command nests shells, eval or payloads more than {MAX_PAYLOAD_DEPTH} levels deep, "
                "too deep to screen reliably",
            )
        self.script(read(text, self.budget), env, context, depth)

    def script(self, script: Script, env: Env, context: str, depth: int) -> None:
        for pipeline in script.pipelines:
            self.pipeline(pipeline, env, context, depth)

    def pipeline(self, pipeline: Pipeline, env: Env, context: str, depth: int) -> None:
        alone = len(pipeline.commands) == 1 and not pipeline.background
        piped: str | None = None
        for command in pipeline.commands:
            scope = env if alone else env.child()
            self.command(command, scope, context, depth, piped)
            piped = (
                self.expander.simple_output(command, scope, piped) if isinstance(command, Simple) else None
            )

    def command(self, command: Command, env: Env, context: str, depth: int, piped: str | None) -> None:
        self.budget.spend(1)
        if isinstance(command, Simple):
            self.simple(command, env, context, depth, piped)
        elif isinstance(command, Compound):
            self.compound(command, env, context, depth)
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
        self.command(fn.body, env.child(), context, depth, None)
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
            self.command(body, scope, f"{context} (in a call of the function '{name}')", depth + 1, seg.stdin)
        finally:
            self.calling.discard(name)

    def compound(self, c: Compound, env: Env, context: str, depth: int) -> None:
        scope = env.child() if c.kind == "subshell" else env
        for word in c.words:
            self.substitutions(word, scope, context, depth)
        for sub in c.subs:
            self.script(sub, scope.child(), context + _SUB, depth)
        for body in c.bodies:
            self.script(body, scope, context, depth)
        writes = self.redirect_writes(c.redirects, env, context, depth)
        if writes:
            seg = Segment(c.raw.split("\n", 1)[0], Resolved(argv=[]), writes, env.cwd, context)
            self.check(seg)

    # ----------------------------------------------------------------- simple commands

    def substitutions(self, word: Word, env: Env, context: str, depth: int) -> None:
        for part in word.parts:
            if isinstance(part, CommandSub | ProcessSub):
                self.script(part.body, env.child(), context + _SUB, depth)
            elif isinstance(part, Arith):
                for sub in part.subs:
                    self.script(sub, env.child(), context + _SUB, depth)
            elif isinstance(part, Param) and part.arg is not None:
                self.substitutions(part.arg, env, context, depth)

    def redirect_writes(
        self, redirects: list[Redirect], env: Env, context: str, depth: int
    ) -> list[tuple[str, Arg]]:
        """Targets of output redirections as (operator, target); input sources as ("<", source)."""
        writes: list[tuple[str, Arg]] = []
        for r in redirects:
            if r.target is not None:
                self.substitutions(r.target, env, context, depth)
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
            if r.op in _OUTPUT_OPS or (r.op == ">&" and not re.fullmatch(r"\d+-?|-", target.text)):
                writes.append((r.op, target))
            elif r.op == "<":
                writes.append(("<", target))
        return writes

    def simple(self, cmd: Simple, env: Env, context: str, depth: int, piped: str | None) -> None:
        for _, value in cmd.assigns:
            self.substitutions(value, env, context, depth)
        for word in cmd.words:
            self.substitutions(word, env, context, depth)
        writes = self.redirect_writes(cmd.redirects, env, context, depth)
        args = self.expander.words(cmd.words, env)
        args = self.unalias(args, env)
        if not args:
            for name, value in cmd.assigns:
                self.expander.assign(name, value, env)
        stdin = self.expander.stdin_of(cmd.redirects, env, piped)
        resolved = resolve_wrappers(args, stdin)
        cwd = env.cwd
        if resolved.cwd is not None:
            cwd = resolve(resolved.cwd, env.cwd, self.policy.home) if UNKNOWN not in resolved.cwd else None
            cwd = cwd if cwd is not None and cwd.startswith("/") else None
        seg = Segment(cmd.raw, resolved, writes, cwd, context, stdin)
        self.check(seg)
        self.sourced(cmd, env, seg, context, depth)
        if args or writes:
            for payload in resolved.payloads:
                self.payload(
                    seg, payload.text, payload.label, payload.positional, env, context=context, depth=depth
                )
            for label, argv in resolved.nested:
                self.nested(label, argv, seg, env, context=context, depth=depth)
        if resolved.argv:
            self.binary_payloads(seg, env, context, depth)
            self.call(seg, env, context, depth)
            self.after(seg, env)

    def sourced(self, cmd: Simple, env: Env, seg: Segment, context: str, depth: int) -> None:
        """``source <(…)``, ``. <(…)`` and ``bash <(…)`` run what the process substitution prints."""
        if len(cmd.words) < 2 or seg.name not in _SOURCERS:
            return
        for word in cmd.words[1:]:
            if len(word.parts) == 1 and isinstance(word.parts[0], ProcessSub):
                text = self.expander.output_of(word.parts[0].body, env.child())
                if text is not None:
                    self.payload(seg, text, f"{seg.name} <(…)", None, env, context=context, depth=depth)

    def payload(
        self,
        seg: Segment,
        text: str,
        label: str,
        positional: list[str] | None,
        env: Env,
        *,
        context: str,
        depth: int,
    ) -> None:
        if (UNKNOWN in text or UNKNOWN_SET in text) and self.policy.allow_commands is not None:
            raise refuse(
                "allow_commands",
                seg,
                f"the {label} is only known at run time, and this profile only permits {', '.join(self.policy.allow_commands)}",
            )
        child = Env(env.home, env.user, seg.cwd, {}, positional)
        self.text(text, child, f"{context} (inside a '{label.replace(' payload', '')}' payload)", depth + 1)

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
        self.check(seg)
        for payload in resolved.payloads:
            self.payload(
                seg,
                payload.text,
                payload.label,
                payload.positional,
                env,
                context=inner_context,
                depth=depth + 1,
            )
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
                if texts[k] in ("-exec", "-execdir", "-ok", "-okdir"):
                    end = k + 1
                    while end < len(texts) and texts[end] not in (";", "+"):
                        end += 1
                    argv = seg.args[k + 1 : end]
                    if argv:
                        self.nested(f"find {texts[k]}", argv, seg, env, context=context, depth=depth)
                    k = end
                k += 1
        if is_a(name, "awk"):
            from wslmcp.shell.guard.effects import effects

            for text in effects(name, seg.args).payloads:
                self.payload(seg, text, f"{name} system()", None, env, context=context, depth=depth)
        letters = code_options(name)
        if letters is not None:
            program = next(
                (
                    texts[k + 1]
                    for k, t in enumerate(texts)
                    if re.fullmatch(rf"-[A-Za-z]*[{letters}]", t) and k + 1 < len(texts)
                ),
                None,
            )
            if program is None and seg.stdin is not None and all(t.startswith("-") for t in texts):
                program = seg.stdin
            for text in interpreter_payloads(program or ""):
                self.payload(seg, text, f"{name} program", None, env, context=context, depth=depth)
        if name in ("ssh", "scp", "sftp"):
            for k, t in enumerate(texts):
                option = (
                    t[2:]
                    if t.startswith("-o") and len(t) > 2
                    else (texts[k + 1] if t == "-o" and k + 1 < len(texts) else "")
                )
                key, _, value = option.partition("=")
                if key.strip().lower() in ("proxycommand", "localcommand") and value.strip():
                    self.payload(seg, value, f"ssh -o {key.strip()}", None, env, context=context, depth=depth)
        if name == "rsync":
            for k, t in enumerate(texts):
                shell = (
                    t.split("=", 1)[1]
                    if t.startswith("--rsh=")
                    else (texts[k + 1] if t in ("-e", "--rsh") and k + 1 < len(texts) else "")
                )
                if shell:
                    self.payload(seg, shell, "rsync -e", None, env, context=context, depth=depth)

    def after(self, seg: Segment, env: Env) -> None:
        """What a command changes for the commands after it: cwd, variables, copied executables."""
        name = seg.name
        args = seg.args
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
            for a in args:
                m = re.match(r"([A-Za-z_][A-Za-z0-9_]*)=(.*)", a.text, re.S)
                if m:
                    env.vars[m.group(1)] = m.group(2)
        elif name == "unset":
            for a in args:
                env.vars.pop(a.text, None)
        elif name in ("cp", "mv", "install", "ln"):
            operands = [a for a in args if not a.text.startswith("-")]
            if len(operands) >= 2 and all(a.static for a in operands):
                dest = resolve(operands[-1].text, env.cwd, self.policy.home)
                for src in operands[:-1]:
                    source = resolve(src.text, env.cwd, self.policy.home)
                    source = self.aliases.get(source, source)
                    if len(operands) == 2:
                        self.aliases[dest] = source
                    self.aliases[normalize(dest + "/" + basename(src.text))] = source
        elif name == "read":
            for a in args:
                if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", a.text):
                    env.vars.pop(a.text, None)

    def unalias(self, args: list[Arg], env: Env) -> list[Arg]:
        """A binary copied or linked earlier in the script runs as what it was copied from."""
        if not args or not self.aliases or "/" not in args[0].text or not args[0].static:
            return args
        path = resolve(args[0].text, env.cwd, self.policy.home)
        original = self.aliases.get(path)
        return [Arg(original), *args[1:]] if original else args


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
