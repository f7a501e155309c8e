"""ClientFiles contract: LocalClientFiles over a real directory and FakeClientFiles over the same
tree inside a scenario pass the same suite."""

from __future__ import annotations

import json
import os
import shutil
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from wslmcp.boundaries.client_files import (
    MAX_LINE_PIECE,
    ClientFiles,
    FileTooLarge,
    LocalClientFiles,
    NotRegularFile,
)
from wslmcp.fakes.client_files import FakeClientFiles
from wslmcp.scenario.loader import Scenario

FAKE_HOME = "/home/contract"
MTIME_DEFAULT = 1_767_225_600.0
MTIMES = {".claude/projects/slug/a.jsonl": 1_767_300_000.0}
HUGE = b"z" * (2 * 1024 * 1024 + 5) + b"\n" + b"end"
TREE = {
    ".claude.json": b'{"mcpServers": {}}\n',
    ".claude/projects/slug/a.jsonl": b'{"n": 1}\n{"n": 2}\n',
    ".claude/projects/slug/a/subagents/agent-x.jsonl": b'{"n": 3}',
    ".claude/projects/slug/notes.txt": b"ignored",
    ".codex/config.toml": b"[mcp_servers.a]\ncommand = 'x'\n",
    ".cursor/mcp.json": b"",
}


@dataclass
class Rig:
    files: ClientFiles
    home: str

    def p(self, rel: str) -> str:
        return f"{self.home}/{rel}" if rel else self.home


def _build(root: Path) -> None:
    for rel, data in TREE.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    big = root / ".claude/projects/slug/big.jsonl"
    big.write_bytes(b"x" * 100 + b"\n" + b"y" * 200_000 + b"\n" + b"tail")
    (root / "huge.txt").write_bytes(HUGE)


@pytest.fixture(params=["real", "fake"])
def rig(request: pytest.FixtureRequest, tmp_path: Path) -> Rig:
    if request.param == "real":
        home = tmp_path / "real-home"
        _build(home)
        for dirpath, _dirs, names in os.walk(home):
            for name in names:
                rel = Path(dirpath, name).relative_to(home).as_posix()
                stamp = MTIMES.get(rel, MTIME_DEFAULT)
                os.utime(Path(dirpath, name), (stamp, stamp))
        return Rig(LocalClientFiles(), str(home))
    scenario_dir = tmp_path / "scenario"
    _build(scenario_dir / "home")
    manifest = {
        "schema": "wslmcp-scenario/1.0",
        "name": "client-files-contract",
        "home": {"dir": "home", "path": FAKE_HOME, "mtime_default": MTIME_DEFAULT, "mtimes": MTIMES},
    }
    (scenario_dir / "scenario.json").write_text(json.dumps(manifest))
    return Rig(FakeClientFiles(Scenario.load(scenario_dir)), FAKE_HOME)


def test_read_bytes_is_exact(rig: Rig) -> None:
    assert rig.files.read_bytes(rig.p(".codex/config.toml")) == TREE[".codex/config.toml"]
    assert rig.files.read_bytes(rig.p(".cursor/mcp.json")) == b""


def test_missing_file_is_file_not_found(rig: Rig) -> None:
    with pytest.raises(FileNotFoundError):
        rig.files.read_bytes(rig.p("nope.json"))


def test_a_directory_is_an_os_error_not_found_is_distinct(rig: Rig) -> None:
    with pytest.raises(OSError) as caught:
        rig.files.read_bytes(rig.p(".claude"))
    assert not isinstance(caught.value, FileNotFoundError)


def test_stat_gives_size_and_mtime_and_none_when_absent(rig: Rig) -> None:
    info = rig.files.stat(rig.p(".claude/projects/slug/a.jsonl"))
    assert info is not None and (info.size, info.mtime) == (18, MTIMES[".claude/projects/slug/a.jsonl"])
    other = rig.files.stat(rig.p(".claude.json"))
    assert other is not None and other.mtime == MTIME_DEFAULT
    assert rig.files.stat(rig.p("absent")) is None


def test_stat_sees_directories(rig: Rig) -> None:
    assert rig.files.stat(rig.p(".claude/projects")) is not None


def test_iter_files_is_recursive_sorted_and_filtered(rig: Rig) -> None:
    found = [f.path for f in rig.files.iter_files(rig.p(".claude/projects"), ".jsonl")]
    assert found == [
        rig.p(".claude/projects/slug/a.jsonl"),
        rig.p(".claude/projects/slug/a/subagents/agent-x.jsonl"),
        rig.p(".claude/projects/slug/big.jsonl"),
    ]
    assert list(rig.files.iter_files(rig.p("missing"), ".jsonl")) == []


def test_iter_lines_keeps_newlines_and_streams_big_lines(rig: Rig) -> None:
    assert list(rig.files.iter_lines(rig.p(".claude/projects/slug/a.jsonl"))) == [
        b'{"n": 1}\n',
        b'{"n": 2}\n',
    ]
    lines = list(rig.files.iter_lines(rig.p(".claude/projects/slug/big.jsonl")))
    assert [len(x) for x in lines] == [101, 200_001, 4]


