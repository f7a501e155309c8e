"""Snapshot selection and coordination between requests.

* Latest reads (no ``snapshot_id``) are serialized: under one lock the store is checked for a
  snapshot young enough, otherwise one collection runs. Two concurrent latest requests therefore
  share one collection; forced refreshes (``max_age_ms: 0``) each collect.
* Pinned reads never take that lock: they read the store directly, so they answer while a
  collection runs.
* A collection runs in its own task. A caller that gives up (cancellation) does not stop it; it
  finishes, stores its snapshot and releases the lock, so nothing is left wedged.
* History (``sampler``): ``running()`` keeps the background sampler for the server's life (real
  time); ``prepare()`` runs before every request (on a replay's virtual clock it takes the samples
  due). ``history_snapshot(keys)`` is the latest snapshot for history answers' resource IDs: the
  newest retained one when it holds those consumers, else the sampler's newest observation stored.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any, Protocol

from wslmcp.observe.catalog import build_catalog, resource_id
from wslmcp.observe.errors import SnapshotError
from wslmcp.observe.history import Key
from wslmcp.observe.model import CpuScope, Identity, Observation
from wslmcp.observe.sampler import HistorySampler
from wslmcp.observe.store import Snapshot, SnapshotStore


class Collects(Protocol):
    """What the service needs from a collector (``collector.Collector`` in production)."""

    @property
    def cpu_scope(self) -> CpuScope: ...

    async def collect(self) -> Observation: ...


class ObserveService:
    def __init__(
        self, store: SnapshotStore, collector: Collects, sampler: HistorySampler | None = None
    ) -> None:
        self.store, self._collector, self.sampler = store, collector, sampler
        self.clock = store.clock
        self._lock = asyncio.Lock()
        self._running: set[asyncio.Task[Snapshot]] = set()
        self.collections = 0

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """The server's life: the history sampler runs in the background (real time only)."""
        if self.sampler is None:
            yield
            return
        async with self.sampler.running():
            yield

    async def prepare(self) -> None:
        """Before a request: on a replay's virtual clock, the history samples now due."""
        if self.sampler is not None:
            await self.sampler.catch_up()

    def history_snapshot(self, keys: Sequence[Key]) -> Snapshot | None:
        """The latest snapshot for history answers' resource IDs: the newest retained one when it
        holds every consumer in ``keys`` (an investigation keeps its snapshot), else the sampler's
        newest observation stored as a snapshot (it holds everything alive); None before any."""
        snap = self.store.latest(self.store.retention_s)
        newest = self.sampler.latest if self.sampler is not None else None
        if snap is not None and all(
            self.resource_id(snap, k) is not None for k in keys if k.level != "application"
        ):
            return snap
        if newest is None or (snap is not None and snap.completed_monotonic >= newest.completed_monotonic):
            return snap
        try:
            return self._store(newest)
        except SnapshotError:  # expired meanwhile: what is retained
            return snap

    def resource_id(self, snap: Snapshot, key: Key) -> str | None:
        """A history consumer's resource ID in ``snap``, when it is there (processes and containers)."""
        if key.level == "application":
            return None
        ident = Identity(key.environment, key.kind, key.source, key.native, key.start)  # type: ignore[arg-type]
        rid = resource_id(self.store.scope, snap.sequence, ident)
        return rid if rid in snap.catalog.by_id else None

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
