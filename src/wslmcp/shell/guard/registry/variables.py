"""Variables whose value bash or another program runs: text evaluated even when it was quoted.

A variable set for a program (a prefix assignment, ``export``, ``env NAME=VALUE``) is judged where it
is set, by what its reader does with it:

- shell text: editors, pagers, ``GIT_SSH_COMMAND``, ``PROMPT_COMMAND``, askpass helpers, ``LESSOPEN``;
- prompt text, expanded (``$(…)`` runs) when bash prints it: ``PS0``-``PS4`` (``PS4`` under ``set -x``);
- a function bash imports: ``BASH_FUNC_name%%='() { … }'``;
- options of another program: ``TAR_OPTIONS``, ``MAKEFLAGS``, ``MANOPT``, ``LESS``, ``ZIPOPT``,
  ``npm_config_*``, ``PERL5OPT`` (``-M`` imports are code), ``NODE_OPTIONS`` (modules it preloads);
- code: ``PERL5DB``, ``LUA_INIT``;
- a file a program runs first: ``BASH_ENV``, ``ENV`` (judged when a shell starts), ``PYTHONSTARTUP``;
- a library the loader puts in every program: ``LD_PRELOAD``, ``LD_AUDIT``;
- entries of bash's own tables: ``BASH_ALIASES[name]`` (an alias), ``BASH_CMDS[name]`` (a hashed path).
"""

from __future__ import annotations

import base64
import binascii
import re
import shlex
import urllib.parse
from dataclasses import dataclass, field

from wslmcp.shell.guard.effects import Alias, Effect, Hash
from wslmcp.shell.guard.registry.tables import words
from wslmcp.shell.guard.values import UNKNOWN

SHELL_TEXT = words(
    "EDITOR VISUAL SUDO_EDITOR SYSTEMD_EDITOR PAGER MANPAGER SYSTEMD_PAGER GIT_EDITOR GIT_SEQUENCE_EDITOR "
    "GIT_PAGER GIT_SSH_COMMAND GIT_SSH GIT_EXTERNAL_DIFF GIT_ASKPASS GIT_PROXY_COMMAND SSH_ASKPASS "
    "SUDO_ASKPASS BROWSER LESSOPEN LESSCLOSE PROMPT_COMMAND RSYNC_RSH CVS_RSH FCEDIT TERMINAL"
)
"""Variables whose value a program runs as a command (git's editor, ssh's askpass, less's filter)."""

PROMPTS = words("PS0 PS1 PS2 PS3 PS4")
STARTUP_FILES = ("BASH_ENV", "ENV")
"""Variables naming a file a shell runs before its script."""

_OPTIONS = {
    "TAR_OPTIONS": "tar",
    "MAKEFLAGS": "make",
    "MFLAGS": "make",
    "MANOPT": "man",
    "LESS": "less",
    "ZIPOPT": "zip",
}
_NPM_COMMANDS = frozenset({"script-shell", "shell", "editor", "git", "browser", "viewer"})
_MODULE_OPTIONS = frozenset({"--require", "-r", "--import", "--loader", "--experimental-loader"})
_SYSTEM_LIBRARIES = ("/lib/", "/lib64/", "/lib32/", "/usr/lib/", "/usr/lib64/", "/usr/lib32/")


@dataclass
class HookRuns:
    """What setting one variable makes run: shell text, prompt text (expanded), interpreter code,
    options of another program, files run or loaded, and what cannot be read."""

    texts: list[tuple[str, str]] = field(default_factory=list)
    prompts: list[str] = field(default_factory=list)
    code: list[tuple[str, str]] = field(default_factory=list)  # (interpreter, program text)
    options: list[tuple[str, list[str]]] = field(default_factory=list)  # (program, its arguments)
    files: list[tuple[str, str]] = field(default_factory=list)  # (interpreter, path) it runs first
    unknown: list[str] = field(default_factory=list)


