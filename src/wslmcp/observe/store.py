"""The snapshot store: at most ``capacity`` observations, each readable for ``retention_s`` after
its collection completed (monotonic clock), evicted oldest-first.

Snapshot IDs are ``<scope>-<sequence>``: a random per-run scope (given by the caller) and a
counter that only advances on a successful insertion. Clients treat them as opaque. Unknown,
evicted, expired and foreign IDs all read as ``SnapshotUnavailable``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from wslmcp.boundaries.clock import Clock
from wslmcp.observe.catalog import Catalog
from wslmcp.observe.errors import SnapshotError, SnapshotUnavailable

CAPACITY = 4
RETENTION_S = 60.0


@dataclass(frozen=True)
class Snapshot:
    snapshot_id: str
    sequence: int
    completed_monotonic: float
    meta: Mapping[str, Any]  # the exact ``snapshot`` object every read of this snapshot returns
    summary: Mapping[str, Any]
    catalog: Catalog


class SnapshotStore:
    def __init__(
        self, clock: Clock, scope: str, capacity: int = CAPACITY, retention_s: float = RETENTION_S
    ) -> None:
        if capacity < 1 or not retention_s > 0:
            raise ValueError("capacity and retention must be positive")
        self._clock, self._scope = clock, scope
        self.capacity, self.retention_s = capacity, retention_s
        self._items: list[Snapshot] = []
        self._last_sequence = 0

    @property
    def clock(self) -> Clock:
        return self._clock

    @property
    def scope(self) -> str:
        """This server session's epoch: random per run, shared by its snapshot and resource IDs."""
        return self._scope

    @property
    def next_sequence(self) -> int:
        return self._last_sequence + 1

    def snapshot_id(self, sequence: int) -> str:
        return f"{self._scope}-{sequence}"

    def _age(self, snap: Snapshot) -> float:
        return self._clock.monotonic() - snap.completed_monotonic

    def get(self, snapshot_id: str) -> Snapshot:
        for snap in self._items:
            if snap.snapshot_id == snapshot_id:
                if self._age(snap) >= self.retention_s:
                    break
                return snap
        raise SnapshotUnavailable("the snapshot is unknown, evicted or expired; start again with a new one")

    def latest(self, max_age_s: float) -> Snapshot | None:
        """The newest snapshot if its age is within ``max_age_s`` (inclusive) and retention."""
        if not self._items:
            return None
        snap = self._items[-1]
        age = self._age(snap)
        if age >= self.retention_s or age > max_age_s:
            return None
        return snap

    def insert(self, snap: Snapshot) -> None:
        now = self._clock.monotonic()
        if snap.sequence != self.next_sequence:
            raise SnapshotError(f"sequence {snap.sequence} is not the next one ({self.next_sequence})")
        if snap.completed_monotonic > now:
            raise SnapshotError("an observation cannot complete in the future")
        if self._items and snap.completed_monotonic < self._items[-1].completed_monotonic:
            raise SnapshotError("an observation completed before the newest retained one")
        if now - snap.completed_monotonic >= self.retention_s:
            raise SnapshotError("the observation expired before it could be stored")
        self._items = [s for s in self._items if now - s.completed_monotonic < self.retention_s]
        while len(self._items) >= self.capacity:
            self._items.pop(0)
        self._items.append(snap)
        self._last_sequence = snap.sequence

    def __len__(self) -> int:
        return len(self._items)
