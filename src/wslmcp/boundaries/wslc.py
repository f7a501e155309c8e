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

Real adapter: ``wslc_cli.WslcCli`` (``wslc_cli.find_wslc``: PATH, ``%ProgramFiles%\\WSL\\wslc.exe``, then
``/mnt/c/Program Files/WSL/wslc.exe`` inside WSL), the wsl.exe transport on another executable.
Twin: ``wslmcp.fakes.wslc.FakeWslc`` (recorded exchanges keyed by args, in ``exchanges.wslc``, written by
``wslmcp.fakes.wslc.RecordingWslc``). On Linux CI the real adapter runs against a ``wslc.exe`` stand-in on PATH.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any, Final, Protocol

from wslmcp.boundaries.wsl_output import decode_wsl_output

LIST_ARGS: Final = ("container", "list", "--format", "json", "--no-trunc")
STATS_ARGS: Final = ("container", "stats", "--format", "json", "--no-trunc")
UNITS: Final[Mapping[str, int]] = {
    "B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40,
    "kB": 10**3, "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12,
}  # fmt: skip


class WslcGarbage(ValueError):
    """wslc.exe printed something that is not its documented output."""


class WslcOutput(Protocol):
    """What one wslc.exe run produced (``boundaries.process.Exchange`` has this shape)."""

    @property
    def argv(self) -> tuple[str, ...]: ...

    @property
    def stdout(self) -> bytes: ...

    @property
    def stderr(self) -> bytes: ...

    @property
    def exit_code(self) -> int | None: ...  # None: killed at the deadline

    @property
    def timed_out(self) -> bool: ...


class Wslc(Protocol):
    async def run(self, args: Sequence[str], *, timeout_s: float | None = None) -> WslcOutput: ...


def decode_wslc_json(exchange: WslcOutput) -> Any:
    """The JSON document wslc printed on stdout, decoded like wsl.exe's own output."""
    text = decode_wsl_output(exchange.stdout).strip()
    if exchange.exit_code != 0:
        why = decode_wsl_output(exchange.stderr).strip() or text
        raise WslcGarbage(f"wslc.exe {' '.join(exchange.argv[1:])} exited {exchange.exit_code}: {why[:300]}")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise WslcGarbage(
            f"wslc.exe {' '.join(exchange.argv[1:])} printed something that is not JSON ({exc.msg}): {text[:120]!r}"
        ) from None


_SIZE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([A-Za-z]+)\s*")


def parse_size(text: str) -> int:
    """``"12.50 MiB"`` → bytes (binary KiB…TiB, decimal kB…TB, ``B``)."""
    match = _SIZE.fullmatch(text)
    if match is None or match[2] not in UNITS:
        raise WslcGarbage(f"not a size wslc prints: {text!r}")
    return round(float(match[1]) * UNITS[match[2]])


def parse_percent(text: str) -> float:
    """``"12.34%"`` → 12.34 (one busy core = 100, docker's convention)."""
    number = text.strip().removesuffix("%").strip()
    try:
        value = float(number)
    except ValueError:
        raise WslcGarbage(f"not a percentage wslc prints: {text!r}") from None
    if not text.strip().endswith("%") or not math.isfinite(value) or value < 0:
        raise WslcGarbage(f"not a percentage wslc prints: {text!r}")
    return value


def parse_mem_usage(text: str) -> tuple[int, int]:
    """``"12.50 MiB / 1.95 GiB"`` → (used bytes, limit bytes); used is the raw cgroup usage."""
    used, sep, limit = text.partition("/")
    if not sep:
        raise WslcGarbage(f"not a memory usage wslc prints: {text!r}")
    return parse_size(used), parse_size(limit)
