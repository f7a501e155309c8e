"""The shape, checked where import contracts cannot see: only boundaries spawn processes, only wiring
and boundaries read the environment, only wiring builds the local file and audit log adapters. The
import rules themselves are import-linter contracts in pyproject.toml (``lint-imports`` in ``make lint``)."""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "wslmcp"
FAKES = Path(__file__).resolve().parents[2] / "fakes"

WIRING = SRC / "wiring"


def modules() -> Iterator[tuple[Path, ast.Module]]:
    yield from _parsed()


@functools.cache
def _parsed() -> tuple[tuple[Path, ast.Module], ...]:
    """Every module of src/ and fakes/, parsed once for all the checks below."""
    return tuple(
        (path, ast.parse(path.read_text(encoding="utf-8"), str(path)))
        for base in (SRC, FAKES)
        for path in sorted(base.rglob("*.py"))
    )


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


def test_only_wiring_and_boundaries_read_the_environment() -> None:
    """Entry points included: they ask wiring (``wiring.environment()``), which hands it down."""
    offenders = [
        rel(p)
        for p, tree in modules()
        if uses_environ(tree) and not p.is_relative_to(WIRING) and "boundaries" not in p.parts
    ]
    assert offenders == []


def test_the_domain_never_imports_the_sdk_or_real_adapters_directly() -> None:
    """Guard and scenario code is pure domain: no SDK, and no real adapter (wiring hands them down)."""
    domain_dirs = [SRC / "shell" / "guard", SRC / "scenario"]
    offenders = []
    for path, tree in modules():
        if not any(path.is_relative_to(d) for d in domain_dirs):
            continue
        for name in imported(tree):
            if name == "mcp" or name.startswith("mcp."):
                offenders.append(f"{rel(path)} imports {name}")
    assert offenders == []


def constructs(tree: ast.Module, names: set[str]) -> set[str]:
    return {
        node.func.id if isinstance(node.func, ast.Name) else node.func.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and (
            (isinstance(node.func, ast.Name) and node.func.id in names)
            or (isinstance(node.func, ast.Attribute) and node.func.attr in names)
        )
    }


def test_only_wiring_builds_the_local_file_adapters() -> None:
    """The real local-file, client-file and audit-log adapters are chosen in one place, like every
    adapter."""
    adapters = {"OsLocalFiles", "LocalClientFiles", "LocalConfigFiles", "AppendOnlyFile"}
    offenders = [
        f"{rel(p)} builds {', '.join(sorted(found))}"
        for p, tree in modules()
        if not p.is_relative_to(WIRING) and (found := constructs(tree, adapters))
    ]
    assert offenders == []


AREAS = [SRC / "observe", SRC / "shell", SRC / "profile", SRC / "evals"]


def area_nodes() -> Iterator[tuple[Path, ast.AST]]:
    """Every syntax node of the areas' modules."""
    for path, tree in modules():
        if any(path.is_relative_to(d) for d in AREAS):
            yield from ((path, node) for node in ast.walk(tree))


def test_no_area_asks_whether_it_is_replaying() -> None:
    """What differs in a replay is a value wiring hands down; no area branches on it."""
    offenders = [
        f"{rel(path)}:{node.lineno} uses .{node.attr}"
        for path, node in area_nodes()
        if isinstance(node, ast.Attribute) and node.attr in {"replaying", "scenario", "section"}
    ]
    assert offenders == []


def test_no_area_tells_a_replay_by_the_type_of_its_clock() -> None:
    """An ``isinstance`` on the clock is asking "am I replaying" by another name: wiring states it."""
    clocks = {"SystemClock", "FakeClock", "AdvancingClock"}
    offenders = []
    for path, node in area_nodes():
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance":
            named = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} & clocks
            if named:
                offenders.append(f"{rel(path)}:{node.lineno} isinstance on {', '.join(sorted(named))}")
    assert offenders == []
