"""Operational failures with their stable codes (the ``error.code`` of an ``isError`` tool result)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class ObserveError(Exception):
    code = "internal_error"

    def payload(self) -> dict[str, Any]:
        """The tool error's ``structuredContent``."""
        return {"error": {"code": self.code, "message": str(self)}}


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


class UnknownMetric(ObserveError):
    """``get_metric_series`` of a name it does not keep; the answer lists the names it keeps."""

    code = "unknown_metric"

    def __init__(self, metric: str, metrics: Sequence[str]) -> None:
        super().__init__(f"unknown metric {metric!r}; use one of the names in 'metrics'")
        self.metrics = list(metrics)

    def payload(self) -> dict[str, Any]:
        return {**super().payload(), "metrics": self.metrics}
