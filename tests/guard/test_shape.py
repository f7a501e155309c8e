"""The guard's shape, held by a test: program knowledge lives in the registry only. (The limits on
every function's complexity and length are tests/foundation/test_limits.py's.)"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

GUARD = Path(__file__).resolve().parents[2] / "src" / "wslmcp" / "shell" / "guard"
REGISTRY = GUARD / "registry"

NAME_IDS = frozenset({"name", "program", "binary", "prog", "win", "command_name"})
NAME_ATTRS = frozenset({"program", "binary"})
SEGMENTS = frozenset({"seg", "segment", "c", "case", "resolved"})  # whose ``.name`` is the program's
NAME_CALLS = frozenset({"basename", "strip_windows_extension"})


def _literal_strings(node: ast.expr) -> bool:
    """A string literal, or a tuple, list or set of them (``"rm"``, ``("at", "batch")``)."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return bool(node.elts) and all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts
        )
    return False


def _program_name(node: ast.expr) -> bool:
    """An expression that holds a program's name: ``name``, ``seg.name``, ``basename(…)``,
    ``args[0].text``, ``cmd.words[0].raw``."""
    if isinstance(node, ast.Name):
        return node.id in NAME_IDS
    if isinstance(node, ast.Attribute):
        if node.attr in NAME_ATTRS:
            return True
        if node.attr == "name" and isinstance(node.value, ast.Name) and node.value.id in SEGMENTS:
            return True
        first_word = (
            node.attr in ("text", "raw")
            and isinstance(node.value, ast.Subscript)
            and isinstance(node.value.slice, ast.Constant)
            and node.value.slice.value == 0
        )
        return first_word
    if isinstance(node, ast.Call):
        func = node.func
        called = (
            func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        )
        return called in NAME_CALLS
    return False


def _compares_name(left: ast.expr, op: ast.cmpop, right: ast.expr) -> bool:
    if isinstance(op, ast.Eq | ast.NotEq):
        return (_literal_strings(left) and _program_name(right)) or (
            _program_name(left) and _literal_strings(right)
        )
    if isinstance(op, ast.In | ast.NotIn):  # a name in a literal collection; not a literal inside a name
        return _program_name(left) and _literal_strings(right) and not isinstance(right, ast.Constant)
    return False


def name_comparisons(source: str) -> list[int]:
    """Lines where a program name is compared with a string literal."""
    found: list[int] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            pairs = zip(operands, node.ops, operands[1:], strict=False)
            if any(_compares_name(left, op, right) for left, op, right in pairs):
                found.append(node.lineno)
    return sorted(found)


def _modules(outside_registry: bool) -> list[Path]:
    paths = sorted(GUARD.rglob("*.py"))
    return [p for p in paths if not (outside_registry and REGISTRY in p.parents)]


def test_the_detector_finds_name_comparisons() -> None:
    """The check can fail: each way of naming a program in a comparison is caught."""
    snippet = """
if name == "rm": pass
if seg.name in ("at", "batch"): pass
if basename(args[0].text) != "xargs": pass
if cmd.words[0].raw == "eval": pass
if "sudo" == c.program: pass
"""
    assert name_comparisons(snippet) == [2, 3, 4, 5, 6]
    harmless = 'if effect.kind == "power": pass\nif var in COMMAND_VARIABLES: pass\nif "/" in name: pass\n'
    assert name_comparisons(harmless + 'if part.name == "@": pass') == []


@pytest.mark.parametrize("module", _modules(outside_registry=True), ids=lambda p: str(p.relative_to(GUARD)))
def test_no_module_outside_the_registry_knows_a_program_by_name(module: Path) -> None:
    lines = name_comparisons(module.read_text(encoding="utf-8"))
    assert not lines, (
        f"{module.relative_to(GUARD)} compares a program name with a literal at lines {lines}: ask the registry"
    )
