"""Evaluate bashlex against the guard's own reader on the corpus (not a test; see docs/guard.md).

Run with a scratch venv that has bashlex (it is not a dependency):
    python3 -m venv /tmp/bashlex-eval && /tmp/bashlex-eval/bin/pip install bashlex
    PYTHONPATH=src:. /tmp/bashlex-eval/bin/python tests/guard/bashlex_eval.py

For every command of the corpus it compares what each reader says runs: the set of command names
(first words of every simple command, substitutions included), whether the reader accepted the
text at all, and the time it took.
"""

from __future__ import annotations

import time
from collections import Counter

import bashlex  # type: ignore[import-not-found]

from tests.guard.corpus import load
from tests.guard.reader_names import reader_names as _ours
from wslmcp.shell.guard.reader import read


class _Names(bashlex.ast.nodevisitor):  # type: ignore[misc]
    def __init__(self) -> None:
        self.names: list[str] = []

    def visitcommand(self, node, parts):  # type: ignore[no-untyped-def]
        for p in parts:
            if p.kind == "word":
                self.names.append(p.word)
                break
            if p.kind not in ("assignment", "redirect"):
                break


def main() -> None:
    cases = [c for c in load() if c.check == "command"]
    errors: Counter[str] = Counter()
    examples: list[str] = []
    differ: list[tuple[str, list[str], list[str]]] = []
    ours_s = theirs_s = 0.0
    for case in cases:
        text = case.text
        t0 = time.perf_counter()
        mine: list[str] = []
        try:
            _ours(read(text), mine)
        except Exception as exc:  # the reader only stops at structural limits
            mine = [f"<{type(exc).__name__}>"]
        ours_s += time.perf_counter() - t0
        t0 = time.perf_counter()
        try:
            visitor = _Names()
            for tree in bashlex.parse(text):
                visitor.visit(tree)
            theirs = visitor.names
        except Exception as exc:
            errors[type(exc).__name__] += 1
            if len(examples) < 25:
                examples.append(f"{type(exc).__name__}: {text[:70]!r}")
            theirs = None
        theirs_s += time.perf_counter() - t0
        if theirs is not None and sorted(set(theirs)) != sorted(set(mine)):
            differ.append((text, sorted(set(mine)), sorted(set(theirs))))
    n = len(cases)
    failed = sum(errors.values())
    print(f"corpus commands: {n}")
    print(f"bashlex refused to parse: {failed} ({100 * failed / n:.1f}%) {dict(errors)}")
    print(f"parsed by both but different command names: {len(differ)}")
    print(f"time: ours {1e3 * ours_s / n:.3f} ms/command, bashlex {1e3 * theirs_s / n:.3f} ms/command")
    print("\nexamples bashlex cannot parse:")
    for e in examples:
        print("  ", e)
    print("\nexamples where the command names differ (ours | bashlex):")
    for text, mine, theirs in differ[:25]:
        print(f"   {text[:60]!r}: {mine} | {theirs}")


if __name__ == "__main__":
    main()
