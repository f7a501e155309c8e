"""Static expansion: what a word becomes when the guard can know it, and a marker where it cannot.

A value the guard cannot know (an unset or run-time variable, the output of a real command) is
carried as ``UNKNOWN`` (may be empty) or ``UNKNOWN_SET`` (known to be non-empty, e.g. ``${x:?}``).
``Arg.worst`` is the value with every ``UNKNOWN`` taken as empty: ``rm -rf "$DIR/"`` is judged
as ``rm -rf /``, which is exactly what it does when ``DIR`` is unset.

Static evaluation covers variables assigned earlier in the same script, ``$HOME``/``~``/``$PWD``/
``$USER`` when the policy knows them, brace expansion, field splitting, and the output of the
commands a careful reader can evaluate: ``echo``, ``printf``, ``pwd``, ``cat`` of a here-document
or here-string, and ``base64 -d`` of such output.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from wslmcp.shell.guard.limits import MAX_FIELDS, MAX_VALUE_CHARS, Budget
from wslmcp.shell.guard.reader import decode_ansi_c
from wslmcp.shell.guard.registry.outputs import static_output
from wslmcp.shell.guard.syntax import (
    OUTPUT_OPS,
    Arith,
    Assign,
    CommandSub,
    Lit,
    Param,
    Part,
    ProcessSub,
    Redirect,
    Script,
    Simple,
    Word,
)
from wslmcp.shell.guard.values import UNKNOWN, UNKNOWN_SET, Arg, basename, known

_GLOB = re.compile(r"[*?\[]|[@!+]\(")


@dataclass
class Env:
    """What the guard knows while walking a script: variables, the working directory, the home."""

    home: str | None
    user: str | None
    cwd: str | None
    vars: dict[str, str] = field(default_factory=dict)
    positional: list[str] | None = None
    arrays: dict[str, list[str]] = field(default_factory=dict)  # indexed arrays of known elements
    integers: set[str] = field(default_factory=set)  # declared -i: assignments are arithmetic
    namerefs: dict[str, str] = field(default_factory=dict)  # declared -n: the variable a name stands for

    def child(self) -> Env:
        return Env(
            self.home,
            self.user,
            self.cwd,
            dict(self.vars),
            self.positional,
            dict(self.arrays),
            set(self.integers),
            dict(self.namerefs),
        )

    def home_text(self) -> str:
        return self.home or "~"


# --------------------------------------------------------------------- brace expansion


def brace_expand(text: str, limit: int = MAX_FIELDS) -> list[str] | None:
    """Bash brace expansion of an unquoted literal; None past ``limit`` results."""
    results = _brace(text, limit)
    return results


def _brace(text: str, limit: int) -> list[str] | None:
    start = text.find("{")
    while start >= 0:
        depth = 0
        commas: list[int] = []
        end = -1
        for j in range(start, len(text)):
            ch = text[j]
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    end = j
                    break
            elif ch == "," and depth == 1:
                commas.append(j)
        if end < 0:
            return [text]
        inner = text[start + 1 : end]
        alternatives: list[str] | None = None
        if commas:
            bounds = [start, *commas, end]
            alternatives = [text[bounds[k] + 1 : bounds[k + 1]] for k in range(len(bounds) - 1)]
        else:
            alternatives = _sequence(inner, limit)
        if alternatives is None:
            start = text.find("{", start + 1)
            continue
        prefix, suffix = text[:start], text[end + 1 :]
        out: list[str] = []
        for alt in alternatives:
            expanded = _brace(prefix + alt + suffix, limit)
            if expanded is None:
                return None
            out.extend(expanded)
            if len(out) > limit:
                return None
        return out
    return [text]


def _sequence(inner: str, limit: int) -> list[str] | None:
    m = re.fullmatch(r"(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?", inner)
    if m:
        a, b = int(m.group(1)), int(m.group(2))
        step = abs(int(m.group(3) or 1)) or 1
        if abs(b - a) // step > limit:
            return [UNKNOWN_SET]
        rng = range(a, b + 1, step) if a <= b else range(a, b - 1, -step)
        return [str(x) for x in rng]
    m = re.fullmatch(r"([A-Za-z])\.\.([A-Za-z])", inner)
    if m:
        a, b = ord(m.group(1)), ord(m.group(2))
        rng = range(a, b + 1) if a <= b else range(a, b - 1, -1)
        return [chr(x) for x in rng]
    return None


# --------------------------------------------------------------------- words


class Expander:
    """Expands words against an ``Env``; ``output_of`` evaluates command substitutions."""

    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self.process_files: dict[str, str | None] = {}  # /dev/fd/N of a process substitution -> its output

    def words(self, words: list[Word], env: Env) -> list[Arg]:
        out: list[Arg] = []
        for w in words:
            out.extend(self.word(w, env))
        return out

    def word(self, word: Word, env: Env) -> list[Arg]:
        self.budget.spend(1 + len(word.raw) // 8)
        variants = self._brace_variants(word.parts)
        if variants is None:
            return [Arg(UNKNOWN)]
        out: list[Arg] = []
        for parts in variants:
            out.extend(self._fields(parts, env))
            if len(out) > MAX_FIELDS:
                return [Arg(UNKNOWN)]
        return out

    def single(self, word: Word, env: Env) -> Arg:
        """The word expanded as one value (assignment values, redirection targets, ``case`` subjects)."""
        args = self._fields(word.parts, env, split=False)
        return args[0] if args else Arg("")

    def _brace_variants(self, parts: list[Part]) -> list[list[Part]] | None:
        variants: list[list[Part]] = [[]]
        for part in parts:
            if isinstance(part, Lit) and not part.quoted and "{" in part.text and "}" in part.text:
                alts = brace_expand(part.text)
                if alts is None:
                    return None
                variants = [[*v, Lit(a, False)] for v in variants for a in alts]
                if len(variants) > MAX_FIELDS:
                    return None
            else:
                for v in variants:
                    v.append(part)
        return variants

    def _fields(self, parts: list[Part], env: Env, split: bool = True) -> list[Arg]:
        out = _Fields()
        for index, part in enumerate(parts):
            if isinstance(part, Lit):
                text = self._tilde(part.text, env) if index == 0 and not part.quoted else part.text
                out.add(text, not part.quoted and bool(_GLOB.search(text)))
                continue
            items = self._items(part, env)
            if items is not None:
                out.items(items)  # "$@", "${a[@]}": one field per item, joined to the text around it
                continue
            value, quoted = self._value(part, env)
            ifs = self.lookup("IFS", env) if split and not quoted else " "
            if not quoted and split and not known(ifs) and value:
                value = UNKNOWN  # split by a separator only known at run time
            if quoted or not split or not known(value) or not ifs:
                out.add(value, present=quoted or not split or bool(value))
            else:
                out.split(value, ifs)
        if out.present or not split:
            out.cut(keep_empty=True)
        return out.done

    def _items(self, part: Part, env: Env) -> list[str] | None:
        """The items of ``"$@"`` or ``"${name[@]}"`` when known (one field each), else None."""
        if not isinstance(part, Param) or not part.quoted or part.op:
            return None
        if part.index is None:
            return env.positional[1:] if part.name == "@" and env.positional is not None else None
        if part.index.raw == "@" and part.name in env.arrays:
            return list(env.arrays[part.name])
        return None

    def _process_file(self, part: ProcessSub, env: Env) -> str:
        """The file name bash gives a process substitution (``/dev/fd/63``, ``/dev/fd/62``…); what a
        ``<(…)`` prints, when known, is that file's content."""
        path = f"/dev/fd/{63 - len(self.process_files) % 50}"
        if path not in self.process_files and part.direction == "<":
            self.process_files[path] = self.output_of(part.body, env.child())
        return path

    def _tilde(self, text: str, env: Env) -> str:
        if not text.startswith("~"):
            return text
        m = re.match(r"~([A-Za-z0-9_.-]*)(?=/|$)", text)
        if not m:
            return text
        user = m.group(1)
        if not user:
            base = env.home_text()
        elif user == "root":
            base = "/root"
        else:
            base = f"/home/{user}"
        return base + text[m.end() :]

    def _value(self, part: Part, env: Env) -> tuple[str, bool]:
        if isinstance(part, Param):
            return self._param(part, env), part.quoted
        if isinstance(part, CommandSub):
            out = self.output_of(part.body, env)
            if out is None:
                return UNKNOWN, part.quoted
            return out.rstrip("\n"), part.quoted
        if isinstance(part, ProcessSub):
            return self._process_file(part, env), True
        if isinstance(part, Arith):
            return UNKNOWN_SET, True
        return "", True

    def _element(self, part: Param, env: Env) -> str:
        """``${name[index]}``: an element, or every element joined (``@``, ``*``), when known."""
        assert part.index is not None
        items = env.arrays.get(part.name)
        if part.index.raw in ("@", "*"):
            return " ".join(items) if items is not None else UNKNOWN
        index = self.single(part.index, env).text
        if re.fullmatch(r"\d+", index) and items is not None:
            return items[int(index)] if int(index) < len(items) else ""
        if index in ("0", "") and part.name not in env.arrays:
            return self.lookup(part.name, env)
        return UNKNOWN

    def _param(self, part: Param, env: Env) -> str:
        if part.index is not None and part.op not in _DEFAULTING:
            return UNKNOWN if part.op != "#len" else UNKNOWN_SET
        value = self.lookup(part.name, env) if part.index is None else self._element(part, env)
        op = part.op
        if not op:
            return value
        if op == "#len":
            return UNKNOWN_SET
        if op == "!":
            return self.lookup(value, env) if re.fullmatch(r"[A-Za-z_]\w*", value) else UNKNOWN
        arg = self.single(part.arg, env).text if part.arg is not None else ""
        if op in _DEFAULTING:
            return _defaulted(value, op, arg)
        if op.startswith("!") or not known(value) or not known(arg):
            return UNKNOWN if value != "" else ""
        evaluated = _operate(value, op, arg)
        return UNKNOWN if evaluated is None else evaluated

    def lookup(self, var: str, env: Env) -> str:
        if var in env.vars:
            return env.vars[var]
        if var == "HOME":
            return env.home_text()
        if var == "IFS":
            return " \t\n"
        if var == "PWD":
            return env.cwd or UNKNOWN_SET
        if var in ("USER", "LOGNAME"):
            return env.user or UNKNOWN_SET
        if re.fullmatch(r"[0-9]+", var) and env.positional is not None:
            k = int(var)
            return env.positional[k] if k < len(env.positional) else ""
        if var in ("@", "*") and env.positional is not None:
            return " ".join(env.positional[1:])
        if var in ("$", "!", "?", "#", "-", "RANDOM", "SECONDS", "LINENO", "BASHPID", "PPID", "UID", "EUID"):
            return UNKNOWN_SET
        return UNKNOWN

    def assign(self, a: Assign, env: Env) -> None:
        """Set ``a.name`` in ``env``: a scalar, an element, or an array of known elements."""
        if a.array is not None:
            self._assign_array(a, env)
            return
        value = self.single(a.value, env).text
        if a.index is not None:
            self._assign_element(a, value, env)
            return
        if a.append:
            value = self.lookup(a.name, env) + value
        if len(value) > MAX_VALUE_CHARS:
            value = UNKNOWN
        env.vars[a.name] = value
        if a.name in env.arrays:
            env.arrays[a.name] = [value, *env.arrays[a.name][1:]]

    def _assign_array(self, a: Assign, env: Env) -> None:
        assert a.array is not None
        values = self.words(a.array, env)
        known = (
            len(values) <= MAX_FIELDS
            and all(v.static for v in values)
            and not any(re.match(r"\[[^\]]*\]=", w.raw) for w in a.array)
        )
        if not known or (a.append and a.name not in env.arrays and a.name in env.vars):
            env.arrays.pop(a.name, None)
            env.vars[a.name] = UNKNOWN  # elements only known at run time: their uses are unknown
            return
        items = [v.text for v in values]
        if a.append:
            items = env.arrays.get(a.name, []) + items
        env.arrays[a.name] = items
        env.vars[a.name] = items[0] if items else ""

    def _assign_element(self, a: Assign, value: str, env: Env) -> None:
        assert a.index is not None
        index = self.single(a.index, env).text
        items = env.arrays.get(a.name)
        if items is None or not re.fullmatch(r"\d+", index) or int(index) > MAX_FIELDS or a.append:
            env.arrays.pop(a.name, None)
            env.vars[a.name] = UNKNOWN  # elements only known at run time: their uses are unknown
            return
        k = int(index)
        items = items + [""] * (k + 1 - len(items))
        items[k] = value
        env.arrays[a.name] = items
        env.vars[a.name] = items[0]

    # ----------------------------------------------------------------- static outputs

    def output_of(self, script: Script, env: Env) -> str | None:
        """What ``script`` prints, when that is knowable without running anything."""
        if not script.pipelines:
            return ""
        if len(script.pipelines) != 1 or script.pipelines[0].background:
            return None
        data: str | None = ""
        for command in script.pipelines[0].commands:
            if not isinstance(command, Simple):
                return None
            data = self.simple_output(command, env, data)
            if data is None:
                return None
        if data is not None and len(data) > MAX_VALUE_CHARS:
            return None
        return data

    def stdin_of(self, redirects: list[Redirect], env: Env, piped: str | None) -> str | None:
        """The static stdin of a command: a here-document, a here-string, or what was piped in."""
        data = piped
        for r in redirects:
            if r.heredoc is not None:
                body = r.heredoc.body
                data = self.single(body, env).text if body is not None else ""
                if UNKNOWN in data or UNKNOWN_SET in data:
                    data = None
            elif r.op == "<<<" and r.target is not None:
                value = self.single(r.target, env)
                data = value.text + "\n" if value.static else None
            elif r.op == "<" and r.fd in ("", "0"):
                data = None
                if (
                    r.target is not None
                    and len(r.target.parts) == 1
                    and isinstance(r.target.parts[0], ProcessSub)
                ):
                    data = self.output_of(r.target.parts[0].body, env.child())
        return data

    def simple_output(self, command: Simple, env: Env, piped: str | None) -> str | None:
        if any(r.op in OUTPUT_OPS and r.op != "<>" and r.fd in ("", "1") for r in command.redirects):
            return ""
        return self.printed(command, env, piped)

    def printed(self, command: Simple, env: Env, piped: str | None) -> str | None:
        """What ``command`` writes to its standard output, wherever that goes, when knowable."""
        args = self.words(command.words, env)
        if not args or not all(a.static for a in args):
            return None
        stdin = self.stdin_of(command.redirects, env, piped)
        return static_output(basename(args[0].text), [a.text for a in args[1:]], stdin, env.cwd)


