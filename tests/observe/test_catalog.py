"""Catalog identity and listings: observation-scoped IDs, filters before sort before limit,
case-sensitive names, nulls last, cores_used."""

from __future__ import annotations

import pytest

from wslmcp.observe.catalog import build_catalog
from wslmcp.observe.errors import AmbiguousResource, InvalidHierarchy
from wslmcp.observe.model import Identity, Observed, cores_used
from wslmcp.observe.queries import ListOptions, select


def row(
    pid: int, name: str, cpu: float | None, mem: int, source: str | None = None, **kw: object
) -> Observed:
    ident = Identity("wsl", "process", source, str(pid), pid)
    return Observed(ident, name, pid, 1, None, cpu, 1.0, mem, **kw)  # type: ignore[arg-type]


ROWS = [
    row(1, "init", 0.0, 100),
    row(2, "Build", 5.0, 300),
    row(3, "build-helper", None, 50),
    row(4, "zsh", 1.0, 900),
]


def names(opts: ListOptions) -> list[str]:
    return [r["usage"]["name"] for r in select(build_catalog(1, [ROWS], 16, epoch="e").entries, opts)]


def test_cpu_desc_puts_unknown_rates_last() -> None:
    assert names(ListOptions()) == ["Build", "zsh", "init", "build-helper"]
    assert names(ListOptions(sort_order="asc")) == ["init", "zsh", "Build", "build-helper"]


def test_memory_and_name_sorts() -> None:
    assert names(ListOptions(sort_by="memory", limit=2)) == ["zsh", "Build"]
    assert names(ListOptions(sort_by="name", sort_order="asc")) == ["Build", "build-helper", "init", "zsh"]


def test_filters_run_before_the_limit_and_names_are_case_sensitive() -> None:
    assert names(ListOptions(name_contains="build", limit=1)) == ["build-helper"]
    assert names(ListOptions(name_contains="Build")) == ["Build"]
    assert names(ListOptions(name_contains="")) == names(ListOptions())
    assert names(ListOptions(environment="docker")) == []
    assert names(ListOptions(resource_kind="process", limit=0)) == []


def test_ids_are_scoped_to_their_snapshot_and_distinct_across_sources() -> None:
    a = build_catalog(1, [ROWS], 16, epoch="e")
    b = build_catalog(2, [ROWS], 16, epoch="e")
    assert not set(a.by_id) & set(b.by_id)
    same_pid = build_catalog(1, [[row(7, "x", 0.0, 1), row(7, "x", 0.0, 1, source="Debian")]], 16, epoch="e")
    assert len(same_pid.by_id) == 2


def test_ids_never_coincide_across_server_sessions() -> None:
    # two server processes both store their first snapshot as sequence 1
    one = build_catalog(1, [ROWS], 16, epoch="a" * 32)
    two = build_catalog(1, [ROWS], 16, epoch="b" * 32)
    assert not set(one.by_id) & set(two.by_id)


def test_cpu_ties_break_by_memory_descending() -> None:
    tied = [row(1, "a", 2.0, 100), row(2, "b", 2.0, 900), row(3, "c", 2.0, 500), row(4, "d", 3.0, 1)]
    cat = build_catalog(1, [tied], 16, epoch="e")
    for order in ("desc", "asc"):
        got = [r["usage"]["name"] for r in select(cat.entries, ListOptions(sort_order=order))]
        ties = [n for n in got if n != "d"]
        assert ties == ["b", "c", "a"], order


def test_identical_rows_across_projections_share_one_entry_and_conflicts_are_ambiguous() -> None:
    assert len(build_catalog(1, [ROWS, ROWS[:2]], 16, epoch="e").entries) == 4
    with pytest.raises(AmbiguousResource):
        build_catalog(1, [ROWS, [row(1, "init", 9.0, 100)]], 16, epoch="e")


def test_an_unobserved_parent_is_invalid() -> None:
    ghost = Identity("windows", "host", None, "vmmem", None)
    with pytest.raises(InvalidHierarchy):
        build_catalog(1, [[row(1, "a", 0.0, 1, parents=(ghost,))]], 16, epoch="e")


def test_cores_used() -> None:
    assert cores_used(3.0, 16) == pytest.approx(0.48)
    assert cores_used(6.25, 16) == 1.0
    assert cores_used(None, 16) is None and cores_used(5.0, 0) is None and cores_used(-1.0, 4) is None
