"""WSLC (the ``wslc.exe`` container CLI) as a boundary.

Contract
--------
``run(args) -> Exchange``
    Runs ``wslc.exe`` with ``args`` (``["list", "--format", "json"]``, ``["stats", ...]``), stdin
    closed, and returns raw stdout/stderr bytes with the exit code; a non-zero exit is a normal
    result the caller interprets.
Errors
    ``FileNotFoundError`` when wslc.exe is not installed: the collector reports WSLC as absent,
    never as zero containers.

Real adapter: the CLI (observe part 2). Fake: recorded outputs keyed by args.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from wslmcp.boundaries.process import Exchange


class Wslc(Protocol):
    async def run(self, args: Sequence[str], *, timeout_s: float | None = None) -> Exchange: ...
