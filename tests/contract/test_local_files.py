"""The local side of file transfers: one suite over the real adapter (a real temp directory) and
the twin (the same files in a scenario's fixture directory). The rig carries the facts each side
must show (where the files stand, what home is); no test branches on which one it holds.

Real-only: the ledger outlives a killed server, and the next one reclaims it (a real process is
SIGKILLed; a replay has no servers before it)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from wslmcp.boundaries.local_files import LocalFiles, OsLocalFiles, is_own_partial
from wslmcp.fakes.local_files import FakeLocalFiles
from wslmcp.fakes.replay import ReplayMiss
from wslmcp.scenario.loader import Scenario
from wslmcp.scenario.manifest import SCHEMA

FILES = {"in/data.bin": bytes(range(256)) * 50 + b"\r\n\x00", "in/empty.txt": b"", "out/old.txt": b"old"}


@dataclass
class Rig:
    files: LocalFiles
    root: str  # where FILES stand, as the adapter sees paths
    home: str
    written: Callable[[str], bytes | None]  # what a destination holds now (None: absent)
    leftovers: Callable[[], list[str]]  # partial files left beside destinations


def _fixture(base: Path) -> None:
    for rel, data in FILES.items():
        (base / rel).parent.mkdir(parents=True, exist_ok=True)
        (base / rel).write_bytes(data)
    (base / "in" / "sub").mkdir()


@pytest.fixture(params=["real", "fake"])
def rig(request: pytest.FixtureRequest, tmp_path: Path) -> Rig:
    if request.param == "real":
        _fixture(tmp_path / "root")
        real = OsLocalFiles(tmp_path / "state")
        root = str(tmp_path / "root")

        def on_disk(path: str) -> bytes | None:
            return Path(path).read_bytes() if Path(path).exists() else None

        def partials() -> list[str]:
            return [str(p) for p in Path(root).rglob("*") if is_own_partial(str(p))]

        return Rig(real, root, os.path.expanduser("~"), on_disk, partials)
    _fixture(tmp_path / "scenario" / "local")
    manifest = {
        "schema": SCHEMA,
        "name": "local-files-contract",
        "local_files": {"dir": "local", "path": "/work/root", "home": "/home/u", "cwd": "/home/u"},
    }
    (tmp_path / "scenario" / "scenario.json").write_text(json.dumps(manifest))
    fake = FakeLocalFiles(Scenario.load(tmp_path / "scenario"))

    def in_memory(path: str) -> bytes | None:
        if path in fake.written:
            return fake.written[path]
        rel = path.removeprefix("/work/root/")
        return FILES.get(rel)

    return Rig(fake, "/work/root", "/home/u", in_memory, lambda: [])


def test_resolve_expands_home_and_makes_paths_absolute(rig: Rig) -> None:
    assert rig.files.resolve("~/x/../y.txt") == f"{rig.home}/y.txt"
    assert rig.files.resolve(f"{rig.root}/in/./data.bin") == f"{rig.root}/in/data.bin"
    assert rig.files.real(f"{rig.root}/in/data.bin") == f"{rig.root}/in/data.bin"


def test_a_source_reads_the_exact_bytes_in_pieces(rig: Rig) -> None:
    source = rig.files.open_source(f"{rig.root}/in/data.bin")
    try:
        assert source.size == len(FILES["in/data.bin"])
        pieces = []
        while piece := source.read(1000):
            assert len(piece) <= 1000
            pieces.append(piece)
        assert b"".join(pieces) == FILES["in/data.bin"]
    finally:
        source.close()
    empty = rig.files.open_source(f"{rig.root}/in/empty.txt")
    assert empty.size == 0 and empty.read(10) == b""
    empty.close()


def test_a_missing_file_or_a_directory_is_an_os_error(rig: Rig) -> None:
    with pytest.raises(FileNotFoundError):
        rig.files.open_source(f"{rig.root}/in/missing.bin")
    with pytest.raises(OSError):
        rig.files.open_source(f"{rig.root}/in/sub")


def test_a_partial_replaces_the_destination_whole_on_commit_only(rig: Rig) -> None:
    dest = f"{rig.root}/out/old.txt"
    aborted = rig.files.partial(dest)
    aborted.write(b"half")
    assert rig.written(dest) == b"old"  # nothing is visible before the commit
    aborted.abort()
    aborted.abort()  # idempotent
    assert rig.written(dest) == b"old" and rig.leftovers() == []
    partial = rig.files.partial(dest)
    partial.write(b"new ")
    partial.write(b"bytes")
    assert partial.written == 9 and partial.dest == dest
    partial.commit()
    assert rig.written(dest) == b"new bytes" and rig.leftovers() == []
    fresh = rig.files.partial(f"{rig.root}/out/fresh.bin")
    fresh.write(b"\x00\xff")
    fresh.commit()
    assert rig.written(f"{rig.root}/out/fresh.bin") == b"\x00\xff"


def test_a_partial_needs_an_existing_directory_and_a_file_destination(rig: Rig) -> None:
    with pytest.raises(OSError, match="does not exist"):
        rig.files.partial(f"{rig.root}/nowhere/x.bin")
    with pytest.raises(OSError, match="is a directory"):
        rig.files.partial(f"{rig.root}/in/sub")


def test_the_ledger_tracks_and_a_start_with_no_gone_server_reclaims_nothing(rig: Rig) -> None:
    rig.files.track("wsl.exe:Ubuntu:dev", "/home/dev/.x.wslmcp-00000000000000ab")
    rig.files.untrack("wsl.exe:Ubuntu:dev", "/home/dev/.x.wslmcp-00000000000000ab")
    rig.files.untrack("wsl.exe:Ubuntu:dev", "/never/tracked")  # harmless
    assert rig.files.reclaim() == []
    rig.files.close()
    rig.files.close()  # idempotent


def test_the_twin_refuses_paths_the_scenario_does_not_hold(tmp_path: Path) -> None:
    (tmp_path / "local").mkdir()
    manifest = {"schema": SCHEMA, "name": "s", "local_files": {"dir": "local", "path": "/work/root"}}
    (tmp_path / "scenario.json").write_text(json.dumps(manifest))
    fake = FakeLocalFiles(Scenario.load(tmp_path))
    with pytest.raises(ReplayMiss, match="local file /etc/passwd"):
        fake.open_source("/etc/passwd")
    (tmp_path / "scenario.json").write_text(json.dumps({"schema": SCHEMA, "name": "s"}))
    with pytest.raises(ReplayMiss):
        FakeLocalFiles(Scenario.load(tmp_path)).open_source("/work/root/x")


_DIES = """
import os, sys
from wslmcp.boundaries.local_files import OsLocalFiles
files = OsLocalFiles(sys.argv[1])
files.track("wsl.exe:Ubuntu:dev", "/home/dev/.a.txt.wslmcp-00000000000000aa")
files.track("wsl.exe:Ubuntu:dev", "/home/dev/.b.txt.wslmcp-00000000000000bb")
files.untrack("wsl.exe:Ubuntu:dev", "/home/dev/.b.txt.wslmcp-00000000000000bb")
partial = files.partial(sys.argv[2])
partial.write(b"cut short")
print(partial.temp, flush=True)
sys.stdin.read()
"""


def test_a_killed_servers_ledger_is_reclaimed_by_the_next_one(tmp_path: Path) -> None:
    state, dest = tmp_path / "state", tmp_path / "download.bin"
    proc = subprocess.Popen(
        [sys.executable, "-c", _DIES, str(state), str(dest)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    temp = proc.stdout.readline().strip()
    assert Path(temp).exists() and is_own_partial(temp)
    other = OsLocalFiles(state)
    assert other.reclaim() == []  # its server still runs: left alone
    assert Path(temp).exists()
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert other.reclaim() == [("wsl.exe:Ubuntu:dev", "/home/dev/.a.txt.wslmcp-00000000000000aa")]
    assert not Path(temp).exists() and not dest.exists()
    assert OsLocalFiles(state).reclaim() == []  # taken over: still held by ``other``, which runs
    del other
    import gc

    gc.collect()  # ``other`` is gone: its ledger (now holding the reclaimed entry) passes on
    assert OsLocalFiles(state).reclaim() == [
        ("wsl.exe:Ubuntu:dev", "/home/dev/.a.txt.wslmcp-00000000000000aa")
    ]
