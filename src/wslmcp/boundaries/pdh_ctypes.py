"""The real PDH adapter: pdh.dll through ctypes (``PdhGetRawCounterArrayW``; pywin32 has no raw call).

The layout of what ``PdhGetRawCounterArrayW`` fills in is declared once (``RawCounterItem``) and
parsed by ``parse_raw_array`` from the bytes of the buffer and the address it lived at (each item's
name is a pointer into the same buffer), so the parsing runs, and is tested, on any 64-bit
platform from recorded buffers; only the calls into pdh.dll need Windows.
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Mapping, Sequence
from typing import Any, Final

import psutil

from wslmcp.boundaries.pdh import (
    ALL_SETS,
    TOTAL_INSTANCE,
    CounterSample,
    InstanceSet,
    PdhUnavailable,
    RawCounter,
    SystemCpuTimes,
)

PDH_MORE_DATA: Final = 0x800007D2
PDH_CSTATUS_NO_OBJECT: Final = 0xC0000BB8
PDH_CSTATUS_NO_COUNTER: Final = 0xC0000BB9
PDH_CSTATUS_NO_INSTANCE: Final = 0x800007D1
ABSENT: Final = (PDH_CSTATUS_NO_OBJECT, PDH_CSTATUS_NO_COUNTER)


class FileTime(ctypes.Structure):
    _fields_ = (("low", ctypes.c_uint32), ("high", ctypes.c_uint32))


class PdhRawCounter(ctypes.Structure):
    _fields_ = (
        ("CStatus", ctypes.c_uint32),
        ("TimeStamp", FileTime),
        ("FirstValue", ctypes.c_int64),
        ("SecondValue", ctypes.c_int64),
        ("MultiCount", ctypes.c_uint32),
    )


class RawCounterItem(ctypes.Structure):
    """``PDH_RAW_COUNTER_ITEM_W``: the instance name (a pointer to UTF-16 text) and its counter."""

    _fields_ = (("szName", ctypes.c_void_p), ("RawValue", PdhRawCounter))


def parse_raw_array(buffer: bytes, address: int, count: int) -> dict[str, RawCounter]:
    """The ``count`` items at the start of ``buffer`` (which lived at ``address``), by instance name,
    ``_Total`` left out, the first of duplicated names kept. Raises ``PdhUnavailable`` when an item
    or a name lies outside the buffer."""
    size = ctypes.sizeof(RawCounterItem)
    if count < 0 or count * size > len(buffer):
        raise PdhUnavailable(f"PDH raw counter array: {count} items do not fit in {len(buffer)} bytes")
    out: dict[str, RawCounter] = {}
    for i in range(count):
        item = RawCounterItem.from_buffer_copy(buffer, i * size)
        name = _utf16_at(buffer, (item.szName or 0) - address)
        raw = item.RawValue
        if name == TOTAL_INSTANCE or name in out:
            continue
        out[name] = RawCounter(
            first_value=raw.FirstValue,
            second_value=raw.SecondValue,
            timestamp_100ns=(raw.TimeStamp.high << 32) | raw.TimeStamp.low,
            status=raw.CStatus,
        )
    return out


def _utf16_at(buffer: bytes, offset: int) -> str:
    if offset < 0 or offset >= len(buffer):
        raise PdhUnavailable(f"PDH raw counter array: an instance name points outside the buffer ({offset})")
    end = offset
    while end + 1 < len(buffer) and buffer[end : end + 2] != b"\0\0":
        end += 2
    if end + 1 >= len(buffer):
        raise PdhUnavailable("PDH raw counter array: an instance name is not terminated inside the buffer")
    return buffer[offset:end].decode("utf-16-le", errors="replace")


def system_cpu_times() -> SystemCpuTimes | None:
    try:
        t = psutil.cpu_times()
    except (OSError, RuntimeError):
        return None
    return SystemCpuTimes(user_s=float(t.user), system_s=float(t.system), idle_s=float(t.idle))


def _status(value: int) -> int:
    return value & 0xFFFFFFFF


class PdhQuery:
    """``PdhCounters`` on pdh.dll: one query with every set of ``ALL_SETS``, opened at the first
    ``collect`` and kept until ``close``."""

    def __init__(self, paths: Sequence[str] = ALL_SETS, dll: Any = None) -> None:
        self._paths = tuple(paths)
        self._dll = dll
        self._query: ctypes.c_void_p | None = None
        self._counters: dict[str, ctypes.c_void_p | None] = {}

    def _open(self) -> None:
        if self._dll is None:
            if sys.platform != "win32":
                raise PdhUnavailable("PDH exists only on Windows")
            try:
                self._dll = ctypes.WinDLL("pdh.dll")  # type: ignore[attr-defined,unused-ignore]
            except OSError as exc:
                raise PdhUnavailable(f"pdh.dll cannot be loaded: {exc}") from None
        query = ctypes.c_void_p()
        status = _status(self._dll.PdhOpenQueryW(None, ctypes.c_size_t(0), ctypes.byref(query)))
        if status:
            raise PdhUnavailable(f"PdhOpenQueryW failed: 0x{status:08X}")
        self._query = query
        for path in self._paths:
            counter = ctypes.c_void_p()
            status = _status(
                self._dll.PdhAddEnglishCounterW(
                    query, ctypes.c_wchar_p(path), ctypes.c_size_t(0), ctypes.byref(counter)
                )
            )
            if status in ABSENT:
                self._counters[path] = None
            elif status:
                self.close()
                raise PdhUnavailable(f"PdhAddEnglishCounterW({path}) failed: 0x{status:08X}")
            else:
                self._counters[path] = counter

    def collect(self) -> CounterSample:
        if self._query is None:
            self._open()
        assert self._dll is not None
        present = {p: c for p, c in self._counters.items() if c is not None}
        if present:
            status = _status(self._dll.PdhCollectQueryData(self._query))
            if status:
                raise PdhUnavailable(f"PdhCollectQueryData failed: 0x{status:08X}")
        counters: dict[str, InstanceSet | None] = {p: None for p in self._paths}
        for path, counter in present.items():
            counters[path] = self._raw_array(path, counter)
        return CounterSample(counters, system_cpu_times())

    def _raw_array(self, path: str, counter: ctypes.c_void_p) -> Mapping[str, RawCounter] | None:
        assert self._dll is not None
        size, count = ctypes.c_uint32(0), ctypes.c_uint32(0)
        status = _status(
            self._dll.PdhGetRawCounterArrayW(counter, ctypes.byref(size), ctypes.byref(count), None)
        )
        if status == PDH_CSTATUS_NO_INSTANCE or (status == 0 and count.value == 0):
            return {}
        if status != PDH_MORE_DATA:
            raise PdhUnavailable(f"PdhGetRawCounterArrayW({path}) failed: 0x{status:08X}")
        buffer = ctypes.create_string_buffer(size.value)
        status = _status(
            self._dll.PdhGetRawCounterArrayW(counter, ctypes.byref(size), ctypes.byref(count), buffer)
        )
        if status:
            raise PdhUnavailable(f"PdhGetRawCounterArrayW({path}) failed: 0x{status:08X}")
        return parse_raw_array(buffer.raw, ctypes.addressof(buffer), count.value)

    def close(self) -> None:
        if self._query is not None and self._dll is not None:
            self._dll.PdhCloseQuery(self._query)
        self._query = None
        self._counters = {}
