"""A reader of bash syntax, written for screening: lenient, bounded, and faithful where it matters.

It never raises on a syntax error (an unterminated quote runs to the end, a stray keyword is
skipped): whatever text bash might run is still read and screened. It raises ``GuardLimit`` only
past a structural bound (nesting, work). Every loop consumes input, so reading always ends.

Covered: ``;`` ``&&`` ``||`` ``|`` ``|&`` ``&`` newlines and ``\\``-newline continuations;
``( )`` ``{ }`` ``!`` ``time``; if/while/until/for/select/case, ``[[ ]]``, ``(( ))``, functions;
``$( )``, backticks, ``<( )`` ``>( )``, ``$(( ))``, ``${ }``; here-documents and here-strings;
single, double, ``$'…'`` and ``$"…"`` quoting; leading assignments (arrays too) and redirections
anywhere in a command, with descriptor prefixes (``2>``, ``{fd}>``).
"""

from __future__ import annotations

import re

from wslmcp.shell.guard.limits import MAX_NESTING, Budget, GuardLimit
from wslmcp.shell.guard.syntax import (
    Arith,
    Assign,
    Command,
    CommandSub,
    Compound,
    FunctionDef,
    HereDoc,
    Lit,
    Param,
    Part,
    Pipeline,
    ProcessSub,
    Redirect,
    Script,
    Simple,
    Word,
)

_WORD_END = frozenset(" \t\n;&|()<>")
_BLANK = " \t"
_REDIRECT = re.compile(r"(\d+|\{[A-Za-z_][A-Za-z0-9_]*\})?(&>>|&>|>>|>&|>\||<<<|<<-|<<|<>|<&|<|>)(?!\()")
_ASSIGN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=")
_ASSIGN_HEAD = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(\[.*?\])?(\+?=)", re.DOTALL)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CLOSERS = frozenset({"then", "elif", "else", "fi", "do", "done", "esac", "}", "in"})
_ANSI = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "v": "\v",
    "e": "\x1b",
    "E": "\x1b",
}


def read(text: str, budget: Budget | None = None) -> Script:
    """Read ``text`` as a bash script."""
    return _Reader(text, budget or Budget(), 0).script()


def read_expansions(text: str, budget: Budget | None = None) -> Word:
    """``text`` read as bash expands a value it evaluates (a prompt, an arithmetic subscript, a
    here-document body): parameters and command substitutions are found, quotes are plain text."""
    return Word(_Reader(text, budget or Budget(), 0)._dquote("", heredoc=True), text)


def decode_ansi_c(body: str) -> str:
    """The value of ``$'body'``."""
    out: list[str] = []
    i = 0
    while i < len(body):
        c = body[i]
        if c != "\\" or i + 1 >= len(body):
            out.append(c)
            i += 1
            continue
        e = body[i + 1]
        i += 2
        if e in _ANSI:
            out.append(_ANSI[e])
        elif e == "x":
            m = re.match(r"[0-9a-fA-F]{1,2}", body[i:])
            if m:
                out.append(chr(int(m.group(0), 16)))
                i += len(m.group(0))
            else:
                out.append("\\x")
        elif e in "uU":
            m = re.match(r"[0-9a-fA-F]{1,8}" if e == "U" else r"[0-9a-fA-F]{1,4}", body[i:])
            if m and int(m.group(0), 16) < 0x110000:
                out.append(chr(int(m.group(0), 16)))
                i += len(m.group(0))
            else:
                out.append("\\" + e)
        elif e in "01234567":
            m = re.match(r"[0-7]{0,2}", body[i:])
            digits = e + (m.group(0) if m else "")
            out.append(chr(int(digits, 8) & 0xFF))
            i += len(digits) - 1
        elif e == "c" and i < len(body):
            out.append(chr(ord(body[i]) & 0x1F))
            i += 1
        else:
            out.append(e if e in "\\'\"?" else "\\" + e)
    return "".join(out)