def test_same_file(rig: Rig) -> None:
    a = rig.p(".codex/config.toml")
    assert rig.files.same_file(a, rig.p(".codex/../.codex/config.toml"))
    assert not rig.files.same_file(a, rig.p(".claude.json"))
    assert not rig.files.same_file(a, rig.p("absent"))


def test_fake_sees_nothing_outside_its_home(tmp_path: Path) -> None:
    scenario_dir = tmp_path / "s"
    (scenario_dir / "home").mkdir(parents=True)
    (scenario_dir / "scenario.json").write_text(
        json.dumps(
            {
                "schema": "wslmcp-scenario/1.0",
                "name": "x",
                "home": {"dir": "home", "path": FAKE_HOME, "mtime_default": 0},
            }
        )
    )
    fake = FakeClientFiles(Scenario.load(scenario_dir))
    assert fake.stat("/etc/passwd") is None
    with pytest.raises(FileNotFoundError):
        fake.read_bytes("/etc/passwd")
    assert shutil.which("true") is not None  # sanity: the real host has files the fake must not see


# ---- special files: never read, never block, skipped with a reason -------------------------------

SPECIAL = {
    ".claude.json": "FIFO",
    ".claude/settings.json": "character device",  # a symlink to /dev/zero
    ".claude/projects/slug/sock.jsonl": "socket",
    ".claude/projects/slug/fifo.jsonl": "FIFO",
}


@pytest.fixture(params=["real", "fake"])
def special_rig(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Rig]:
    if request.param == "fake":
        scenario_dir = tmp_path / "scenario"
        (scenario_dir / "home/.claude/projects/slug").mkdir(parents=True)
        (scenario_dir / "home/.claude/projects/slug/ok.jsonl").write_bytes(b'{"n": 1}\n')
        manifest = {
            "schema": "wslmcp-scenario/1.0",
            "name": "client-files-special",
            "home": {"dir": "home", "path": FAKE_HOME, "mtime_default": MTIME_DEFAULT, "special": SPECIAL},
        }
        (scenario_dir / "scenario.json").write_text(json.dumps(manifest))
        yield Rig(FakeClientFiles(Scenario.load(scenario_dir)), FAKE_HOME)
        return
    home = tmp_path / "h"
    (home / ".claude/projects/slug").mkdir(parents=True)
    (home / ".claude/projects/slug/ok.jsonl").write_bytes(b'{"n": 1}\n')
    os.mkfifo(home / ".claude.json")
    os.symlink("/dev/zero", home / ".claude/settings.json")
    os.mkfifo(home / ".claude/projects/slug/fifo.jsonl")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(home / ".claude/projects/slug/sock.jsonl"))
    try:
        yield Rig(LocalClientFiles(), str(home))
    finally:
        server.close()


@pytest.mark.parametrize("rel", sorted(SPECIAL))
def test_special_files_are_refused_by_kind_without_reading(special_rig: Rig, rel: str) -> None:
    for read in (special_rig.files.read_bytes, lambda p: list(special_rig.files.iter_lines(p))):
        with pytest.raises(NotRegularFile) as caught:
            read(special_rig.p(rel))
        assert caught.value.kind == SPECIAL[rel]
        assert str(caught.value) == f"not a regular file ({SPECIAL[rel]}): {special_rig.p(rel)!r}"
    assert special_rig.files.stat(special_rig.p(rel)) is not None  # it exists: callers can report it


def test_special_transcripts_are_listed_so_they_can_be_reported(special_rig: Rig) -> None:
    found = [f.path for f in special_rig.files.iter_files(special_rig.p(".claude/projects"), ".jsonl")]
    assert found == [special_rig.p(f".claude/projects/slug/{n}.jsonl") for n in ("fifo", "ok", "sock")]


def test_long_lines_arrive_in_bounded_pieces(rig: Rig) -> None:
    pieces = list(rig.files.iter_lines(rig.p("huge.txt")))
    assert [len(p) for p in pieces] == [MAX_LINE_PIECE, MAX_LINE_PIECE, 6, 3]
    assert [p.endswith(b"\n") for p in pieces] == [False, False, True, False]
    assert b"".join(pieces) == HUGE


def test_reads_are_bounded_in_size(rig: Rig, tmp_path: Path) -> None:
    def bounded(limit: int) -> ClientFiles:
        if isinstance(rig.files, LocalClientFiles):
            return LocalClientFiles(max_file_bytes=limit)
        return FakeClientFiles(Scenario.load(tmp_path / "scenario"), max_file_bytes=limit)

    path = rig.p(".codex/config.toml")
    size = len(TREE[".codex/config.toml"])
    with pytest.raises(FileTooLarge) as caught:
        bounded(size - 1).read_bytes(path)
    assert str(caught.value) == f"larger than the {size - 1} byte limit: {path!r}"
    assert bounded(size).read_bytes(path) == TREE[".codex/config.toml"]  # the limit itself is allowed
