"""wsl_search: file contents under a path, with ripgrep when the distro has it and grep otherwise,
giving the same matches either way.

Both engines see the same files in the same order: regular files under the root, hidden ones too,
symlinks not followed, no ignore files, binary files skipped; never a VCS directory (``.git``,
``.hg``, ``.svn``) nor an operator path the guard protects (``OPERATOR_PATHS``: client
configurations, keys, credentials), which are excluded from the walk itself, so they are never
read. ripgrep walks with ``--sort path``; the grep side walks with ``find`` sorted the same way (by
each directory's names, byte order). Both print ``path NUL line-number (':' match | '-' context)
text``; the parser turns that into matches with their context lines, and pages them.

``glob`` takes ripgrep's (gitignore's) rules: without a ``/`` it matches file names at any depth
(``*.py``, ``*.{py,md}``); with one it matches the path below the root (``src/**/*.py``: ``**``
any directories, ``*`` and ``?`` within one name, ``[...]`` a class, ``{a,b}`` either); a leading
``!`` keeps the files it does not match. ripgrep takes it as it is (it matches globs below its
working directory, which the script makes the root); the grep side filters the walk with the same
glob as a regular expression (``glob_regex``). Patterns are regular
expressions (ripgrep's syntax; grep runs them with ``-P``, else ``-E``) unless ``literal``. Without
a pattern the search finds files: the walk's files that the glob keeps, in walk order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

from wslmcp.shell.guard.paths import OPERATOR_PATHS
from wslmcp.shell.runner import quote

DEFAULT_RESULTS = 100
MAX_RESULTS = 1000
MAX_CONTEXT = 10
MAX_OUTPUT = 8 * 1024 * 1024  # bytes of engine output read; past it the search is cut
MAX_LINE_CHARS = 500
VCS_DIRS = (".git", ".hg", ".svn")

# an engine's own note on stdout (ripgrep's about a binary file it stopped in), not a record
_NOTE = re.compile(
    rb': (?:WARNING: stopped searching binary file after match|binary file matches) \(found "\\0" byte around offset \d+\)$'
)
_RECORD = re.compile(rb"(\d+)([:-])")
_FAST = re.compile(rb"([^\0\n]*)\0(\d+)([:-])([^\n]*)\n")


@dataclass(frozen=True)
class Query:
    pattern: str | None  # None: find files, by ``glob``
    literal: bool = False
    ignore_case: bool = False
    context: int = 0
    glob: str | None = None


class BadGlob(ValueError):
    """A glob that cannot be read (an unclosed ``[`` or ``{``), with the reason."""


def check_glob(glob: str) -> None:
    """Raises ``BadGlob`` for a glob ``glob_regex`` cannot read (and ripgrep would refuse)."""
    if "\0" in glob or "\n" in glob:
        raise BadGlob("it holds a line break or a NUL byte")
    glob_regex("/", glob)


def _plain(glob: str) -> bool:
    """A glob find's ``-name`` takes as ripgrep does: a file name pattern without braces."""
    return not any(c in glob for c in "/{}!")


def glob_regex(root: str, glob: str) -> str:
    """``glob`` (without its ``!``) as a POSIX extended regular expression over the paths the walk
    prints under ``root``: a name pattern matches the last component, a path pattern the path below
    ``root``."""
    body = glob[1:] if glob.startswith("!") else glob
    body = body.rstrip("/") or body
    if "/" in body:
        return "^" + _ere(root.rstrip("/")) + "/" + _translate(body.lstrip("/")) + "$"
    return "(^|/)" + _translate(body) + "$"


_ERE_SPECIAL = set(".^$*+?()[]{}|\\")


def _ere(text: str) -> str:
    return "".join("\\" + c if c in _ERE_SPECIAL else c for c in text)


def _translate(glob: str) -> str:
    """One glob as an ERE (see ``glob_regex``); raises ``BadGlob``."""
    out, i, depth = [], 0, 0
    while i < len(glob):
        c = glob[i]
        if glob.startswith("**/", i) and (i == 0 or glob[i - 1] == "/"):
            out.append("(.*/)?")
            i += 3
            continue
        if glob.startswith("**", i) and i + 2 == len(glob) and (i == 0 or glob[i - 1] == "/"):
            out.append(".*")
            i += 2
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            end = glob.find("]", i + 2 if glob[i + 1 : i + 2] in ("!", "^", "]") else i + 1)
            if end < 0:
                raise BadGlob(f"an unclosed '[' at character {i + 1}")
            inner = glob[i + 1 : end]
            if inner[:1] in ("!", "^"):
                inner = "^" + inner[1:]
            out.append("[" + inner.replace("\\", "\\\\") + "]")
            i = end
        elif c == "{":
            depth += 1
            out.append("(")
        elif c == "}" and depth:
            depth -= 1
            out.append(")")
        elif c == "," and depth:
            out.append("|")
        elif c == "\\" and i + 1 < len(glob):
            i += 1
            out.append(_ere(glob[i]))
        else:
            out.append(_ere(c))
        i += 1
    if depth:
        raise BadGlob("an unclosed '{'")
    return "".join(out)


class Match(NamedTuple):  # a tuple: a page builds up to a thousand of them
    path: str
    line: int
    text: str
    before: tuple[str, ...]
    after: tuple[str, ...]


def walk_exclusions() -> list[str]:
    """The walk's exclusions as ``*/a/b`` paths: VCS directories, then every operator path."""
    return [f"*/{name}" for name in VCS_DIRS] + sorted({"*/" + "/".join(seq) for _, seq in OPERATOR_PATHS})


# the walk's exclusions for ripgrep: one glob (one matcher, where a glob each costs a few ms)
_RG_HIDDEN = "!**/{" + ",".join(h[2:] for h in walk_exclusions()) + "}"

# the root resolved: a directory by ``cd -P`` (a builtin), anything else by ``realpath -m``
_RESOLVE = (
    'if [ -d "$p" ] && cd -P -- "$p" 2>/dev/null; then r=$PWD; '
    'else r=$(realpath -m -- "$p" 2>/dev/null) || r=$p; fi'
)


def search_script(root: str, q: Query) -> str:
    """The fixed script: it resolves ``root`` and searches only when that changes nothing (the
    guard judged ``root`` as given), else prints ``resolved NUL <path> NUL`` for the guard to judge
    that path first. It searches with ripgrep when it is on PATH, else grep, printing the engine's
    name and a NUL, then the records (without a pattern: the files found, each ending in a NUL).
    (A recording of an earlier version of it answers today's request: ``scenario.script_versions``.)"""
    common = ["-n", "-H"] + (["-i"] if q.ignore_case else []) + (["-C", str(q.context)] if q.context else [])
    hidden = walk_exclusions()
    rg = [
        "rg", "--no-config", "--no-heading", "--null", "--color", "never", "--hidden", "--no-ignore",
        "--no-messages", *(["--files"] if q.pattern is None else ["--no-context-separator", *common]),
        *(["-F"] if q.literal and q.pattern is not None else []),
        *(["--glob", q.glob] if q.glob else []), "--iglob", _RG_HIDDEN,
    ]  # fmt: skip
    grep = ["grep", "-Z", "-I", "-s", "--color=never", "--no-group-separator", *common]
    prune = " -o ".join(f"-ipath {quote(h)}" for h in hidden)
    name = f"-name {quote(q.glob)} " if q.glob and _plain(q.glob) else ""
    keep = ""
    if q.glob and not _plain(q.glob):  # find's -name cannot say it: the same glob as a regex
        invert = "v" if q.glob.startswith("!") else ""
        keep = f" | LC_ALL=C grep -z{invert}E -e {quote(glob_regex(root, q.glob))}"
    mode = "-F" if q.literal else '"$m"'
    rg_run = " ".join(quote(a) for a in rg) + ("" if q.pattern is None else f" -e {quote(q.pattern)}")
    grep_run = (
        "    | cat"  # the files themselves
        if q.pattern is None
        else f"    | LC_ALL=C xargs -0 -r {' '.join(quote(a) for a in grep)} {mode} -e {quote(q.pattern)} --"
    )
    pick = (
        "" if q.pattern is None else "  if printf 'x\\n' | grep -qP x 2>/dev/null; then m=-P; else m=-E; fi\n"
    )
    return f"""p={quote(root)}
{_RESOLVE}
[ "$r" = "$p" ] || {{ printf 'resolved\\0%s\\0' "$r"; exit 0; }}
[ -e "$r" ] || {{ printf 'no such file or directory: %s\\n' "$r" >&2; exit 3; }}
if command -v rg >/dev/null 2>&1; then
  printf 'rg\\0'
  {rg_run} -- "$r"
else
  printf 'grep\\0'
{pick}  {{ if [ -d "$r" ]; then find "$r" -mindepth 1 \\( {prune} \\) -prune -o -type f {name}-print0{keep}; else printf '%s\\0' "$r"; fi; }} \\
    | tr '/' '\\001' | LC_ALL=C sort -z | tr '\\001' '/' \\
{grep_run}
fi
"""


def files_of(out: bytes) -> list[str]:
    """The files an engine listed, in walk order: each name ends in a NUL, so one the output's bound
    cut short is left out."""
    names = out.split(b"\0")[:-1]
    names.sort(key=lambda n: n.replace(b"/", b"\0"))
    return [n.decode("utf-8", "surrogateescape") for n in names]


def _text(raw: bytes) -> str:
    text = raw.decode("utf-8", "replace").rstrip("\r")
    return text if len(text) <= MAX_LINE_CHARS else text[: MAX_LINE_CHARS - 1] + "…"


Record = tuple[bytes, bytes, bytes, bytes]  # path, line number, b":" (a match) or b"-" (context), text


def records(out: bytes) -> list[Record]:
    """Every complete record of an engine's output, in order (an unfinished last line is left out)."""
    fast: list[Record] = _FAST.findall(out)  # records end in a newline: an unfinished last line is not one
    if len(fast) == out.count(b"\n"):  # the usual case: every line a record
        return fast
    return _records_slowly(out[: out.rfind(b"\n") + 1])


def _records_slowly(complete: bytes) -> list[Record]:
    """``records`` when some line is an engine's note or part of a file name holding a newline."""
    found = []
    pending = b""
    for raw in complete.split(b"\n")[:-1]:
        nul = raw.find(b"\0")
        if nul < 0:
            pending = b"" if _NOTE.search(raw) else pending + raw + b"\n"
            continue
        head = _RECORD.match(raw, nul + 1)
        path, pending = pending + raw[:nul], b""
        if head is not None:
            found.append((path, head.group(1), head.group(2), raw[head.end() :]))
    return found


class Matches:
    """The matches of an engine's output in walk order: how many (``total``), and a page of them
    decoded on demand (``page``). ripgrep prints each file's records together but files in the
    order its threads finish them: records are put in walk order here (each directory's names in
    byte order, a file's records as printed), so pages are the same from call to call and from
    either engine. ``cut``: the output stopped early, so the last file printed may be incomplete
    and is left out. ``context``: the lines around each match (as many as the engine printed)."""

    def __init__(self, out: bytes, context: int, *, cut: bool = False) -> None:
        found = records(out)
        if cut and found:
            last = found[-1][0]
            found = [r for r in found if r[0] != last]
        found.sort(key=lambda r: r[0].replace(b"/", b"\0"))  # '/' first: each directory's names in order
        self._records = found
        self._context = context
        self._at = [i for i, r in enumerate(found) if r[2] == b":"]
        self.total = len(self._at)

    def page(self, offset: int, limit: int) -> list[Match]:
        return [self._match(i) for i in self._at[offset : offset + limit]]

    def _match(self, i: int) -> Match:
        path, number, _, text = self._records[i]
        line, c = int(number), self._context
        before = self._around(i, path, range(line - c, line), -1)[::-1] if c else ()
        after = self._around(i, path, range(line + 1, line + c + 1), 1) if c else ()
        return Match(path.decode("utf-8", "surrogateescape"), line, _text(text), before, after)

    def _around(self, i: int, path: bytes, lines: range, step: int) -> tuple[str, ...]:
        """The texts of the records next to record ``i`` (going ``step``) of the same file whose
        line numbers are in ``lines``, nearest first."""
        texts = []
        j = i + step
        while (
            0 <= j < len(self._records) and self._records[j][0] == path and int(self._records[j][1]) in lines
        ):
            texts.append(_text(self._records[j][3]))
            j += step
        return tuple(texts)


def engine_of(out: bytes) -> tuple[str, bytes]:
    """The engine the script ran (``resolved``: none, the root resolved elsewhere), and its output
    after the name (the resolved path)."""
    name, _, rest = out.partition(b"\0")
    return name.decode("ascii", "replace"), rest