class _Reader:
    def __init__(self, text: str, budget: Budget, nesting: int) -> None:
        budget.spend(len(text) + 1)
        self.s = text
        self.n = len(text)
        self.i = 0
        self.budget = budget
        self.nesting = nesting
        self.pending: list[HereDoc] = []

    # ----------------------------------------------------------------- helpers

    def _enter(self) -> None:
        self.nesting += 1
        if self.nesting > MAX_NESTING:
            raise GuardLimit(
                "parse.too_deep",
                f"the command nests more than {MAX_NESTING} levels of groups, subshells or substitutions, "
                "too deep to screen reliably",
            )

    def _leave(self) -> None:
        self.nesting -= 1

    def _peek(self, k: int = 0) -> str:
        j = self.i + k
        return self.s[j] if j < self.n else ""

    def _skip_blanks(self) -> None:
        while self.i < self.n:
            c = self.s[self.i]
            if c in _BLANK:
                self.i += 1
            elif c == "\\" and self._peek(1) == "\n":
                self.i += 2
            elif c == "\\" and self._peek(1) == "\r" and self._peek(2) == "\n":
                self.i += 3
            else:
                return

    def _skip_comment(self) -> None:
        if self._peek() == "#":
            while self.i < self.n and self.s[self.i] != "\n":
                self.i += 1

    def _skip_space(self) -> None:
        """Blanks, comments and newlines (reading pending here-documents at each newline)."""
        while True:
            self._skip_blanks()
            self._skip_comment()
            if self._peek() == "\n":
                self.i += 1
                self._read_heredocs()
            elif self._peek() == "\r" and self._peek(1) == "\n":
                self.i += 2
                self._read_heredocs()
            else:
                return

    def _plain_word(self) -> str:
        """The unquoted word at the cursor, for keyword detection (not consumed)."""
        j = self.i
        while j < self.n and self.s[j] not in _WORD_END and self.s[j] not in "'\"\\$`":
            j += 1
        if j < self.n and self.s[j] not in _WORD_END:
            return ""
        return self.s[self.i : j]

    def _take_keyword(self, word: str) -> bool:
        if self._plain_word() == word:
            self.i += len(word)
            return True
        return False

    # ----------------------------------------------------------------- lists

    def script(self) -> Script:
        return self._list(stop_chars="", stop_words=frozenset())

    def _list(self, stop_chars: str, stop_words: frozenset[str], in_case: bool = False) -> Script:
        self._enter()
        pipelines: list[Pipeline] = []
        while True:
            self._skip_space()
            if self.i >= self.n:
                break
            c = self.s[self.i]
            if c in stop_chars:
                break
            if in_case and self.s.startswith((";;", ";&"), self.i):
                break
            if c in ";&|" or (c == ")" and ")" not in stop_chars):
                self.i += 1
                continue
            word = self._plain_word()
            if word in stop_words:
                break
            if word in _CLOSERS:
                self.i += len(word)
                continue
            before = self.i
            pipeline = self._pipeline(stop_chars)
            if pipeline.commands:
                pipelines.append(pipeline)
            if self.i == before:
                self.i += 1
        self._leave()
        return Script(pipelines)

    def _pipeline(self, stop_chars: str) -> Pipeline:
        start = self.i
        commands: list[Command] = []
        coproc = False
        while True:
            self._skip_blanks()
            if self._take_keyword("!"):
                continue
            if self._take_keyword("time"):
                self._skip_blanks()
                self._take_keyword("-p")
                continue
            if self._take_keyword("coproc"):
                coproc = True
                self._skip_blanks()
                word = self._plain_word()
                after = self.i + len(word)
                rest = self.s[after:].lstrip(" \t")
                if word and word not in ("{", "(") and rest[:1] in ("{", "("):
                    self.i = after
                continue
            break
        while True:
            self._skip_blanks()
            if self.i >= self.n or self.s[self.i] in stop_chars:
                break
            command = self._command(stop_chars)
            if command is not None:
                commands.append(command)
            self._skip_blanks()
            if self._peek() == "|" and not self.s.startswith("||", self.i):
                self.i += 2 if self.s.startswith("|&", self.i) else 1
                self._skip_space()
                continue
            break
        self._skip_blanks()
        background = False
        if self._peek() == "&" and not self.s.startswith(("&&", "&>"), self.i):
            background = True
            self.i += 1
        elif self.s.startswith(("&&", "||"), self.i):
            self.i += 2
        elif self._peek() == ";" and not self.s.startswith((";;", ";&"), self.i):
            self.i += 1
        return Pipeline(commands, background, self.s[start : self.i].strip(), coproc)

    # ----------------------------------------------------------------- commands

    def _command(self, stop_chars: str) -> Command | None:
        start = self.i
        c = self._peek()
        if c == "(":
            if self.s.startswith("((", self.i):
                self.i += 2
                arith = self._arith_body()
                if arith is not None:
                    subs, expr = arith
                    return Compound("arith", [], [], self._redirects(), self.s[start : self.i], subs, expr)
                self.i = start
            self.i += 1
            body = self._list(")", frozenset())
            if self._peek() == ")":
                self.i += 1
            return Compound("subshell", [body], [], self._redirects(), self.s[start : self.i])
        word = self._plain_word()
        if word == "{":
            self.i += 1
            body = self._list(stop_chars, frozenset({"}"}))
            self._take_keyword("}")
            return Compound("group", [body], [], self._redirects(), self.s[start : self.i])
        if word == "if":
            return self._if(start, stop_chars)
        if word in ("while", "until"):
            self.i += len(word)
            cond = self._list(stop_chars, frozenset({"do"}))
            self._take_keyword("do")
            body = self._list(stop_chars, frozenset({"done"}))
            self._take_keyword("done")
            return Compound(word, [cond, body], [], self._redirects(), self.s[start : self.i])
        if word in ("for", "select"):
            return self._for(start, word, stop_chars)
        if word == "case":
            return self._case(start)
        if word == "[[":
            return self._test(start)
        if word == "function":
            self.i += len(word)
            self._skip_blanks()
            name_word = self._word()
            self._skip_blanks()
            if self.s.startswith("()", self.i):
                self.i += 2
            self._skip_space()
            return self._function_body(start, name_word.raw if name_word else "", stop_chars)
        return self._simple(start, stop_chars)

    def _function_body(self, start: int, name: str, stop_chars: str) -> FunctionDef:
        body = self._command(stop_chars) or Simple([], [], [], "")
        return FunctionDef(name, body, self.s[start : self.i])

    def _if(self, start: int, stop_chars: str) -> Compound:
        self.i += 2
        bodies: list[Script] = []
        while True:
            bodies.append(self._list(stop_chars, frozenset({"then"})))
            self._take_keyword("then")
            bodies.append(self._list(stop_chars, frozenset({"elif", "else", "fi"})))
            if self._take_keyword("elif"):
                continue
            if self._take_keyword("else"):
                bodies.append(self._list(stop_chars, frozenset({"fi"})))
            self._take_keyword("fi")
            break
        return Compound("if", bodies, [], self._redirects(), self.s[start : self.i])

    def _for(self, start: int, keyword: str, stop_chars: str) -> Compound:
        self.i += len(keyword)
        self._skip_blanks()
        subs: list[Script] = []
        words: list[Word] = []
        expr = var = ""
        if self.s.startswith("((", self.i):
            self.i += 2
            subs, expr = self._arith_body() or ([], "")
        else:
            name = self._word()
            var = name.raw if name is not None else ""
            self._skip_space()
            if self._take_keyword("in"):
                while True:
                    self._skip_blanks()
                    if self.i >= self.n or self.s[self.i] in ";\n&|)":
                        break
                    w = self._word()
                    if w is None:
                        break
                    words.append(w)
        self._skip_blanks()
        if self._peek() == ";":
            self.i += 1
        self._skip_space()
        if self._take_keyword("do"):
            body = self._list(stop_chars, frozenset({"done"}))
            self._take_keyword("done")
        else:
            command = self._command(stop_chars)
            body = Script([Pipeline([command], False, "")] if command else [])
        return Compound(keyword, [body], words, self._redirects(), self.s[start : self.i], subs, expr, var)

    def _case(self, start: int) -> Compound:
        self.i += 4
        self._skip_blanks()
        words: list[Word] = []
        subject = self._word()
        if subject is not None:
            words.append(subject)
        self._skip_space()
        self._take_keyword("in")
        bodies: list[Script] = []
        while True:
            self._skip_space()
            if self.i >= self.n or self._take_keyword("esac"):
                break
            if self._peek() == "(":
                self.i += 1
            # patterns: words separated by | up to )
            while self.i < self.n:
                self._skip_blanks()
                if self._peek() == ")":
                    self.i += 1
                    break
                if self._peek() in ("|", "\n"):
                    self.i += 1
                    continue
                w = self._word()
                if w is None:
                    self.i += 1
                else:
                    words.append(w)
            bodies.append(self._list("", frozenset({"esac"}), in_case=True))
            for terminator in (";;&", ";;", ";&"):
                if self.s.startswith(terminator, self.i):
                    self.i += len(terminator)
                    break
        return Compound("case", bodies, words, self._redirects(), self.s[start : self.i])

    def _test(self, start: int) -> Compound:
        self.i += 2
        words: list[Word] = []
        while self.i < self.n:
            self._skip_blanks()
            if self._plain_word() == "]]":
                self.i += 2
                break
            if self._peek() == "\n":
                self._skip_space()
                continue
            w = self._word(test_mode=True)
            if w is None:
                self.i += 1
            else:
                words.append(w)
        return Compound("test", [], words, self._redirects(), self.s[start : self.i])

    def _redirects(self) -> list[Redirect]:
        found: list[Redirect] = []
        while True:
            self._skip_blanks()
            r = self._redirect()
            if r is None:
                return found
            found.append(r)

    def _redirect(self) -> Redirect | None:
        m = _REDIRECT.match(self.s, self.i)
        if not m:
            return None
        self.i = m.end()
        fd, op = m.group(1) or "", m.group(2)
        self._skip_blanks()
        target = self._word()
        if op in ("<<", "<<-"):
            delim = "".join(p.text for p in target.parts if isinstance(p, Lit)) if target else ""
            quoted = target is not None and any(
                (isinstance(p, Lit) and p.quoted) or not isinstance(p, Lit) for p in target.parts
            )
            doc = HereDoc(delim, quoted, op == "<<-")
            self.pending.append(doc)
            return Redirect(fd, op, None, doc)
        return Redirect(fd, op, target)

    def _simple(self, start: int, stop_chars: str) -> Command | None:
        assigns: list[Assign] = []
        words: list[Word] = []
        redirects: list[Redirect] = []
        while True:
            self._skip_blanks()
            if self.i >= self.n:
                break
            c = self.s[self.i]
            if c in stop_chars or c in "\n;|)" or (c == "\r" and self._peek(1) == "\n"):
                break
            if c == "&" and not self.s.startswith(("&>",), self.i):
                break
            r = self._redirect()
            if r is not None:
                redirects.append(r)
                continue
            if c == "#":
                self._skip_comment()
                break
            if c == "(":
                if len(words) == 1 and not assigns and re.match(r"\(\s*\)", self.s[self.i :]):
                    self.i = self.s.index(")", self.i) + 1
                    self._skip_space()
                    return self._function_body(start, words[0].raw, stop_chars)
                break
            word_start = self.i
            w = self._word()
            if w is None:
                break
            self.budget.spend(1)
            if not words and _ASSIGN_HEAD.match(w.raw):
                self.i = word_start
                assign = self._assignment(word_start + len(w.raw))
                if assign is not None:
                    assigns.append(assign)
                    continue
                self.i = word_start + len(w.raw)
            words.append(w)
        if not words and not assigns and not redirects:
            return None
        return Simple(assigns, words, redirects, self.s[start : self.i].strip())

    def _assignment(self, end: int) -> Assign | None:
        """``name[index]+=value`` or ``name=(elements)`` starting at the cursor, within the word
        that ends at ``end``; None (cursor unspecified) when it is not an assignment after all."""
        m = _NAME.match(self.s, self.i)
        if m is None:
            return None
        name = m.group(0)
        self.i = m.end()
        index: Word | None = None
        if self._peek() == "[":
            self.i += 1
            index = self._word(stop="]") or Word([], "")
            if self._peek() != "]" or self.i >= end:
                return None
            self.i += 1
        append = self.s.startswith("+=", self.i)
        if not append and self._peek() != "=":
            return None
        self.i += 2 if append else 1
        if self._peek() == "(" and index is None:
            return Assign(name, Word([], ""), None, append, self._array_elements())
        value = self._word() or Word([], "")
        return Assign(name, value, index, append)

    def _array_elements(self) -> list[Word]:
        """The elements of ``( … )`` after an assignment's ``=``."""
        self.i += 1
        elements: list[Word] = []
        while self.i < self.n:
            self._skip_space()
            if self._peek() == ")":
                self.i += 1
                break
            w = self._word()
            if w is None:
                self.i += 1
                continue
            elements.append(w)
        return elements

    # ----------------------------------------------------------------- words

    def _word(self, test_mode: bool = False, stop: str = "") -> Word | None:
        """Read one word. ``test_mode`` (inside ``[[ ]]``) reads ``<`` ``>`` ``(`` ``)`` ``&&`` ``||``
        as words; ``stop`` adds terminators and makes blanks part of the word (``${x:-a b}``)."""
        start = self.i
        parts: list[Part] = []
        buf: list[str] = []
        while self.i < self.n:
            c = self.s[self.i]
            if c in stop if stop else c in _WORD_END:
                if stop or not self._word_goes_on(c, start, parts, buf, test_mode):
                    break
                continue
            if c == "\\" and self._continuation():
                continue  # removed, as bash does, also inside a word (r\⏎m is rm)
            quoted = self._quoted_parts(c)
            if quoted is None:
                buf.append(c)
                self.i += 1
                continue
            _flush(buf, parts)
            parts.extend(quoted)
        _flush(buf, parts)
        if self.i == start:
            return None
        return Word(parts, self.s[start : self.i])

    def _continuation(self) -> bool:
        """Skip a backslash-newline (LF or CRLF) at the cursor."""
        for ending in ("\\\n", "\\\r\n"):
            if self.s.startswith(ending, self.i):
                self.i += len(ending)
                return True
        return False

    def _quoted_parts(self, c: str) -> list[Part] | None:
        """The parts a quoting or expansion character starts (``\\x``, ``'…'``, ``"…"``, ``$…``,
        backticks); None for a plain character."""
        if c == "\\":
            nxt = self._peek(1)
            self.i += 2 if nxt else 1
            return [Lit(nxt or "\\", True)]
        if c == "'":
            end = self.s.find("'", self.i + 1)
            end = self.n if end < 0 else end
            text = self.s[self.i + 1 : end]
            self.i = min(end + 1, self.n)
            return [Lit(text, True)]
        if c == '"':
            self.i += 1
            return self._dquote('"')
        if c == "$":
            return [self._dollar(quoted=False)]
        if c == "`":
            return [self._backtick(quoted=False)]
        return None

    def _word_goes_on(self, c: str, start: int, parts: list[Part], buf: list[str], test_mode: bool) -> bool:
        """At a character that ends a plain word: does the word go on (``<(…)``, an extended glob,
        an array body, an operator read as a word inside ``[[ ]]``)? Consumes what belongs to it."""
        if c in "<>" and self._peek(1) == "(":
            _flush(buf, parts)
            self.i += 2
            body = self._list(")", frozenset())
            if self._peek() == ")":
                self.i += 1
            parts.append(ProcessSub(body, c))
            return True
        if c == "(" and buf and buf[-1] in "@!+*?":
            buf.append(self._balanced_text())
            return True
        if c == "(" and buf and buf[-1] == "=" and not parts and _ASSIGN.fullmatch("".join(buf)):
            _flush(buf, parts)
            parts.extend(self._array_body())
            return True
        if test_mode and self.i == start and c not in " \t\n":
            j = self.i
            while j < self.n and self.s[j] in "<>()&|!=;":
                j += 1
            buf.append(self.s[self.i : j])
            self.i = j
        return False

    def _balanced_text(self) -> str:
        depth = 0
        j = self.i
        while j < self.n:
            if self.s[j] == "(":
                depth += 1
            elif self.s[j] == ")":
                depth -= 1
                if depth == 0:
                    j += 1
                    break
            j += 1
        text = self.s[self.i : j]
        self.i = j
        return text

    def _array_body(self) -> list[Part]:
        """An array literal inside a word (``declare -a a=(x y)``), kept as that word's parts."""
        parts: list[Part] = [Lit("(", True)]
        for element in self._array_elements():
            parts.extend([*element.parts, Lit(" ", True)])
        parts.append(Lit(")", True))
        return parts

    def _dquote(self, end: str, heredoc: bool = False) -> list[Part]:
        """Read the inside of double quotes (or an unquoted here-document body) up to ``end``."""
        parts: list[Part] = []
        buf: list[str] = []
        escapable = "$`\\\n" if heredoc else '$`"\\\n'

        def flush() -> None:
            if buf:
                parts.append(Lit("".join(buf), True))
                buf.clear()

        while self.i < self.n:
            c = self.s[self.i]
            if end and c == end:
                self.i += 1
                break
            if c == "\\" and self._peek(1) in escapable and self._peek(1):
                if self._peek(1) != "\n":
                    buf.append(self._peek(1))
                self.i += 2
                continue
            if c == "$":
                flush()
                parts.append(self._dollar(quoted=True))
                continue
            if c == "`":
                flush()
                parts.append(self._backtick(quoted=True))
                continue
            buf.append(c)
            self.i += 1
        flush()
        if not parts:
            parts.append(Lit("", True))
        return parts

    def _dollar(self, quoted: bool) -> Part:
        nxt = self._peek(1)
        if nxt == "'" and not quoted:
            end = self.i + 2
            while end < self.n and self.s[end] != "'":
                end += 2 if self.s[end] == "\\" else 1
            quoted_body = self.s[self.i + 2 : min(end, self.n)]
            self.i = min(end + 1, self.n)
            return Lit(decode_ansi_c(quoted_body), True)
        if nxt == '"' and not quoted:
            self.i += 1
            return Lit("", True)
        if nxt == "[":
            return self._old_arith(quoted)
        if self.s.startswith("$((", self.i):
            start = self.i
            self.i += 3
            arith = self._arith_body()
            if arith is not None:
                return Arith(arith[0], quoted, arith[1])
            self.i = start
        if nxt == "(":
            self.i += 2
            self._enter()
            body = self._list(")", frozenset())
            self._leave()
            if self._peek() == ")":
                self.i += 1
            return CommandSub(body, quoted)
        if nxt == "{":
            self.i += 2
            return self._brace_param(quoted)
        if nxt and _NAME.match(nxt):
            m = _NAME.match(self.s, self.i + 1)
            assert m is not None
            self.i = m.end()
            return Param(m.group(0), "", None, quoted)
        if nxt and nxt in "0123456789@*#?-$!":
            self.i += 2
            return Param(nxt, "", None, quoted)
        self.i += 1
        return Lit("$", quoted)

    def _old_arith(self, quoted: bool) -> Part:
        """``$[ expr ]``, bash's old spelling of ``$(( expr ))``."""
        self.i += 2
        start = self.i
        inner = self._word(stop="]") or Word([], "")
        text = self.s[start : self.i]
        if self._peek() == "]":
            self.i += 1
        subs = [p.body for p in inner.parts if isinstance(p, CommandSub)]
        return Arith(subs, quoted, text)

    def _brace_param(self, quoted: bool) -> Part:
        prefix = ""
        if self._peek() in "#!" and self._peek(1) not in "}":
            prefix = self._peek()
            self.i += 1
        m = _NAME.match(self.s, self.i)
        if m:
            name = m.group(0)
            self.i = m.end()
        elif self._peek() and self._peek() in "0123456789@*#?-$!":
            name = self._peek()
            self.i += 1
        else:
            name = ""
        index: Word | None = None
        if self._peek() == "[":
            self.i += 1
            index = self._word(stop="]") or Word([], "")
            if self._peek() == "]":
                self.i += 1
        op_match = re.match(r":?[-=?+]|##?|%%?|//?|\^\^?|,,?|:|@", self.s[self.i :])
        op = op_match.group(0) if op_match else ""
        self.i += len(op)
        arg = self._word(stop="}") if self._peek() != "}" else None
        if self._peek() == "}":
            self.i += 1
        if prefix == "#":
            op = op or "#len"
        elif prefix:
            op = prefix + op
        return Param(name, op, arg, quoted, index)

    def _backtick(self, quoted: bool) -> Part:
        self.i += 1
        body: list[str] = []
        while self.i < self.n and self.s[self.i] != "`":
            c = self.s[self.i]
            if c == "\\" and self._peek(1) in ("`", "$", "\\") + (('"',) if quoted else ()):
                body.append(self._peek(1))
                self.i += 2
                continue
            body.append(c)
            self.i += 1
        self.i = min(self.i + 1, self.n)
        inner = _Reader("".join(body), self.budget, self.nesting + 1)
        inner._enter()
        script = inner.script()
        return CommandSub(script, quoted)

    def _arith_body(self) -> tuple[list[Script], str] | None:
        """Read an arithmetic body up to its closing ``))``: the substitutions inside it, and its text.

        Returns None, with the cursor unspecified, when the parentheses do not close as ``))``:
        bash then reads the text as nested subshells (``((echo a); (echo b))``)."""
        subs: list[Script] = []
        begin = self.i
        depth = 2
        while self.i < self.n:
            c = self.s[self.i]
            if c == "$" and self._peek(1) == "(" and self._peek(2) != "(":
                part = self._dollar(quoted=False)
                if isinstance(part, CommandSub):
                    subs.append(part.body)
                continue
            if c == "`":
                part = self._backtick(quoted=False)
                if isinstance(part, CommandSub):
                    subs.append(part.body)
                continue
            self.i += 1
            if c == "(":
                depth += 1
            elif c == ")":
                if depth == 2:
                    if self._peek() != ")":
                        return None
                    self.i += 1
                    return subs, self.s[begin : self.i - 2]
                depth -= 1
        return subs, self.s[begin:]

    # ----------------------------------------------------------------- here-documents

    def _read_heredocs(self) -> None:
        while self.pending:
            doc = self.pending.pop(0)
            lines: list[str] = []
            while self.i < self.n:
                end = self.s.find("\n", self.i)
                line_end = self.n if end < 0 else end
                line = self.s[self.i : line_end]
                self.i = self.n if end < 0 else end + 1
                check = line.rstrip("\r")
                if doc.strip_tabs:
                    check = check.lstrip("\t")
                    line = line.lstrip("\t")
                if check == doc.delimiter:
                    break
                lines.append(line + "\n")
            text = "".join(lines)
            self.budget.spend(len(text))
            if doc.quoted:
                doc.body = Word([Lit(text, True)], text)
            else:
                sub = _Reader(text, self.budget, self.nesting)
                doc.body = Word(sub._dquote("", heredoc=True), text)


def _flush(buf: list[str], parts: list[Part]) -> None:
    """Unquoted literal text gathered so far becomes a part."""
    if buf:
        parts.append(Lit("".join(buf), False))
        buf.clear()
