"""WSLC through wslc.exe's recorded twin: CPUPerc on the host scale, raw MemUsage, vanished
containers, garbage and absence as reasons."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from wslmcp.boundaries.wslc import LIST_ARGS, STATS_ARGS
from wslmcp.boundaries.wslc_cli import WslcCli
from wslmcp.fakes.wslc import FakeWslc
from wslmcp.observe.model import Identity
from wslmcp.observe.wslc import WslcSample, sample, wslc_rows
from wslmcp.scenario.loader import Scenario

LISTED = [
    {"Id": "a" * 64, "Name": "builder", "Image": "mcr.microsoft.com/devcontainers/base", "State": "running"},
    {"Id": "b" * 64, "Name": "cache", "Image": "redis:7", "State": "running"},
]
STATS = [
    {
        "ID": "a" * 64,
        "Name": "builder",
        "CPUPerc": "80.00%",
        "MemUsage": "1.50 GiB / 1.95 GiB",
        "MemPerc": "76.9%",
        "NetIO": "0 B / 0 B",
        "BlockIO": "0 B / 0 B",
        "PIDs": 12,
    },
    {
        "ID": "b" * 64,
        "Name": "cache",
        "CPUPerc": "0.25%",
        "MemUsage": "12.50 MiB / 1.95 GiB",
        "MemPerc": "0.6%",
        "NetIO": "0 B / 0 B",
        "BlockIO": "0 B / 0 B",
        "PIDs": 4,
    },
]


def scenario(tmp: Path, list_out: bytes, stats_out: bytes, *, utf16: bool = False) -> Scenario:
    enc = "utf-16le" if utf16 else "utf-8"
    (tmp / "wslc").mkdir()
    (tmp / "wslc/list.out").write_bytes(list_out.decode().encode(enc))
    (tmp / "wslc/stats.out").write_bytes(stats_out.decode().encode(enc))
    manifest: dict[str, Any] = {
        "schema": "wslmcp-scenario/1.0",
        "name": "wslc-unit",
        "description": "wslc answers",
        "source": "hand-written",
        "timeline": [],
        "exchanges": {
            "wslc": [
                {
                    "args": list(LIST_ARGS),
                    "stdout": "wslc/list.out",
                    "stdout_encoding": enc,
                    "exit_code": 0,
                    "duration_ms": 80,
                },
                {
                    "args": list(STATS_ARGS),
                    "stdout": "wslc/stats.out",
                    "stdout_encoding": enc,
                    "exit_code": 0,
                    "duration_ms": 900,
                },
            ]
        },
    }
    (tmp / "scenario.json").write_text(json.dumps(manifest))
    return Scenario.load(tmp)


def take(tmp: Path, listed: Any = LISTED, stats: Any = STATS, **kw: Any) -> WslcSample:
    s = scenario(tmp, json.dumps(listed).encode(), json.dumps(stats, indent=2).encode(), **kw)
    return asyncio.run(sample(FakeWslc(s)))


def test_cpu_uses_the_host_scale_and_memory_is_raw_usage(tmp_path: Path) -> None:
    got = take(tmp_path, utf16=True)
    assert got.failure is None and not got.incomplete
    host = Identity("windows", "host", None, "9000", 1)
    rows = {r.name: r for r in wslc_rows(got, 16, host)}
    assert rows["builder"].cpu_percent == pytest.approx(5.0)  # 0.8 cores of 16
    assert rows["builder"].memory_bytes == round(1.5 * 2**30) and rows["builder"].parents == (host,)
    assert rows["cache"].identity.kind == "container" and rows["cache"].args == "redis:7"


def test_a_container_gone_before_stats_is_left_out_with_a_warning(tmp_path: Path) -> None:
    got = take(tmp_path, stats=STATS[:1])
    assert set(got.containers or {}) == {"a" * 64} and any("cache exited" in w for w in got.warnings)


def test_garbage_rows_make_the_sample_incomplete(tmp_path: Path) -> None:
    bad = [dict(STATS[0], CPUPerc="lots"), STATS[1]]
    got = take(tmp_path, stats=bad)
    assert got.incomplete and any("builder" in w for w in got.warnings)


def test_output_that_is_not_json_is_a_failure(tmp_path: Path) -> None:
    s = scenario(tmp_path, b"\x00\x01 garbage", b"[]")
    got = asyncio.run(sample(FakeWslc(s)))
    assert got.containers is None and not got.absent and "not JSON" in (got.failure or "")


def test_absent_wslc_is_absent() -> None:
    got = asyncio.run(sample(WslcCli(None)))  # the real adapter when find_wslc found nothing
    assert got.absent and got.containers is None
