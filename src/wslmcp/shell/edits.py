"""wsl_edit_file's text work, pure: edits applied in order, all or nothing, exact matching on the
file's own line endings, the closest near miss when an edit matches nowhere, and the unified diff.

A near miss is looked for in the file as it is on disk, never in the text the edits before it in
the batch left (which the caller never saw and which is not written), and it is given only when it
is alike enough to help (``MIN_SIMILARITY``). An edit whose text is on disk but was changed by an
edit before it in the batch is told so (``Mismatch.changed_by_earlier``).

Line endings: when every line of the file ends in CRLF, the edits' line breaks (LF or CRLF) are
taken as CRLF, so an edit written with LF matches and keeps the file's endings; otherwise the edit
texts are matched exactly as given.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

MAX_LINES_SHOWN = 20  # match locations named in a mismatch
NEAR_CANDIDATES = 12  # windows given the full similarity measure after the quick one
DIFF_CONTEXT_CHARS = 12  # unchanged characters kept around each change of a near miss's diff
NEAR_DIFF_CHARS = 240
MIN_SIMILARITY = 0.6  # below it a "closest text" is unrelated text: no hint
MAX_DIFF_LINES = 400
DIFF_CONTEXT_LINES = 3  # unified diff context, as difflib's default


@dataclass(frozen=True)
class Edit:
    old_text: str
    new_text: str
    expected: int = 1


@dataclass(frozen=True)
class NearMiss:
    """The file's text most like an edit's ``oldText``: where it starts, how alike (0-1), and what
    differs (``[-sent-]{+in the file+}``)."""

    line: int
    similarity: float
    text: str
    diff: str


@dataclass(frozen=True)
class Mismatch:
    """Edit number ``index`` (from 0) matched ``found`` times, not ``expected``: the lines where
    its matches start (the first ``MAX_LINES_SHOWN``) and, with none, the nearest miss."""

    index: int
    expected: int
    found: int
    lines: tuple[int, ...]
    near: NearMiss | None
    changed_by_earlier: bool = False  # its text is on disk, but an edit before it in the batch changed it
    empty: bool = False  # the file on disk is empty


@dataclass(frozen=True)
class Applied:
    text: str
    counts: tuple[int, ...]
    crlf: bool


def line_ending(text: str) -> str:
    """``"\\r\\n"`` when every line break of ``text`` is CRLF (and there is one), else ``"\\n"``."""
    lf = text.count("\n")
    return "\r\n" if lf and text.count("\r\n") == lf else "\n"


def _in_file_endings(text: str, eol: str) -> str:
    return text.replace("\r\n", "\n").replace("\n", eol) if eol == "\r\n" else text


def _starts(text: str, needle: str) -> list[int]:
    found, at = [], text.find(needle)
    while at >= 0:
        found.append(at)
        at = text.find(needle, at + len(needle))
    return found


def _line_of(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def apply_edits(text: str, edits: Sequence[Edit]) -> Applied | Mismatch:
    """``edits`` applied to ``text`` in order (each to the result of those before it); the first
    whose match count is not its ``expected`` stops everything (``Mismatch``)."""
    eol = line_ending(text)
    on_disk = text
    counts = []
    for index, edit in enumerate(edits):
        old = _in_file_endings(edit.old_text, eol)
        starts = _starts(text, old)
        if len(starts) != edit.expected:
            lines = tuple(_line_of(text, at) for at in starts[:MAX_LINES_SHOWN])
            earlier = not starts and index > 0 and old in on_disk
            near = near_miss(on_disk, old) if not starts and not earlier else None
            return Mismatch(index, edit.expected, len(starts), lines, near, earlier, not on_disk)
        text = text.replace(old, _in_file_endings(edit.new_text, eol))
        counts.append(len(starts))
    return Applied(text, tuple(counts), eol == "\r\n")


def near_miss(text: str, old: str) -> NearMiss | None:
    """The run of lines of ``text`` (as many as ``old`` spans) most like ``old``: every window is
    ranked by ``quick_ratio``, the best few by the full ratio; None when even the best is less than
    ``MIN_SIMILARITY`` alike (or ``text`` is empty)."""
    lines = text.splitlines(keepends=True)
    span = max(1, len(old.splitlines()) or 1)
    if not lines:
        return None
    windows = ["".join(lines[i : i + span]) for i in range(max(1, len(lines) - span + 1))]
    matcher = difflib.SequenceMatcher(None, autojunk=False)
    matcher.set_seq2(old)
    quick = []
    for i, window in enumerate(windows):
        matcher.set_seq1(window)
        quick.append((matcher.quick_ratio(), -i))
    best: tuple[float, int] | None = None
    for _, neg in sorted(quick, reverse=True)[:NEAR_CANDIDATES]:
        matcher.set_seq1(windows[-neg])
        ratio = matcher.ratio()
        if best is None or (ratio, neg) > (best[0], -best[1]):
            best = (ratio, -neg)
    assert best is not None
    ratio, at = best
    if ratio < MIN_SIMILARITY:
        return None
    window = windows[at].rstrip("\r\n") if not old.endswith("\n") else windows[at]
    return NearMiss(at + 1, round(ratio, 2), window, char_diff(old, window))


def _shorten(text: str, keep: int, where: str) -> str:
    if len(text) <= 2 * keep + 1:
        return text
    if where == "start":
        return "…" + text[-keep:]
    if where == "end":
        return text[:keep] + "…"
    return text[:keep] + "…" + text[-keep:]


def char_diff(sent: str, found: str) -> str:
    """A short character diff of ``sent`` against ``found``: unchanged runs cut to their ends,
    changes written ``[-sent-]{+found+}``."""
    ops = difflib.SequenceMatcher(None, sent, found, autojunk=False).get_opcodes()
    parts = []
    for n, (tag, i1, i2, j1, j2) in enumerate(ops):
        if tag == "equal":
            where = "start" if n == 0 else "end" if n == len(ops) - 1 else "middle"
            parts.append(_shorten(sent[i1:i2], DIFF_CONTEXT_CHARS, where))
            continue
        if i2 > i1:
            parts.append(f"[-{sent[i1:i2]}-]")
        if j2 > j1:
            parts.append(f"{{+{found[j1:j2]}+}}")
    out = "".join(parts)
    return out if len(out) <= NEAR_DIFF_CHARS else out[: NEAR_DIFF_CHARS - 1] + "…"


def unified_diff(path: str, before: str, after: str) -> tuple[str, int]:
    """The unified diff of ``before`` to ``after`` (line breaks shown as LF), at most
    ``MAX_DIFF_LINES`` lines; and how many lines were left out. Only the stretch from the first to
    the last differing character (with its context lines) is compared line by line, so a one-line
    edit of a long file costs a few lines, not the whole file."""
    a, b = before.replace("\r\n", "\n"), after.replace("\r\n", "\n")
    head = _common(a, b, lambda x, n: x[:n])
    if head == len(a) == len(b):
        return "", 0
    tail = _common(a[head:], b[head:], lambda x, n: x[len(x) - n :])
    start = head
    for _ in range(DIFF_CONTEXT_LINES + 1):  # back to the start of the line, and context lines before
        start = a.rfind("\n", 0, max(0, start - 1)) + 1 if start else 0
    end = len(a) - tail
    for _ in range(DIFF_CONTEXT_LINES + 1):  # on to the end of the line, and context lines after
        end = a.find("\n", end) + 1 or len(a)
    after_end = len(b) - (len(a) - end)
    lines = list(
        difflib.unified_diff(
            a[start:end].splitlines(),
            b[start:after_end].splitlines(),
            fromfile=path,
            tofile=path,
            lineterm="",
        )
    )
    if skip := a.count("\n", 0, start):
        lines = [
            _HUNK.sub(lambda m: _moved(m, skip), line) if line.startswith("@@") else line for line in lines
        ]
    if len(lines) <= MAX_DIFF_LINES:
        return "\n".join(lines), 0
    return "\n".join(lines[:MAX_DIFF_LINES]), len(lines) - MAX_DIFF_LINES


def _common(a: str, b: str, part: Callable[[str, int], str]) -> int:
    """How many characters ``a`` and ``b`` share at the start (``part`` a prefix) or the end (a
    suffix): a binary search of slice comparisons, each done in C."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        mid = (low + high + 1) // 2
        if part(a, mid) == part(b, mid):
            low = mid
        else:
            high = mid - 1
    return low


_HUNK = re.compile(r"^@@ -(\d+)((?:,\d+)?) \+(\d+)((?:,\d+)?) @@")


def _moved(m: re.Match[str], by: int) -> str:
    return f"@@ -{int(m[1]) + by}{m[2]} +{int(m[3]) + by}{m[4]} @@"
