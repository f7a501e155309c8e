"""/proc as a boundary: one *sample* is every /proc file one observation needs, read as raw bytes.

Contract
--------
``read_sample() -> ProcSample``
    ``files`` maps a path relative to the /proc root (``"stat"``, ``"1234/cmdline"``) to the exact
    bytes the kernel produced: no decoding, no stripping (a kernel thread's empty ``cmdline`` is
    ``b""``, a ``comm`` may hold spaces, parentheses, newlines or invalid UTF-8).
    Global files: ``GLOBAL_FILES`` (each absent when unreadable). Per process: ``PID_FILES`` for every
    numeric entry of /proc. A process that exits while the sample is read is simply absent, or
    present with only the files read before it vanished; that is never an error.
    ``clk_tck`` and ``page_size`` are the kernel's USER_HZ and page size, needed to turn ticks and
    pages into seconds and bytes.
Errors
    ``ProcUnavailable`` when the /proc root itself cannot be read (no such directory, a wsl.exe
    call that failed): nothing at all could be sampled.

A sample is read in one go so that an adapter that goes through ``wsl.exe`` can fetch it in a
single call. Adapters: ``LocalProcSource`` here (inside a distro or on plain Linux); the
distro-via-wsl.exe adapter lives with the observe collectors' wiring.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Protocol

GLOBAL_FILES: tuple[str, ...] = ("stat", "uptime", "meminfo", "sys/kernel/random/boot_id")
PID_FILES: tuple[str, ...] = ("stat", "cmdline")


class ProcUnavailable(OSError):
    """The /proc root could not be read at all."""


@dataclass(frozen=True)
class ProcSample:
    files: Mapping[str, bytes]
    clk_tck: int
    page_size: int

    @staticmethod
    def build(files: Mapping[str, bytes], clk_tck: int, page_size: int) -> ProcSample:
        return ProcSample(files=dict(files), clk_tck=clk_tck, page_size=page_size)

    @cached_property
    def pids(self) -> tuple[int, ...]:
        """Every process with at least one file in the sample, ascending."""
        return tuple(numeric_entries({path.split("/", 1)[0] for path in self.files}))


class ProcSource(Protocol):
    def read_sample(self) -> ProcSample: ...


def numeric_entries(names: Iterable[str]) -> list[int]:
    return sorted(int(n) for n in names if n.isascii() and n.isdigit())


class LocalProcSource:
    """Reads a local procfs (``/proc`` by default; any directory laid out like it works too)."""

    def __init__(self, root: str = "/proc") -> None:
        self._root = root

    def read_sample(self) -> ProcSample:
        try:
            entries = os.listdir(self._root)
        except OSError as exc:
            raise ProcUnavailable(f"cannot list {self._root}: {exc.strerror or exc}") from exc
        files: dict[str, bytes] = {}
        for name in GLOBAL_FILES:
            data = self._read(name)
            if data is not None:
                files[name] = data
        for pid in numeric_entries(entries):
            for name in PID_FILES:
                data = self._read(f"{pid}/{name}")
                if data is None:
                    break  # gone (or unreadable): keep what was read before it vanished
                files[f"{pid}/{name}"] = data
        return ProcSample.build(files, clk_tck=_sysconf("SC_CLK_TCK", 100), page_size=_page_size())

    def _read(self, rel: str) -> bytes | None:
        try:
            with open(os.path.join(self._root, rel), "rb", buffering=0) as fh:
                chunks = []
                while chunk := fh.read(65536):
                    chunks.append(chunk)
                return b"".join(chunks)
        except OSError:
            return None


def _sysconf(name: str, default: int) -> int:
    try:
        value = os.sysconf(name)
    except (ValueError, OSError, AttributeError):
        return default
    return value if value > 0 else default


def _page_size() -> int:
    return _sysconf("SC_PAGE_SIZE", 4096)
