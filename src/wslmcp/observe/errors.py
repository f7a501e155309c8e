"""Operational failures with their stable codes (the ``error.code`` of an ``isError`` tool result)."""

from __future__ import annotations


class ObserveError(Exception):
    code = "internal_error"


class SnapshotUnavailable(ObserveError):
    code = "snapshot_unavailable"


class UnknownResource(ObserveError):
    code = "unknown_resource"


class AmbiguousResource(ObserveError):
    code = "ambiguous_resource"


class InvalidHierarchy(ObserveError):
    code = "invalid_hierarchy"


class CollectionFailed(ObserveError):
    code = "collection_failed"


class SnapshotError(ObserveError):
    """Store invariants: future or out-of-order completion, an already-expired observation."""

    code = "snapshot_error"