_DEFAULTING = ("", ":-", "-", ":=", "=", ":?", "?", ":+", "+")


def _defaulted(value: str, op: str, arg: str) -> str:
    """``${x:-arg}``, ``${x=arg}``, ``${x:?}``, ``${x:+arg}`` and their colon-less forms."""
    if op in (":-", "-", ":=", "="):
        if value == UNKNOWN:
            return arg if arg else UNKNOWN
        return value if value or op in ("-", "=") else arg
    if op in (":?", "?"):
        return UNKNOWN_SET if value in (UNKNOWN, "") else value
    return UNKNOWN if value == UNKNOWN else (arg if value else "")


class _Fields:
    """Fields being built: the current one's text, whether it holds unquoted glob characters and
    whether it exists yet (an empty quoted string is a field), and the finished ones."""

    def __init__(self) -> None:
        self.done: list[Arg] = []
        self.current: list[str] = []
        self.glob = False
        self.present = False

    def add(self, text: str, glob: bool = False, present: bool = True) -> None:
        self.current.append(text)
        self.glob = self.glob or glob
        self.present = self.present or present

    def cut(self, keep_empty: bool = False) -> None:
        if self.present or keep_empty:
            self.done.append(Arg("".join(self.current), self.glob))
        self.current, self.glob, self.present = [], False, False

    def items(self, items: list[str]) -> None:
        for k, item in enumerate(items):
            if k > 0:
                self.cut(keep_empty=True)
            self.add(item)

    def split(self, value: str, ifs: str) -> None:
        for k, piece in enumerate(re.split("[" + re.escape(ifs) + "]+", value)):
            if k > 0:
                self.cut()
            if piece:
                self.add(piece, bool(_GLOB.search(piece)))


