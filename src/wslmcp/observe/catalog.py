"""A snapshot's resource catalog: opaque observation-scoped IDs, observed parent/child links.

Resource IDs embed the snapshot's sequence number, so the same process in a later snapshot gets a
different ID and an old ID is unknown there. IDs are looked up by exact string; the server never
decodes what a caller sends. Parents come only from observed relationships carried by the rows
(``Observed.parents``), never from PID ancestry.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from wslmcp.observe.errors import AmbiguousResource, InvalidHierarchy
from wslmcp.observe.model import ENVIRONMENTS, Identity, Observed, cores_used

_ENV_RANK = {env: i for i, env in enumerate(ENVIRONMENTS)}


def resource_id(epoch: str, sequence: int, identity: Identity) -> str:
    key = [
        epoch,
        sequence,
        identity.environment,
        identity.kind,
        identity.source,
        identity.native_id,
        identity.start_id,
    ]
    raw = json.dumps(key, separators=(",", ":"), ensure_ascii=False).encode()
    return "r2-" + base64.urlsafe_b64encode(raw).decode().rstrip("=")


@dataclass(frozen=True, slots=True)
class Entry:
    """One catalog resource: its JSON object plus the keys listings filter and sort on."""

    resource_id: str
    json: dict[str, Any]
    environment: str
    kind: str
    name: str
    cpu: float | None
    memory: int | None


@dataclass(frozen=True)
class Catalog:
    entries: tuple[Entry, ...]  # in tie-break order: environment, source, name, native id
    by_id: dict[str, Entry]
    children: dict[str, tuple[str, ...]]


def build_catalog(
    sequence: int, projections: Sequence[Sequence[Observed]], host_cpus: int, *, epoch: str
) -> Catalog:
    """Union of the projections, one entry per identity.

    Raises ``AmbiguousResource`` for a duplicate identity inside one projection or the same identity
    with different values across projections, and ``InvalidHierarchy`` for a parent that was not
    observed, self-parenting, or a cycle.
    """
    rows: dict[Identity, Observed] = {}
    for projection in projections:
        seen: set[Identity] = set()
        for row in projection:
            if row.identity in seen:
                raise AmbiguousResource(f"duplicate identity in one projection: {_describe(row.identity)}")
            seen.add(row.identity)
            other = rows.get(row.identity)
            if other is None:
                rows[row.identity] = row
            elif other != row:
                raise AmbiguousResource(f"conflicting observations of {_describe(row.identity)}")
    ids = {ident: resource_id(epoch, sequence, ident) for ident in rows}
    parents_of: dict[Identity, tuple[Identity, ...]] = {}
    for ident, row in rows.items():
        for parent in row.parents:
            if parent == ident:
                raise InvalidHierarchy(f"{_describe(ident)} is its own parent")
            if parent not in rows:
                raise InvalidHierarchy(f"{_describe(ident)} names a parent that was not observed")
        parents_of[ident] = tuple(dict.fromkeys(row.parents))
    _reject_cycles(parents_of)
    children: dict[str, list[str]] = {}
    ordered = sorted(rows.values(), key=_tie_break)
    entries = []
    for row in ordered:
        rid = ids[row.identity]
        parent_ids = [ids[p] for p in parents_of[row.identity]]
        for pid in parent_ids:
            children.setdefault(pid, []).append(rid)
        obj = {
            "resource_id": rid,
            "parent_ids": parent_ids,
            "cores_used": cores_used(row.cpu_percent, host_cpus),
            "usage": row.usage(),
        }
        entries.append(
            Entry(
                rid,
                obj,
                row.identity.environment,
                row.identity.kind,
                row.name,
                row.cpu_percent,
                row.memory_bytes,
            )
        )
    return Catalog(
        entries=tuple(entries),
        by_id={e.resource_id: e for e in entries},
        children={k: tuple(v) for k, v in children.items()},
    )


def _tie_break(row: Observed) -> tuple[int, str, str, str, int]:
    ident = row.identity
    return (_ENV_RANK[ident.environment], ident.source or "", row.name, ident.native_id, ident.start_id or 0)


def _describe(ident: Identity) -> str:
    where = f"{ident.environment}{'/' + ident.source if ident.source else ''}"
    return f"{ident.kind} {ident.native_id!r} in {where}"


def _reject_cycles(parents_of: dict[Identity, tuple[Identity, ...]]) -> None:
    state: dict[Identity, int] = {}  # 1 = on the current path, 2 = done
    for start, first_parents in parents_of.items():
        if state.get(start):
            continue
        stack: list[tuple[Identity, Iterator[Identity]]] = [(start, iter(first_parents))]
        state[start] = 1
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[node] = 2
                stack.pop()
                continue
            mark = state.get(nxt)
            if mark == 1:
                raise InvalidHierarchy(f"parent cycle through {_describe(nxt)}")
            if mark is None:
                state[nxt] = 1
                stack.append((nxt, iter(parents_of[nxt])))
