"""Snapshot selection and coordination between requests.

* Latest reads (no ``snapshot_id``) are serialized: under one lock the store is checked for a
  snapshot young enough, otherwise one collection runs. Two concurrent latest requests therefore
  share one collection; forced refreshes (``max_age_ms: 0``) each collect.
* Pinned reads never take that lock: they read the store directly, so they answer while a
  collection runs.
* A collection runs in its own task. A caller that gives up (cancellation) does not stop it; it
  finishes, stores its snapshot and releases the lock, so nothing is left wedged.
"""

from __future__ import annotations

import asyncio
from typing import Any, Protocol

from wslmcp.observe.catalog import build_catalog
from wslmcp.observe.model import CpuScope, Observation
from wslmcp.observe.store import Snapshot, SnapshotStore


class Collects(Protocol):
    """What the service needs from a collector (``collector.Collector`` in production)."""

    @property
    def cpu_scope(self) -> CpuScope: ...

    async def collect(self) -> Observation: ...


class ObserveService:
    def __init__(self, store: SnapshotStore, collector: Collects) -> None:
        self.store, self._collector = store, collector
        self._lock = asyncio.Lock()
        self._running: set[asyncio.Task[Snapshot]] = set()
        self.collections = 0

    @property
    def cpu_scope(self) -> CpuScope:
        return self._collector.cpu_scope

    def pinned(self, snapshot_id: str) -> Snapshot:
        return self.store.get(snapshot_id)

    async def latest(self, max_age_ms: int) -> Snapshot:
        task = asyncio.ensure_future(self._latest_locked(max_age_ms))
        self._running.add(task)
        task.add_done_callback(self._finished)
        return await asyncio.shield(task)

    def _finished(self, task: asyncio.Task[Snapshot]) -> None:
        self._running.discard(task)
        if not task.cancelled():
            task.exception()  # retrieved: a caller that gave up must not leave an unread error behind

    async def _latest_locked(self, max_age_ms: int) -> Snapshot:
        async with self._lock:
            if max_age_ms > 0:
                found = self.store.latest(max_age_ms / 1000.0)
                if found is not None:
                    return found
            observation = await self._collector.collect()
            self.collections += 1
            return self._store(observation)

    def _store(self, obs: Observation) -> Snapshot:
        sequence = self.store.next_sequence
        catalog = build_catalog(
            sequence, obs.projections, obs.summary.host_logical_cpu_count, epoch=self.store.scope
        )
        wall_ms = int(obs.completed_wall * 1000)
        meta: dict[str, Any] = {
            "snapshot_id": self.store.snapshot_id(sequence),
            "captured_at_unix_ms": wall_ms if 0 <= wall_ms < 2**63 else None,
            "sample_window_ms": obs.sample_window_ms,
            "warnings": list(obs.warnings),
            "resource_id_scope": "observation",
            "cpu_scope": self.cpu_scope,
        }
        snap = Snapshot(
            snapshot_id=meta["snapshot_id"],
            sequence=sequence,
            completed_monotonic=obs.completed_monotonic,
            meta=meta,
            summary=obs.summary.to_json(),
            catalog=catalog,
        )
        self.store.insert(snap)
        return snap
