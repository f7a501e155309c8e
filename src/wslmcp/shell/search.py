"""wsl_search: file contents under a path, with ripgrep when the distro has it and grep otherwise,
giving the same matches either way.

Both engines see the same files in the same order: regular files under the root, hidden ones too,
symlinks not followed, no ignore files, binary files skipped; never a VCS directory (``.git``,
``.hg``, ``.svn``) nor an operator path the guard protects (``OPERATOR_PATHS``: client
configurations, keys, credentials), which are excluded from the walk itself, so they are never
read. ripgrep walks with ``--sort path``; the grep side walks with ``find`` sorted the same way (by
each directory's names, byte order). Both print ``path NUL line-number (':' match | '-' context)
text``; the parser turns that into matches with their context lines, and pages them.

``glob`` is matched against file names (``*.py``), not paths. Patterns are regular expressions
(ripgrep's syntax; grep runs them with ``-P``, else ``-E``) unless ``literal``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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
    pattern: str
    literal: bool = False
    ignore_case: bool = False
    context: int = 0
    glob: str | None = None


@dataclass(frozen=True)
class Match:
    path: str
    line: int
    text: str
    before: tuple[str, ...]
    after: tuple[str, ...]


def _hidden() -> list[str]:
    """The walk's exclusions as ``*/a/b`` paths: VCS directories, then every operator path."""
    return [f"*/{name}" for name in VCS_DIRS] + sorted({"*/" + "/".join(seq) for _, seq in OPERATOR_PATHS})


def search_script(root: str, q: Query) -> str:
    """The fixed script: it resolves ``root`` (``realpath -m``, as the file tools' probe does) and
    searches only when that changes nothing (the guard judged ``root`` as given), else prints
    ``resolved NUL <path> NUL`` for the guard to judge that path first. It searches with ripgrep
    when it is on PATH, else grep, printing the engine's name and a NUL, then the records."""
    common = ["-n", "-H"] + (["-i"] if q.ignore_case else []) + (["-C", str(q.context)] if q.context else [])
    hidden = _hidden()
    rg = [
        "rg", "--no-config", "--no-heading", "--null", "--color", "never", "--hidden", "--no-ignore",
        "--no-messages", "--sort", "path", "--no-context-separator", *common, *(["-F"] if q.literal else []),
        *(["--glob", q.glob] if q.glob else []), *[a for h in hidden for a in ("--iglob", "!**/" + h[2:])],
    ]  # fmt: skip
    grep = ["grep", "-Z", "-I", "-s", "--color=never", "--no-group-separator", *common]
    prune = " -o ".join(f"-ipath {quote(h)}" for h in hidden)
    name = f"-name {quote(q.glob)} " if q.glob else ""
    mode = "-F" if q.literal else '"$m"'
    return f"""p={quote(root)}
r=$(realpath -m -- "$p" 2>/dev/null) || r=$p
[ "$r" = "$p" ] || {{ printf 'resolved\\0%s\\0' "$r"; exit 0; }}
[ -e "$r" ] || {{ printf 'no such file or directory: %s\\n' "$r" >&2; exit 3; }}
if command -v rg >/dev/null 2>&1; then
  printf 'rg\\0'
  {" ".join(quote(a) for a in rg)} -e {quote(q.pattern)} -- "$r"
else
  printf 'grep\\0'
  if printf 'x\\n' | grep -qP x 2>/dev/null; then m=-P; else m=-E; fi
  {{ if [ -d "$r" ]; then find "$r" -mindepth 1 \\( {prune} \\) -prune -o -type f {name}-print0; else printf '%s\\0' "$r"; fi; }} \\
    | tr '/' '\\001' | LC_ALL=C sort -z | tr '\\001' '/' \\
    | LC_ALL=C xargs -0 -r {" ".join(quote(a) for a in grep)} {mode} -e {quote(q.pattern)} --
fi
"""


def _text(raw: bytes) -> str:
    text = raw.decode("utf-8", "replace").rstrip("\r")
    return text if len(text) <= MAX_LINE_CHARS else text[: MAX_LINE_CHARS - 1] + "…"


Record = tuple[bytes, int, bool, bytes]  # path, line, is_match, text (raw)


def records(out: bytes) -> list[Record]:
    """Every complete record of an engine's output, in order (an unfinished last line is left out)."""
    complete = out[: out.rfind(b"\n") + 1]
    fast = _FAST.findall(complete)
    if len(fast) == complete.count(b"\n"):  # the usual case: every line a record
        return [(path, int(line), sep == b":", text) for path, line, sep, text in fast]
    return _records_slowly(complete)


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
            found.append((path, int(head.group(1)), head.group(2) == b":", raw[head.end() :]))
    return found


Found = tuple[bytes, int, bytes, tuple[bytes, ...], tuple[bytes, ...]]  # path, line, text, before, after


def matches(out: bytes, context: int) -> list[Found]:
    """The matches of an engine's output in walk order, each with up to ``context`` lines around
    it, as bytes (``shown`` decodes the ones a reply shows)."""
    if not context:
        return [(path, line, text, (), ()) for path, line, is_match, text in records(out) if is_match]
    by_file: dict[bytes, dict[int, tuple[bool, bytes]]] = {}
    for path, line, is_match, text in records(out):
        by_file.setdefault(path, {})[line] = (is_match, text)
    found: list[Found] = []
    for path, lines in by_file.items():
        for line in sorted(lines):
            if lines[line][0]:
                before = tuple(lines[n][1] for n in range(line - context, line) if n in lines)
                after = tuple(lines[n][1] for n in range(line + 1, line + context + 1) if n in lines)
                found.append((path, line, lines[line][1], before, after))
    return found


def shown(found: Found) -> Match:
    path, line, text, before, after = found
    return Match(
        path.decode("utf-8", "surrogateescape"),
        line,
        _text(text),
        tuple(_text(t) for t in before),
        tuple(_text(t) for t in after),
    )


def engine_of(out: bytes) -> tuple[str, bytes]:
    """The engine the script ran (``resolved``: none, the root resolved elsewhere), and its output
    after the name (the resolved path)."""
    name, _, rest = out.partition(b"\0")
    return name.decode("ascii", "replace"), rest
