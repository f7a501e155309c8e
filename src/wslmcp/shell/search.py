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
    """The fixed script: ripgrep when it is on PATH, else grep. It prints the engine's name and a
    NUL, then the records."""
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
    return f"""r={quote(root)}
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


def records(out: bytes) -> list[tuple[str, int, bool, str]]:
    """``(path, line, is_match, text)`` for every complete record of an engine's output."""
    found = []
    pending = b""  # a file name holding a newline arrives over several lines
    lines = out.split(b"\n")
    for raw in lines[:-1]:  # the last piece has no newline yet: incomplete
        nul = raw.find(b"\0")
        if nul < 0:
            pending = b"" if _NOTE.search(raw) else pending + raw + b"\n"
            continue
        head = _RECORD.match(raw, nul + 1)
        path, pending = pending + raw[:nul], b""
        if head is None:
            continue
        found.append(
            (
                path.decode("utf-8", "surrogateescape"),
                int(head.group(1)),
                head.group(2) == b":",
                _text(raw[head.end() :]),
            )
        )
    return found


def matches(out: bytes, context: int) -> list[Match]:
    """The matches of an engine's output, each with up to ``context`` lines around it, in walk order."""
    by_file: dict[str, dict[int, tuple[bool, str]]] = {}
    for path, line, is_match, text in records(out):
        by_file.setdefault(path, {})[line] = (is_match, text)
    found = []
    for path in sorted(by_file, key=lambda p: p.split("/")):
        lines = by_file[path]
        for line in sorted(lines):
            is_match, text = lines[line]
            if not is_match:
                continue
            before = tuple(lines[n][1] for n in range(line - context, line) if n in lines)
            after = tuple(lines[n][1] for n in range(line + 1, line + context + 1) if n in lines)
            found.append(Match(path, line, text, before, after))
    return found


def engine_of(out: bytes) -> tuple[str, bytes]:
    """The engine the script ran, and its output after the name."""
    name, _, rest = out.partition(b"\0")
    return name.decode("ascii", "replace"), rest
