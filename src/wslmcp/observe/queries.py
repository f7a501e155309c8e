"""Listing a catalog: filters, then sort, then limit. Nulls sort last in either order; CPU ties
break by memory descending (then catalog order)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from wslmcp.observe.catalog import Catalog, Entry
from wslmcp.observe.errors import UnknownResource

SortBy = Literal["cpu", "memory", "name"]
SortOrder = Literal["asc", "desc"]
DEFAULT_LIMIT = 30


@dataclass(frozen=True)
class ListOptions:
    sort_by: SortBy = "cpu"
    sort_order: SortOrder = "desc"
    limit: int = DEFAULT_LIMIT
    environment: str | None = None
    resource_kind: str | None = None
    name_contains: str | None = None


def select(entries: Iterable[Entry], opts: ListOptions) -> list[dict[str, Any]]:
    if opts.limit == 0:
        return []
    rows = [
        e
        for e in entries
        if (opts.environment is None or e.environment == opts.environment)
        and (opts.resource_kind is None or e.kind == opts.resource_kind)
        and (not opts.name_contains or opts.name_contains in e.name)
    ]
    desc = opts.sort_order == "desc"
    if opts.sort_by == "name":
        rows.sort(key=lambda e: e.name, reverse=desc)  # stable: ties keep catalog order
    else:
        attr = "cpu" if opts.sort_by == "cpu" else "memory"
        known = [e for e in rows if getattr(e, attr) is not None]
        unknown = [e for e in rows if getattr(e, attr) is None]
        if attr == "cpu":
            # memory descending inside a CPU tie, whichever way CPU is sorted (unknown memory last)
            known.sort(key=lambda e: -e.memory if e.memory is not None else 1)
            unknown.sort(key=lambda e: -e.memory if e.memory is not None else 1)
        known.sort(key=lambda e: getattr(e, attr), reverse=desc)
        rows = known + unknown
    return [e.json for e in rows[: opts.limit]]


def inspect(catalog: Catalog, resource_id: str) -> dict[str, Any]:
    entry = catalog.by_id.get(resource_id)
    if entry is None:
        raise UnknownResource("no such resource in this snapshot (resource IDs belong to their snapshot)")
    return entry.json


def children(catalog: Catalog, resource_id: str, opts: ListOptions) -> list[dict[str, Any]]:
    if resource_id not in catalog.by_id:
        raise UnknownResource("no such resource in this snapshot (resource IDs belong to their snapshot)")
    kids = catalog.children.get(resource_id, ())
    return select((catalog.by_id[k] for k in kids), opts)
