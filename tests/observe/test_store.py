"""Snapshot store semantics on the fake clock: retention boundary, capacity eviction, inclusive max_age."""

from __future__ import annotations

import pytest

from wslmcp.fakes.clock import FakeClock
from wslmcp.observe.catalog import Catalog
from wslmcp.observe.errors import SnapshotError, SnapshotUnavailable
from wslmcp.observe.store import Snapshot, SnapshotStore

EMPTY = Catalog(entries=(), by_id={}, children={})


def snap(store: SnapshotStore, completed: float) -> Snapshot:
    seq = store.next_sequence
    return Snapshot(store.snapshot_id(seq), seq, completed, {}, {}, EMPTY)


def stored(store: SnapshotStore, clock: FakeClock) -> Snapshot:
    s = snap(store, clock.monotonic())
    store.insert(s)
    return s


def test_readable_just_before_retention_and_unavailable_at_it() -> None:
    clock = FakeClock(0.0)
    store = SnapshotStore(clock, "x", capacity=4, retention_s=10.0)
    s = stored(store, clock)
    clock.advance(9.999)
    assert store.get(s.snapshot_id) is s
    clock.advance(0.001)
    with pytest.raises(SnapshotUnavailable):
        store.get(s.snapshot_id)


def test_retention_counts_from_completion_not_insertion() -> None:
    clock = FakeClock(0.0)
    store = SnapshotStore(clock, "x", retention_s=10.0)
    s = snap(store, 0.0)
    clock.advance(4.0)
    store.insert(s)
    clock.advance(6.0)
    with pytest.raises(SnapshotUnavailable):
        store.get(s.snapshot_id)


def test_fifth_insertion_evicts_the_first() -> None:
    clock = FakeClock(0.0)
    store = SnapshotStore(clock, "x")
    first = stored(store, clock)
    others = []
    for _ in range(4):
        clock.advance(1.0)
        others.append(stored(store, clock))
    with pytest.raises(SnapshotUnavailable):
        store.get(first.snapshot_id)
    assert [store.get(o.snapshot_id) for o in others] == others
    assert len(store) == 4


def test_capacity_one_evicts_on_every_insertion() -> None:
    clock = FakeClock(0.0)
    store = SnapshotStore(clock, "x", capacity=1)
    a = stored(store, clock)
    b = stored(store, clock)
    with pytest.raises(SnapshotUnavailable):
        store.get(a.snapshot_id)
    assert store.get(b.snapshot_id) is b


def test_max_age_is_inclusive() -> None:
    clock = FakeClock(0.0)
    store = SnapshotStore(clock, "x")
    s = stored(store, clock)
    clock.advance(2.0)
    assert store.latest(2.0) is s
    clock.advance(0.001)
    assert store.latest(2.0) is None


def test_latest_never_returns_an_expired_snapshot_whatever_max_age() -> None:
    clock = FakeClock(0.0)
    store = SnapshotStore(clock, "x", retention_s=60.0)
    stored(store, clock)
    clock.advance(60.0)
    assert store.latest(10_000.0) is None


def test_unknown_and_foreign_ids_are_unavailable() -> None:
    clock = FakeClock(0.0)
    store = SnapshotStore(clock, "mine")
    stored(store, clock)
    for sid in ("missing", "other-1", "mine-2", ""):
        with pytest.raises(SnapshotUnavailable):
            store.get(sid)


def test_rejected_insertions_change_nothing() -> None:
    clock = FakeClock(100.0)
    store = SnapshotStore(clock, "x", retention_s=10.0)
    good = stored(store, clock)
    for completed in (101.0, 99.0, 80.0):  # future, out of order, already expired
        with pytest.raises(SnapshotError):
            store.insert(snap(store, completed))
    assert store.next_sequence == 2
    assert store.latest(0.0) is good


def test_sequence_only_advances_on_success_and_ids_are_scoped() -> None:
    clock = FakeClock(0.0)
    a, b = SnapshotStore(clock, "aaa"), SnapshotStore(clock, "bbb")
    sa, sb = stored(a, clock), stored(b, clock)
    assert sa.snapshot_id != sb.snapshot_id
    with pytest.raises(SnapshotUnavailable):
        a.get(sb.snapshot_id)
