"""The shape, checked: only boundaries spawn processes, only entry points read the environment,
and only server modules (and the launcher boundary) import the MCP SDK."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "wslmcp"
FAKES = Path(__file__).resolve().parents[2] / "fakes"

ENTRY_POINTS = {"cli.py", "explain.py", "wiring.py", "__main__.py"}


def modules() -> Iterator[tuple[Path, ast.Module]]:
    for base in (SRC, FAKES):
        for path in sorted(base.rglob("*.py")):
            yield path, ast.parse(path.read_text(encoding="utf-8"), str(path))


def imported(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def uses_environ(tree: ast.Module) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in {"environ", "getenv", "environb"}:
            return True
        if (
            isinstance(node, ast.ImportFrom)
            and node.module == "os"
            and any(a.name in {"environ", "getenv"} for a in node.names)
        ):
            return True
    return False


def spawns(tree: ast.Module) -> bool:
    if any(n == "subprocess" or n.startswith("subprocess.") for n in imported(tree)):
        return True
    return any(
        isinstance(node, ast.Attribute) and node.attr.startswith("create_subprocess_")
        for node in ast.walk(tree)
    )


def rel(path: Path) -> str:
    return str(path.relative_to(SRC.parent.parent))


def test_only_boundaries_spawn_processes() -> None:
    offenders = [rel(p) for p, tree in modules() if spawns(tree) and "boundaries" not in p.parts]
    assert offenders == []


def test_only_entry_points_and_boundaries_read_the_environment() -> None:
    offenders = [
        rel(p)
        for p, tree in modules()
        if uses_environ(tree) and p.name not in ENTRY_POINTS and "boundaries" not in p.parts
    ]
    assert offenders == []


def test_the_domain_never_imports_the_sdk_or_real_adapters_directly() -> None:
    """Guard and scenario code is pure domain: no SDK, and no real adapter (wiring hands them down)."""
    domain_dirs = [SRC / "shell" / "guard", SRC / "scenario"]
    offenders = []
    for path, tree in modules():
        if not any(path.is_relative_to(d) for d in domain_dirs) or path.name in ENTRY_POINTS:
            continue
        for name in imported(tree):
            if name == "mcp" or name.startswith("mcp."):
                offenders.append(f"{rel(path)} imports {name}")
    assert offenders == []
