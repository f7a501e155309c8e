"""The syntax tree the shell reader produces: words made of parts, commands, pipelines, scripts.

Only what the guard needs is kept: which text is literal (and whether it was quoted), where a
parameter or a command substitution sits inside a word, redirections with their targets and
here-document bodies, and the nesting of lists inside compound commands.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Lit:
    """Literal text. ``quoted`` text takes no part in globbing, brace or tilde expansion."""

    text: str
    quoted: bool


@dataclass
class Param:
    """``$name``, ``${name}``, ``${name[index]}`` or ``${name<op>word}``; ``op`` is the operator
    text (``:-``, ``#``, ``@`` for a transformation such as ``${x@P}``, ``#len`` for ``${#x}``,
    ``!`` for indirection); ``index`` is the subscript (an arithmetic expression, or ``@``/``*``)."""

    name: str
    op: str
    arg: Word | None
    quoted: bool
    index: Word | None = None


@dataclass
class CommandSub:
    """``$( … )`` or backticks: the body runs and its output replaces the part."""

    body: Script
    quoted: bool


@dataclass
class ProcessSub:
    """``<( … )`` or ``>( … )``: the body runs and the part becomes a file name."""

    body: Script
    direction: str


@dataclass
class Arith:
    """``$(( … ))``: ``text`` is the expression as written; substitutions inside it run first, and
    bash evaluates the values of the variables it names as expressions too."""

    subs: list[Script]
    quoted: bool
    text: str = ""


Part = Lit | Param | CommandSub | ProcessSub | Arith


@dataclass
class Word:
    parts: list[Part]
    raw: str


@dataclass
class HereDoc:
    """A here-document; ``body`` is filled in when the reader reaches the lines after the command."""

    delimiter: str
    quoted: bool
    strip_tabs: bool
    body: Word | None = None


OUTPUT_OPS = (">", ">>", ">|", "&>", "&>>", "<>")
"""Redirection operators that open their target for writing."""


@dataclass
class Redirect:
    """``fd`` is the explicit descriptor text (``2``, ``{var}``) or ``""``; ``op`` is ``>``, ``>>``,
    ``<``, ``<<<``, ``<<``, ``>&``, ``&>``...; ``target`` is None only for here-documents."""

    fd: str
    op: str
    target: Word | None
    heredoc: HereDoc | None = None


@dataclass
class Assign:
    """``name=value``, ``name+=value``, ``name[index]=value`` or ``name=(element …)``."""

    name: str
    value: Word
    index: Word | None = None
    append: bool = False
    array: list[Word] | None = None


@dataclass
class Simple:
    """A simple command: leading assignments, words, redirections, and the text it was read from."""

    assigns: list[Assign]
    words: list[Word]
    redirects: list[Redirect]
    raw: str


@dataclass
class Compound:
    """``( )``, ``{ }``, if, while, until, for, select, case, ``[[ ]]`` and ``(( ))``.

    ``bodies`` are the lists that run; ``words`` are expanded but not run as commands (a for list,
    a case subject, the operands of ``[[ ]]``); ``subs`` are substitutions inside ``(( ))``;
    ``expr`` is the arithmetic text of ``(( ))`` and ``for (( ))``; ``var`` the loop variable of
    ``for`` and ``select``."""

    kind: str
    bodies: list[Script]
    words: list[Word]
    redirects: list[Redirect]
    raw: str
    subs: list[Script] = field(default_factory=list)
    expr: str = ""
    var: str = ""


@dataclass
class FunctionDef:
    name: str
    body: Command
    raw: str


Command = Simple | Compound | FunctionDef


@dataclass
class Pipeline:
    """``coproc`` pipelines read their stdin from a pipe the script writes to later."""

    commands: list[Command]
    background: bool
    raw: str
    coproc: bool = False


@dataclass
class Script:
    pipelines: list[Pipeline]
