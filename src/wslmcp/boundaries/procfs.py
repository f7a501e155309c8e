"""/proc as a boundary: one *sample* is every /proc file one observation needs, read as raw bytes.

Contract
--------
``read_sample(light_for=()) -> ProcSample``
    ``files`` maps a path relative to the /proc root (``"stat"``, ``"1234/cmdline"``) to the exact
    bytes the kernel produced: no decoding, no stripping (a kernel thread's empty ``cmdline`` is
    ``b""``, a ``comm`` may hold spaces, parentheses, newlines or invalid UTF-8).
    Global files: ``GLOBAL_FILES`` (each absent when unreadable: ``pressure/*`` exists only on
    kernels with PSI, detected by reading it). Per process, for every numeric entry of /proc:
    ``PID_FILES`` (``stat`` first: a process without a readable ``stat`` has no other file;
    ``io`` is readable only for the reader's own processes, or as root) and ``PID_LINKS``, each
    stored as the link's target (``cwd`` -> ``b"/mnt/c/src"``), absent when it cannot be read.
    ``light_for``: PIDs of which the caller needs only ``stat`` (it has their command line and
    working directory from before): a source may leave out their ``DETAIL_FILES`` (the local one
    does; one read through wsl.exe reads everything anyway). A process that exits while the sample is read is simply
    absent, or present with only the files read before it vanished; that is never an error.
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
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Protocol

BASE_FILES: tuple[str, ...] = ("stat", "uptime", "meminfo", "sys/kernel/random/boot_id")
#: the pressure evidence of issue 21: memory and swap activity, disks, mounts (which are Windows
#: drives), and PSI where the kernel has it. Recordings made before them lack them.
PRESSURE_FILES: tuple[str, ...] = (
    "vmstat",
    "diskstats",
    "mounts",
    "pressure/cpu",
    "pressure/memory",
    "pressure/io",
)
GLOBAL_FILES: tuple[str, ...] = BASE_FILES + PRESSURE_FILES
PID_FILES: tuple[str, ...] = ("stat", "cmdline", "io")
PID_LINKS: tuple[str, ...] = ("cwd",)
#: what ``light_for`` leaves out (a history sample needs only ``stat``)
DETAIL_FILES: tuple[str, ...] = ("cmdline", "io", "cwd")


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
    def read_sample(self, light_for: Collection[int] = ()) -> ProcSample: ...


@dataclass(frozen=True, slots=True)
class Mount:
    """One line of ``/proc/mounts``: where, what type, from what (octal escapes decoded)."""

    point: bytes
    fstype: bytes
    source: bytes


_ESCAPE = re.compile(rb"\\([0-7]{3})")


def parse_mounts(data: bytes | None) -> list[Mount]:
    """The mounts of a ``mounts`` file, in its order (a later mount over the same point wins)."""
    found = []
    for line in (data or b"").splitlines():
        fields = line.split(b" ")
        if len(fields) >= 3:
            point, source = (
                _ESCAPE.sub(lambda m: bytes([int(m.group(1), 8) & 0xFF]), f) for f in fields[1::-1]
            )
            found.append(Mount(point, fields[2], source))
    return found


def mount_of(path: bytes, mounts: Sequence[Mount]) -> Mount | None:
    """The mount ``path`` lies on: the longest mount point that is ``path`` or a directory above it
    (the last one listed for that point)."""
    best: Mount | None = None
    for m in mounts:
        point = m.point.rstrip(b"/")
        if (path in (m.point, point) or path.startswith(point + b"/")) and (
            best is None or len(point) >= len(best.point.rstrip(b"/"))
        ):
            best = m
    return best


def numeric_entries(names: Iterable[str]) -> list[int]:
    return sorted(int(n) for n in names if n.isascii() and n.isdigit())


class LocalProcSource:
    """Reads a local procfs (``/proc`` by default; any directory laid out like it works too)."""

    def __init__(self, root: str = "/proc") -> None:
        self._root = root

    def read_sample(self, light_for: Collection[int] = ()) -> ProcSample:
        try:
            root = os.open(self._root, os.O_RDONLY | os.O_DIRECTORY)
        except OSError as exc:
            raise ProcUnavailable(f"cannot list {self._root}: {exc.strerror or exc}") from exc
        try:
            files: dict[str, bytes] = {}
            for name in GLOBAL_FILES:
                data = _read(root, name)
                if data is not None:
                    files[name] = data
            light = frozenset(light_for)
            for pid in numeric_entries(os.listdir(root)):
                self._read_process(root, pid, pid in light, files)
        finally:
            os.close(root)
        return ProcSample.build(files, clk_tck=_sysconf("SC_CLK_TCK", 100), page_size=_page_size())

    @staticmethod
    def _read_process(root: int, pid: int, light: bool, files: dict[str, bytes]) -> None:
        for name in PID_FILES:
            if light and name in DETAIL_FILES:
                continue
            data = _read(root, f"{pid}/{name}")
            if data is None and name == "stat":
                return  # gone (or unreadable): nothing else of it is kept
            if data is not None:
                files[f"{pid}/{name}"] = data
        if light:
            return
        for name in PID_LINKS:
            try:
                files[f"{pid}/{name}"] = os.readlink(f"{pid}/{name}".encode(), dir_fd=root)
            except OSError:
                continue


def _read(root: int, rel: str) -> bytes | None:
    """A whole file under the directory ``root`` (a descriptor: one lookup per file, not per path
    component), or None when it cannot be opened or read."""
    try:
        fd = os.open(rel, os.O_RDONLY, dir_fd=root)
    except OSError:
        return None
    try:
        chunks = []
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def _sysconf(name: str, default: int) -> int:
    try:
        value = os.sysconf(name)
    except (ValueError, OSError, AttributeError):
        return default
    return value if value > 0 else default


def _page_size() -> int:
    return _sysconf("SC_PAGE_SIZE", 4096)