def _operate(value: str, op: str, arg: str) -> str | None:
    """``${x<op>arg}`` for a known value: substrings, case changes, pattern removal, substitution,
    and the transformations ``@Q`` (quoted), ``@E`` (escapes), ``@U``/``@u``/``@L`` (case)."""
    if op == "@":
        return _transform(value, arg)
    if op == ":" and re.fullmatch(r"\s*-?\d+\s*(:\s*-?\d+\s*)?", arg):
        offset, _, length = arg.partition(":")
        start = int(offset)
        start = max(len(value) + start, 0) if start < 0 else start
        if not length.strip():
            return value[start:]
        n = int(length)
        return value[start : start + n] if n >= 0 else value[start : len(value) + n]
    if op in ("^^", ",,", "^", ",") and not arg:
        change = str.upper if op[0] == "^" else str.lower
        return change(value) if len(op) == 2 else change(value[:1]) + value[1:]
    if op in ("#", "##", "%", "%%"):
        return _remove_pattern(value, op, arg)
    if op in ("/", "//") and arg:
        find, _, repl = arg.partition("/")
        if not find or find[0] in "#%":
            return None
        return re.sub(_glob_regex(find), lambda _: repl, value, count=0 if op == "//" else 1, flags=re.S)
    return None


def _remove_pattern(value: str, op: str, arg: str) -> str:
    """``${x#p}`` ``${x##p}`` ``${x%p}`` ``${x%%p}``: the shortest or longest prefix or suffix removed."""
    pattern = _glob_regex(arg)
    spans = range(len(value) + 1)
    if op[0] == "#":
        cuts = [k for k in spans if re.fullmatch(pattern, value[:k], re.S)]
        return value[(max(cuts) if op == "##" else min(cuts)) :] if cuts else value
    cuts = [k for k in spans if re.fullmatch(pattern, value[k:], re.S)]
    return value[: (min(cuts) if op == "%%" else max(cuts))] if cuts else value


def _transform(value: str, letter: str) -> str | None:
    if letter == "Q":
        return "'" + value.replace("'", "'\\''") + "'"
    if letter == "E":
        return decode_ansi_c(value)
    if letter in ("U", "L"):
        return value.upper() if letter == "U" else value.lower()
    return value[:1].upper() + value[1:] if letter == "u" else None


def _glob_regex(pattern: str) -> str:
    out: list[str] = []
    for ch in pattern:
        out.append(".*?" if ch == "*" else "." if ch == "?" else re.escape(ch))
    return "".join(out)
