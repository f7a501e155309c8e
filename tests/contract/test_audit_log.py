"""The audit log file boundary, one suite over the real adapter (a real file) and its twin."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from wslmcp.boundaries.audit_log import AppendOnlyFile, AuditLogFile
from wslmcp.fakes.audit_log import MemoryAuditLog

Reader = Callable[[], list[bytes]]


@pytest.fixture(params=["real", "twin"])
def sink(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[AuditLogFile, Reader]:
    if request.param == "real":
        path = tmp_path / "audit.jsonl"
        real = AppendOnlyFile(str(path))
        return real, lambda: path.read_bytes().splitlines(keepends=True)
    twin = MemoryAuditLog()
    return twin, lambda: list(twin.lines)


def _line(writer: int, k: int) -> bytes:
    # Lines of very different lengths (up to ~6 KB) make interleaving visible if it happens.
    return (
        json.dumps({"writer": writer, "k": k, "pad": "x" * ((writer * 977 + k * 131) % 6000)}) + "\n"
    ).encode()


def test_ready_then_append_keeps_each_line_whole(sink: tuple[AuditLogFile, Reader]) -> None:
    log, read = sink
    log.ready()
    log.append(_line(0, 0))
    log.append(_line(0, 1))
    assert [json.loads(line)["k"] for line in read()] == [0, 1]


def test_concurrent_threads_never_interleave(sink: tuple[AuditLogFile, Reader]) -> None:
    log, read = sink
    threads = [
        threading.Thread(target=lambda w=w: [log.append(_line(w, k)) for k in range(150)]) for w in range(8)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    records = [json.loads(line) for line in read()]
    assert len(records) == 8 * 150
    assert {(r["writer"], r["k"]) for r in records} == {(w, k) for w in range(8) for k in range(150)}


def test_a_path_that_cannot_be_written_raises_oserror(tmp_path: Path) -> None:
    for log in (AppendOnlyFile(str(tmp_path / "missing" / "audit.jsonl")), MemoryAuditLog(broken=True)):
        with pytest.raises(OSError):
            log.ready()
        with pytest.raises(OSError):
            log.append(b"{}\n")


def test_the_real_file_is_created_private_and_only_appended(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    path.write_bytes(b'{"earlier":1}\n')
    AppendOnlyFile(str(path)).append(b'{"later":2}\n')
    assert path.read_bytes() == b'{"earlier":1}\n{"later":2}\n'
    fresh = tmp_path / "new.jsonl"
    AppendOnlyFile(str(fresh)).ready()
    assert fresh.stat().st_mode & 0o777 == 0o600
