"""WSLC (the ``wslc.exe`` container CLI) as a boundary.

Contract
--------
``run(args, *, timeout_s=None) -> Exchange``
    Runs ``wslc.exe`` with ``args`` (``LIST_ARGS``: ``container list --format json --no-trunc``;
    ``STATS_ARGS``: ``container stats --format json --no-trunc``), stdin closed, ``WSL_UTF8=1``,
    and returns raw stdout/stderr bytes with the exit code; a non-zero exit is a normal result
    the caller interprets. wslc shares wsl.exe's message printing, so its output is decoded like
    wsl.exe's own (``decode_wslc_json``: BOM / UTF-16LE detection, then JSON).
    ``container list`` gives a JSON array of ``{"Id", "Name", "Image", "State", ...}``;
    ``container stats`` a JSON array of ``{"ID", "Name", "CPUPerc": "12.34%",
    "MemUsage": "12.50 MiB / 1.95 GiB", "MemPerc", "NetIO", "BlockIO", "PIDs"}`` where CPUPerc is
    docker's formula (one busy core = 100) and MemUsage is the raw cgroup usage (no
    inactive_file subtraction, unlike ``docker stats``); sizes are ``B/KiB/MiB/GiB/TiB`` (or
    decimal ``kB/MB/GB/TB``) with a space. Containers that vanish between list and stats are
    simply missing from stats.
Errors
    ``FileNotFoundError`` when wslc.exe is not installed: the collector reports WSLC as absent,
    never as zero containers. ``WslcGarbage`` (from the decoders) when the output is not what
    the CLI prints.

Real adapter: ``WslcCli`` (found by ``find_wslc``: PATH, ``%ProgramFiles%\\WSL\\wslc.exe``,
``/mnt/c/Program Files/WSL/wslc.exe`` inside WSL). Twin: ``fakes.wslc.FakeWslc`` (recorded
exchanges keyed by args). On Linux CI the real adapter runs against a ``wslc.exe`` stand-in on PATH.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Protocol

from wslmcp.boundaries.process import Exchange

LIST_ARGS: Final = ("container", "list", "--format", "json", "--no-trunc")
STATS_ARGS: Final = ("container", "stats", "--format", "json", "--no-trunc")


class WslcGarbage(ValueError):
    """wslc.exe printed something that is not its documented output."""


class Wslc(Protocol):
    async def run(self, args: Sequence[str], *, timeout_s: float | None = None) -> Exchange: ...
