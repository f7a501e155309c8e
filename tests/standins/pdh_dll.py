"""A pdh.dll stand-in for ``PdhQuery``'s calls (``PdhOpenQueryW``, ``PdhAddEnglishCounterW``,
``PdhCollectQueryData``, ``PdhGetRawCounterArrayW`` with its size-then-data protocol, ``PdhCloseQuery``),
taking ctypes arguments as pdh.dll does and filling the caller's buffer in the documented
``PDH_RAW_COUNTER_ITEM_W`` layout, names stored after the items. Each collect moves to the next sample."""

from __future__ import annotations

import ctypes
from collections.abc import Mapping, Sequence
from typing import Any

from wslmcp.boundaries.pdh_ctypes import (
    PDH_CSTATUS_NO_OBJECT,
    PDH_MORE_DATA,
    FileTime,
    PdhRawCounter,
    RawCounterItem,
)

# per sample: path -> [(instance, first, second, timestamp_100ns, status)]; a path left out does not exist
Samples = Sequence[Mapping[str, Sequence[tuple[str, int, int, int, int]]]]


def _obj(arg: Any) -> Any:
    return getattr(arg, "_obj", arg)  # what ctypes.byref(x) points at


class PdhDllStandin:
    def __init__(self, samples: Samples) -> None:
        self.samples = samples
        self.collects = 0
        self.calls: list[str] = []
        self.paths: dict[int, str] = {}
        self.open_queries = 0

    def PdhOpenQueryW(self, source: Any, user: Any, query: Any) -> int:
        self.calls.append("PdhOpenQueryW")
        self.open_queries += 1
        _obj(query).value = 0x1000
        return 0

    def PdhAddEnglishCounterW(self, query: Any, path: Any, user: Any, counter: Any) -> int:
        self.calls.append(f"PdhAddEnglishCounterW {path.value}")
        if path.value not in self.samples[0]:
            return PDH_CSTATUS_NO_OBJECT - (1 << 32)  # as a signed LONG, the way ctypes returns it
        handle = 0x2000 + len(self.paths)
        self.paths[handle] = path.value
        _obj(counter).value = handle
        return 0

    def PdhCollectQueryData(self, query: Any) -> int:
        self.calls.append("PdhCollectQueryData")
        self.collects += 1
        return 0

    def PdhGetRawCounterArrayW(self, counter: Any, size: Any, count: Any, buffer: Any) -> int:
        rows = self.samples[min(self.collects, len(self.samples)) - 1][self.paths[counter.value]]
        item = ctypes.sizeof(RawCounterItem)
        names = [(r[0] + "\0").encode("utf-16-le") for r in rows]
        needed = item * len(rows) + sum(len(n) for n in names)
        if buffer is None or _obj(size).value < needed:
            _obj(size).value, _obj(count).value = needed, len(rows)
            return PDH_MORE_DATA - (1 << 32)
        base = ctypes.addressof(buffer)
        at = item * len(rows)
        for i, ((_, first, second, stamp, status), name) in enumerate(zip(rows, names, strict=True)):
            raw = PdhRawCounter(status, FileTime(stamp & 0xFFFFFFFF, stamp >> 32), first, second, 1)
            entry = RawCounterItem(base + at, raw)
            ctypes.memmove(base + i * item, ctypes.addressof(entry), item)
            ctypes.memmove(base + at, name, len(name))
            at += len(name)
        _obj(count).value = len(rows)
        return 0

    def PdhCloseQuery(self, query: Any) -> int:
        self.calls.append("PdhCloseQuery")
        self.open_queries -= 1
        return 0