def _split(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:
        return [UNKNOWN]


def _words(text: str) -> list[str]:
    """Split as most programs split an options variable: on blanks, ``\\ `` keeps a blank, double
    quotes group (``MAKEFLAGS``, ``NODE_OPTIONS``, ``PERL5OPT``, ``LESS``)."""
    found = re.findall(r'"([^"]*)"|((?:\\\s|\S)+)', text)
    return [quoted or re.sub(r"\\(\s)", r"\1", bare) for quoted, bare in found]


_CODE_HOOKS = frozenset(
    {"PERL5OPT", "PERL5DB", "LUA_INIT", "NODE_OPTIONS", "LD_PRELOAD", "LD_AUDIT", "PYTHONSTARTUP"}
)


def is_hook(var: str) -> bool:
    """Does some program run (or load code from) ``var``'s value?"""
    return (
        var in SHELL_TEXT
        or var in PROMPTS
        or var in _OPTIONS
        or var in _CODE_HOOKS
        or (var.startswith("BASH_FUNC_") and var.endswith("%%"))
        or (var.lower().startswith("npm_config_") and var[11:].lower().replace("_", "-") in _NPM_COMMANDS)
    )


def hook_runs(var: str, value: str) -> HookRuns:
    """What setting ``var`` to ``value`` makes a program run (empty for an ordinary variable)."""
    runs = HookRuns()
    if var in SHELL_TEXT:
        runs.texts.append((f"{var} command", value))
    elif var in PROMPTS:
        runs.prompts.append(value)
    elif var.startswith("BASH_FUNC_") and var.endswith("%%"):
        runs.texts.append((f"exported function {var[10:-2]}", re.sub(r"^\s*\(\s*\)\s*", "", value)))
    elif var in _OPTIONS:
        runs.options.append((_OPTIONS[var], _split(value) if var == "TAR_OPTIONS" else _words(value)))
    elif var.lower().startswith("npm_config_"):
        key = var[11:].lower().replace("_", "-")
        if key in _NPM_COMMANDS:
            runs.texts.append((f"npm {key}", value))
    elif var == "PYTHONSTARTUP":
        runs.files.append(("python3", value))
    else:
        _code_hooks(var, value, runs)
    return runs


def _code_hooks(var: str, value: str, runs: HookRuns) -> None:
    if var == "PERL5OPT":
        runs.code.extend(("perl", code) for code in _perl_imports(value))
    elif var == "PERL5DB":
        runs.code.append(("perl", value))
    elif var == "LUA_INIT":
        if value.startswith("@"):
            runs.files.append(("lua", value[1:]))
        else:
            runs.code.append(("lua", value))
    elif var == "NODE_OPTIONS":
        _node_modules(value, runs)
    elif var in ("LD_PRELOAD", "LD_AUDIT"):
        foreign = [p for p in re.split(r"[\s:]+", value) if p and not p.startswith(_SYSTEM_LIBRARIES)]
        if foreign:
            runs.unknown.append(
                f"{var} loads '{foreign[0]}' into every program started with it; only libraries installed "
                "under /usr/lib or /lib may be preloaded (code the guard cannot read)"
            )


def _perl_imports(value: str) -> list[str]:
    """``PERL5OPT='-MFoo;code'``: perl runs ``use Foo;code`` before the program."""
    found = []
    for switch in _words(value):
        m = re.match(r"-[Mm](-?)(.+)", switch)
        if m:
            module, _, imports = m.group(2).partition("=")
            found.append(f"use {module}" + (f" split(/,/,q{{{imports}}})" if imports else "") + ";")
    return found


def _node_modules(value: str, runs: HookRuns) -> None:
    """``NODE_OPTIONS``: the modules node loads before the program (a file, or inline code)."""
    words_ = _words(value)
    for k, word in enumerate(words_):
        option, eq, attached = word.partition("=")
        if option not in _MODULE_OPTIONS:
            continue
        module = attached if eq else (words_[k + 1] if k + 1 < len(words_) else "")
        code = _data_url(module)
        if code is not None:
            runs.code.append(("node", code))
        elif module:
            runs.files.append(("node", module))


def _data_url(text: str) -> str | None:
    """The code a ``data:`` URL holds (``data:text/javascript,CODE`` or ``;base64,``)."""
    m = re.match(r"data:[^,]*?(;base64)?,(.*)", text, re.S)
    if m is None:
        return None
    if m.group(1):
        try:
            return base64.b64decode(m.group(2)).decode("utf-8", "replace")
        except (binascii.Error, ValueError):
            return UNKNOWN
    return urllib.parse.unquote(m.group(2))


def table_entries(var: str, pairs: list[tuple[str, str]]) -> list[Effect]:
    """``BASH_ALIASES[name]=text`` defines an alias; ``BASH_CMDS[name]=path`` makes ``name`` run ``path``."""
    if var == "BASH_ALIASES":
        return [Alias(name, text) for name, text in pairs]
    if var == "BASH_CMDS":
        return [Hash(name, path) for name, path in pairs]
    return []


def element_pairs(elements: list[str]) -> list[tuple[str, str]]:
    """``[key]=value`` elements of an array literal, as (key, value)."""
    pairs = []
    for element in elements:
        m = re.match(r"\[([^\]]+)\]=(.*)", element, re.S)
        if m:
            pairs.append((m.group(1), m.group(2)))
    return pairs


def literal_pairs(text: str) -> list[tuple[str, str]]:
    """The ``[key]=value`` pairs of an array literal written as one word (``declare -A t=([k]=v)``)."""
    inner = text.strip()
    if not (inner.startswith("(") and inner.endswith(")")):
        return []
    return element_pairs(_split(inner[1:-1]))
