"""Evaluate tree-sitter-bash against the guard's own reader on the corpus (not a test; see docs/guard.md).

Run with a scratch venv that has the two packages (they are not dependencies):
    python3 -m venv /tmp/ts-eval && /tmp/ts-eval/bin/pip install tree-sitter tree-sitter-bash
    PYTHONPATH=src:. /tmp/ts-eval/bin/python tests/guard/treesitter_eval.py

For every command of the corpus it compares what each reader says runs (the literal command names
of every simple command, substitutions, here-documents and process substitutions included), counts
trees tree-sitter marks as erroneous, tallies differences by construct (``$'…'``, ``(( ))``,
here-documents, process substitution) and times both readers.
"""

from __future__ import annotations

import contextlib
import time
from collections import Counter

import tree_sitter_bash  # type: ignore[import-not-found]
from tree_sitter import Language, Node, Parser  # type: ignore[import-not-found]

from tests.guard.corpus import Case, load
from tests.guard.reader_names import reader_names as _ours
from wslmcp.shell.guard.reader import decode_ansi_c, read

CONSTRUCTS = {"$'…'": "$'", "(( ))": "((", "here-document": "<<", "process substitution": ("<(", ">(")}


def _word(node: Node) -> str:
    """The literal text of a command-name node, quotes removed as bash would."""
    out: list[str] = []
    stack = [node]
    while stack:
        n = stack.pop(0)
        text = (n.text or b"").decode("utf-8", "replace")
        if n.type == "raw_string":
            out.append(text[1:-1])
        elif n.type == "ansi_c_string":
            out.append(decode_ansi_c(text[2:-1]))
        elif n.type in ("string", "concatenation", "command_name"):
            stack[:0] = list(n.children)
        elif n.type in {"string_content", "word"}:
            out.append(text.replace("\\", ""))
        elif n.type in ('"',):
            continue
    return "".join(out)


def _theirs(root: Node) -> list[str]:
    names: list[str] = []
    stack = [root]
    while stack:
        n = stack.pop()
        if n.type == "command":
            name = n.child_by_field_name("name")
            if name is not None:
                names.append(_word(name))
        stack.extend(n.children)
    return names


ROUNDS = 7


def _timed(cases: list[Case], parser: Parser) -> tuple[float, float, float]:
    """Best total over ``ROUNDS`` alternating rounds of each reader: the machine is shared."""
    ours: list[float] = []
    theirs: list[float] = []
    visited: list[float] = []
    texts = [c.text for c in cases]
    for _ in range(ROUNDS):
        t0 = time.perf_counter()
        for text in texts:
            with contextlib.suppress(Exception):  # structural limits only
                read(text)
        ours.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        for text in texts:
            parser.parse(text.encode("utf-8", "surrogatepass"))
        theirs.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        for text in texts:
            _visit(parser.parse(text.encode("utf-8", "surrogatepass")).root_node)
        visited.append(time.perf_counter() - t0)
    return min(ours), min(theirs), min(visited)


def _visit(root: Node) -> int:
    """Touch every node once (type and text), the least a conversion to a guard tree must do."""
    count, stack = 0, [root]
    while stack:
        n = stack.pop()
        count += len(n.type) + len(n.text or b"")
        stack.extend(n.children)
    return count


def main() -> None:
    parser = Parser(Language(tree_sitter_bash.language()))
    cases = [c for c in load() if c.check == "command"]
    errors = 0
    error_examples: list[str] = []
    differ: list[tuple[str, list[str], list[str]]] = []
    by_construct: Counter[str] = Counter()
    present: Counter[str] = Counter()
    ours_s = theirs_s = 0.0
    for case in cases:
        text = case.text
        for label, marker in CONSTRUCTS.items():
            if any(m in text for m in ((marker,) if isinstance(marker, str) else marker)):
                present[label] += 1
        t0 = time.perf_counter()
        mine: list[str] = []
        try:
            _ours(read(text), mine)
        except Exception as exc:  # the reader only stops at structural limits
            mine = [f"<{type(exc).__name__}>"]
        ours_s += time.perf_counter() - t0
        t0 = time.perf_counter()
        tree = parser.parse(text.encode("utf-8", "surrogatepass"))
        theirs = _theirs(tree.root_node)
        theirs_s += time.perf_counter() - t0
        if tree.root_node.has_error:
            errors += 1
            if len(error_examples) < 20:
                error_examples.append(repr(text[:70]))
        if sorted(set(theirs)) != sorted(set(mine)):
            differ.append((text, sorted(set(mine)), sorted(set(theirs))))
            for label, marker in CONSTRUCTS.items():
                if any(m in text for m in ((marker,) if isinstance(marker, str) else marker)):
                    by_construct[label] += 1
    n = len(cases)
    print(f"corpus commands: {n}")
    print(f"tree-sitter trees with errors: {errors} ({100 * errors / n:.1f}%)")
    print(f"different command names: {len(differ)} ({100 * len(differ) / n:.1f}%)")
    for label in CONSTRUCTS:
        print(f"   {label}: {by_construct[label]} differ of {present[label]} commands using it")
    ours_best, theirs_best, visit_best = _timed(cases, parser)
    print(
        f"time (best of {ROUNDS} rounds): ours {1e3 * ours_best / n:.3f} ms/command (full guard tree), "
        f"tree-sitter {1e3 * theirs_best / n:.3f} ms/command parse only, "
        f"{1e3 * visit_best / n:.3f} ms/command parse + visiting every node once"
    )
    print("\nexamples tree-sitter marks as errors:")
    for e in error_examples:
        print("  ", e)
    print("\nexamples where the command names differ (ours | tree-sitter):")
    for text, mine, theirs in differ[:40]:
        print(f"   {text[:60]!r}: {mine} | {theirs}")


if __name__ == "__main__":
    main()
