"""What a program lists: the trees whose names it prints, so that whatever is done to the names
(``xargs rm``, a ``while read`` or ``for`` loop, ``rm -rf $(ls ~)``, ``find -exec shred {}``) is
judged by the tree it reaches, whatever program does it.

A listing prints one word for each name it finds (``values.listed_name``): every name under the
tree (``ls ~``, ``find / -type f``) or only some (a test chose them: ``find ~ -name '*.pyc'``; or a
filter did: ``ls ~ | grep x``, ``find ~ | head``). The word travels through pipes, command
substitutions, ``read`` and ``for`` as any printed text does, and the reach rules read it where it is
deleted or overwritten. A pass-through (``sort``, ``uniq``, ``cat``) keeps every name.
"""

from __future__ import annotations

import re

from wslmcp.shell.guard.paths import normalize
from wslmcp.shell.guard.registry.tables import FIND_RUNNERS, words
from wslmcp.shell.guard.values import LISTED, Arg, listed_name

FIND_GLOBAL_OPTIONS = words(
    "-depth -d -mount -xdev -P -L -H -maxdepth -mindepth -ignore_readdir_race -noleaf"
)
# Tests and operators that choose every name (or are no test at all): they do not narrow a listing.
_CHOOSE_ALL = words(
    "-true -print -print0 -ls -type -xtype -follow -nowarn -warn -daystart -regextype -a -and ( ) ,"
)
_NAME_TESTS = words("-name -iname -path -ipath -wholename -iwholename -lname -ilname")
_REGEX_TESTS = words("-regex -iregex")
_VALUE_TAKING = _NAME_TESTS | _REGEX_TESTS | words("-type -xtype -regextype -maxdepth -mindepth")
_NEGATIONS = words("! -not")
_BRANCHES = words("-o -or")

# A filter of a listing: what it prints of the names on its stdin.
_PASSES_ALL = words("sort uniq tac shuf cat")
_CHOOSES_SOME = words("grep egrep fgrep rg head tail sed awk gawk mawk nawk cut")


def find_roots(args: list[Arg]) -> tuple[list[Arg], int]:
    """``find``'s starting points (before the first option or test) and where its expression begins."""
    roots: list[Arg] = []
    k = 0
    while k < len(args) and not args[k].text.startswith(("-", "(", "!")):
        roots.append(args[k])
        k += 1
    return roots, k


def _matches_all(test: str, value: str) -> bool:
    if test in _NAME_TESTS:
        return value.strip("*") == ""
    return test in _REGEX_TESTS and value in (".*", ".+", "^.*$", ".*$", "^.*")


def _branch_narrows(texts: list[str]) -> bool:
    """One ``-o`` branch of a find expression chooses only some names: it holds a test that does not
    choose every name, and is not negated (``! -name x`` chooses all but a few)."""
    k = 0
    while k < len(texts):
        t = texts[k]
        value = texts[k + 1] if k + 1 < len(texts) else ""
        if t in _NEGATIONS:
            k += 3 if value in _VALUE_TAKING else 2
            continue
        if t in FIND_GLOBAL_OPTIONS or t in _CHOOSE_ALL:
            k += 2 if t in _VALUE_TAKING else 1
            continue
        if t.startswith("-") and not _matches_all(t, value):
            return True
        k += 2 if t in _VALUE_TAKING else 1
    return False


def find_narrows(texts: list[str]) -> bool:
    """A find expression (up to its action) chooses only some of the names under its roots:
    every ``-o`` branch of it narrows (``-name '*'``, ``-type f`` and ``! -name x`` do not)."""
    branches: list[list[str]] = [[]]
    for t in texts:
        if t in _BRANCHES:
            branches.append([])
        else:
            branches[-1].append(t)
    return all(_branch_narrows(b) for b in branches)


def _root(path: str, cwd: str | None) -> str:
    """A listed tree as the names it prints are reached: absolute where the working directory is known."""
    if path.startswith(("/", "~")) or cwd is None:
        return normalize(path)
    return normalize(f"{cwd.rstrip('/')}/{path}")


def _find(args: list[str], stdin: str | None, cwd: str | None) -> str | None:
    """``find ROOTS [EXPR]`` prints the names it finds (unless an action other than printing runs)."""
    parsed = [Arg(a) for a in args]
    roots, start = find_roots(parsed)
    expression = args[start:]
    if any(
        t in FIND_RUNNERS or t in ("-delete", "-fprint", "-fprint0", "-fprintf", "-fls") for t in expression
    ):
        return None
    every = not find_narrows(expression)
    return "".join(listed_name(_root(r.text, cwd), every) + "\n" for r in roots or [Arg(".")])


def _ls(args: list[str], stdin: str | None, cwd: str | None) -> str | None:
    """``ls [OPTIONS] [PATHS]`` prints the names in each directory (``-d DIR/*``: those entries)."""
    every = not any(a.startswith(("-I", "--ignore", "--hide")) for a in args)
    paths = [a for a in args if not a.startswith("-")] or ["."]
    trees = [re.sub(r"/[^/]*[*?\[][^/]*$", "", p) or "/" if re.search(r"[*?\[]", p) else p for p in paths]
    return "".join(listed_name(_root(t, cwd), every) + "\n" for t in dict.fromkeys(trees))


def _fd(args: list[str], stdin: str | None, cwd: str | None) -> str | None:
    """``fd [PATTERN] [PATH...]``: every name under the paths, or those matching the pattern."""
    operands = [a for a in args if not a.startswith("-")]
    if any(a.startswith("-") for a in args):
        return None  # options may take values; read no further
    pattern, paths = (operands[0], operands[1:]) if operands else ("", [])
    every = pattern in ("", ".", "^", ".*")
    return "".join(listed_name(_root(p, cwd), every) + "\n" for p in paths or ["."])


def filtered(name: str, stdin: str | None) -> str | None:
    """What a filter prints of a listing on its stdin (None: its stdin is no listing, or it is no filter)."""
    if stdin is None or LISTED not in stdin:
        return None
    if name in _PASSES_ALL:
        return stdin
    if name in _CHOOSES_SOME:
        return stdin.replace(f"{LISTED}*", f"{LISTED}?")
    return None


LISTERS = {"find": _find, "ls": _ls, "fd": _fd, "fdfind": _fd}
"""The programs that print the names of a tree, as ``outputs`` printers."""
