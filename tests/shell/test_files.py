"""File tools through the real local transport, inside tmp_path: round trips, atomicity, limits."""

from __future__ import annotations

import asyncio
import errno
import hashlib
import os
import re
import stat
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import examples
from tests.shell.conftest import WrappedLocal, build, stdin_bytes, survivors
from wslmcp.boundaries.distro_files import DistroFileError, HereFiles
from wslmcp.boundaries.local_files import OsLocalFiles, OsSource
from wslmcp.boundaries.process import Stdin
from wslmcp.boundaries.shell_transport import LocalTransport
from wslmcp.shell import results
from wslmcp.shell.edits import Edit


def _leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if "wslmcp" in p.name)


async def test_write_append_read_round_trip(tmp_path: Path) -> None:
    b = build()
    target = tmp_path / "note's.txt"
    wrote = await b.service.write_file(str(target), 'line 1 "quoted" $HOME\n')
    assert not wrote.is_error and wrote.text.startswith(f"Wrote 22 B to {target}")
    appended = await b.service.write_file(str(target), "läne 2\n", append=True)
    assert appended.text.startswith(f"Appended 8 B to {target}")
    assert target.read_text() == 'line 1 "quoted" $HOME\nläne 2\n'
    read = await b.service.read_file(str(target))
    assert read.text == f'{target} — 30 B\n\nline 1 "quoted" $HOME\nläne 2\n'
    assert _leftovers(tmp_path) == []


async def test_write_keeps_the_mode_and_follows_symlinks(tmp_path: Path) -> None:
    b = build()
    real = tmp_path / "real.conf"
    real.write_text("old\n")
    real.chmod(0o640)
    link = tmp_path / "link.conf"
    link.symlink_to(real)
    reply = await b.service.write_file(str(link), "new\n")
    assert f"(→ {real})" in reply.text
    assert link.is_symlink() and real.read_text() == "new\n"
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    fresh = tmp_path / "fresh"
    await b.service.write_file(str(fresh), "")
    umask = os.umask(0)
    os.umask(umask)
    assert fresh.read_bytes() == b"" and stat.S_IMODE(fresh.stat().st_mode) == 0o666 & ~umask


async def test_write_errors_change_nothing(tmp_path: Path) -> None:
    b = build()
    missing = await b.service.write_file(str(tmp_path / "no" / "x"), "x")
    assert missing.is_error and "parent directory does not exist" in missing.text
    isdir = await b.service.write_file(str(tmp_path), "x")
    assert isdir.is_error and "is a directory" in isdir.text
    relative = await b.service.write_file("relative/x", "x")
    assert relative.is_error and "must be absolute" in relative.text
    assert list(tmp_path.iterdir()) == []


class _ShortStdin(WrappedLocal):
    """Stdin arrives cut in half (a broken pipe or a killed feeder), which is what leaves a
    half-written file behind a plain `cat >`."""

    def rewrite(self, script: str, stdin: Stdin) -> tuple[str, Stdin]:
        data = stdin_bytes(stdin)
        return script, None if data is None else data[: len(data) // 2]


async def test_atomic_write_under_an_injected_failure(tmp_path: Path) -> None:
    b = build(transport=_ShortStdin())
    target = tmp_path / "config.ini"
    target.write_text("precious original\n")
    reply = await b.service.write_file(str(target), "replacement content that is long enough\n")
    assert reply.is_error and "received 20 of 40 bytes; the target was left unchanged" in reply.text
    assert target.read_text() == "precious original\n"
    assert _leftovers(tmp_path) == []
    appended = await b.service.write_file(str(target), "more text\n", append=True)
    assert appended.is_error and target.read_text() == "precious original\n"
    upload_src = tmp_path / "src.bin"
    upload_src.write_bytes(os.urandom(3000))
    up = await b.service.upload(str(upload_src), str(target))
    assert up.is_error and target.read_text() == "precious original\n"
    assert _leftovers(tmp_path) == []


class _StallBeforeRename(WrappedLocal):
    """The script stalls just before its final rename, so the deadline kills it with the new file
    fully written and not yet in place."""

    def rewrite(self, script: str, stdin: Stdin) -> tuple[str, Stdin]:
        return script.replace('mv -f -- "$tmp"', 'sleep 16.180339; mv -f -- "$tmp"'), stdin


async def test_a_write_killed_at_its_deadline_leaves_the_target_alone(tmp_path: Path) -> None:
    b = build({"WSL_EXEC_TIMEOUT_MS": "600"}, transport=_StallBeforeRename())
    target = tmp_path / "t.txt"
    target.write_text("before\n")
    reply = await b.service.write_file(str(target), "after\n")
    assert reply.is_error and "timed out after 600ms" in reply.text
    assert target.read_text() == "before\n"
    src = tmp_path / "up.bin"
    src.write_bytes(b"payload")
    up = await b.service.upload(str(src), str(target))
    assert up.is_error and target.read_text() == "before\n"
    assert _leftovers(tmp_path) == []
    assert await survivors("sleep 16.180339") == []


async def test_fifos_are_not_read(tmp_path: Path) -> None:
    b = build()
    os.mkfifo(tmp_path / "pipe")
    reply = await b.service.read_file(str(tmp_path / "pipe"))
    assert reply.is_error and "not a regular file" in reply.text


@pytest.mark.parametrize("in_process", [True, False], ids=["in-process", "script"])
async def test_a_fifo_is_not_appended_to_and_nothing_waits_on_it(tmp_path: Path, in_process: bool) -> None:
    # Appending reads the old content first: on a FIFO that read waits for a writer. In process it
    # waited in a thread no deadline can stop, which held the FIFO open after the reply said the call
    # failed, and replaced it with the content as soon as a writer came (the call had "failed").
    b = build({"WSL_EXEC_TIMEOUT_MS": "600"}, transport=LocalTransport(in_process_files=in_process))
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reply = await b.service.write_file(str(fifo), "appended\n", append=True)
    assert reply.is_error and "not a regular file" in reply.text
    with pytest.raises(OSError) as no_reader:  # ENXIO: no process holds the FIFO open to read it
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    assert no_reader.value.errno == errno.ENXIO
    assert stat.S_ISFIFO(fifo.lstat().st_mode) and _leftovers(tmp_path) == []


def test_in_process_reads_never_wait_on_a_fifo(tmp_path: Path) -> None:
    # The probe said "regular file", then a FIFO took its place (a command running beside the call):
    # the in-process read must fail at once, not wait in a thread for a writer that never comes.
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    here = HereFiles()
    reads = {
        "head": lambda: here.head(str(fifo), 10),
        "lines": lambda: here.lines(str(fifo), 1, None, 10),
        "append": lambda: here.write(str(fifo), str(tmp_path / ".t"), b"x", append=True),
    }
    for name, read in reads.items():
        failed: list[BaseException] = []
        thread = threading.Thread(target=lambda r=read, f=failed: f.extend(_raised(r)), daemon=True)
        thread.start()
        thread.join(60)  # a hang guard: a read that waits never ends
        assert not thread.is_alive(), f"{name} waits on the FIFO"
        assert [type(e) for e in failed] == [DistroFileError], name
    assert stat.S_ISFIFO(fifo.lstat().st_mode) and sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


def _raised(work: Callable[[], object]) -> list[BaseException]:
    try:
        work()
    except BaseException as exc:  # what it raised is what the test compares
        return [exc]
    return []


async def test_read_limits_and_proc_files(tmp_path: Path) -> None:
    b = build({"WSL_MAX_READ_BYTES": "10"})
    f = tmp_path / "big.log"
    f.write_bytes(b"0123456789abcdef")
    capped = await b.service.read_file(str(f))
    assert capped.text == f"{f} — 16 B, truncated to the first 10 B (limit 10 bytes)\n\n0123456789"
    lower = await b.service.read_file(str(f), max_bytes=4)
    assert lower.text.endswith("truncated to the first 4 B (limit 4 bytes)\n\n0123")
    higher = await b.service.read_file(str(f), max_bytes=1000)
    assert "limit 10 bytes" in higher.text
    proc = await build().service.read_file("/proc/meminfo")
    assert "read (the file reports size 0)" in proc.text and "MemTotal:" in proc.text
    assert (await b.service.read_file(str(tmp_path))).text.endswith("is a directory; use wsl_list_dir")
    assert "no such file" in (await b.service.read_file(str(tmp_path / "nope"))).text
    binary = tmp_path / "b.bin"
    binary.write_bytes(b"\xff\x00ok")
    assert "use wsl_download" in (await b.service.read_file(str(binary))).text


async def test_list_dir_reports_type_mode_size_mtime(tmp_path: Path) -> None:
    b = build()
    (tmp_path / "d").mkdir()
    (tmp_path / "f.txt").write_bytes(b"x" * 2048)
    (tmp_path / "f.txt").chmod(0o600)
    (tmp_path / "l").symlink_to(tmp_path / "f.txt")
    (tmp_path / "tab\tname").write_text("")
    reply = await b.service.list_dir(str(tmp_path))
    lines = reply.text.splitlines()
    assert lines[0] == f"{tmp_path} — 4 entries:"
    assert re.fullmatch(r"d   0755 +4\.0 KB  \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ  d/", lines[2])
    assert re.fullmatch(r"-   0600 +2\.0 KB  \S+Z  f\.txt", lines[3])
    assert re.fullmatch(r"l   0777 +\d+ B  \S+Z  l", lines[4])
    assert lines[5].endswith("  tab\tname")
    assert (await b.service.list_dir(str(tmp_path / "d"))).text == f"{tmp_path}/d is empty."
    (tmp_path / "d" / "one").write_text("")
    assert (await b.service.list_dir(str(tmp_path / "d"))).text.startswith(f"{tmp_path}/d — 1 entry:")
    not_dir = await b.service.list_dir(str(tmp_path / "f.txt"))
    assert not_dir.is_error and "use wsl_read_file" in not_dir.text


async def test_list_dir_caps_entries(tmp_path: Path) -> None:
    b = build()
    for i in range(1003):
        (tmp_path / f"f{i:04d}").touch()
    reply = await b.service.list_dir(str(tmp_path))
    assert reply.text.startswith(f"{tmp_path} — 1003 entries, showing the first 1000 by name:")
    assert reply.text.count("\n-  ") == 1000
    assert "f0999" in reply.text and "f1000" not in reply.text
    assert "Listing was capped" in reply.text


def _check_round_trip(tmp_path: Path, data: bytes, chunk: int) -> None:
    async def go() -> None:
        b = build(chunk_bytes=chunk)
        src = tmp_path / "src.bin"
        src.write_bytes(data)
        remote = tmp_path / "remote" / "copy.bin"
        remote.parent.mkdir(exist_ok=True)
        up = await b.service.upload(str(src), str(remote))
        digest = hashlib.sha256(data).hexdigest()
        assert not up.is_error, up.text
        assert f"({len(data)} bytes): {src} → {remote}\nsha256: {digest}" in up.text
        assert remote.read_bytes() == data
        back = tmp_path / "back.bin"
        down = await b.service.download(str(remote), str(back))
        assert not down.is_error, down.text
        assert f"({len(data)} bytes): {remote} → {back}\nsha256: {digest}" in down.text
        assert back.read_bytes() == data
        assert _leftovers(tmp_path) == [] and _leftovers(remote.parent) == []

    asyncio.run(go())


@settings(
    max_examples=examples(6), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.binary(max_size=3000))
def test_transfers_are_byte_exact_for_random_binary(tmp_path: Path, data: bytes) -> None:
    _check_round_trip(tmp_path, data, chunk=1024)


def test_transfers_of_empty_invalid_utf8_and_multi_chunk_files(tmp_path: Path) -> None:
    for data in (b"", b"\x00\x01\x02\xff\xfe\n\r\nA", b"\xc3\x28 not utf-8 \xed\xa0\x80"):
        _check_round_trip(tmp_path, data, chunk=1024)
    _check_round_trip(tmp_path, os.urandom(3 * 1024 * 1024 + 17), chunk=1024 * 1024)


async def test_download_needs_an_existing_directory_and_never_leaves_a_partial(tmp_path: Path) -> None:
    b = build()
    src = tmp_path / "s.txt"
    src.write_text("data")
    no_dir = await b.service.download(str(src), str(tmp_path / "missing" / "x"))
    assert no_dir.is_error and "local directory does not exist" in no_dir.text
    existing = tmp_path / "keep.txt"
    existing.write_text("keep me")
    gone = await b.service.download(str(tmp_path / "gone.txt"), str(existing))
    assert gone.is_error and existing.read_text() == "keep me"
    assert _leftovers(tmp_path) == []


class _FailOnSecondChunk(WrappedLocal):
    """The real transport until the second download chunk, which fails."""

    def __init__(self) -> None:
        super().__init__()
        self.chunks = 0

    def rewrite(self, script: str, stdin: Stdin) -> tuple[str, Stdin]:
        if "tail -c +" in script:
            self.chunks += 1
            if self.chunks == 2:
                script = "echo 'injected: the distro went away' >&2; exit 1"
        return script, stdin


async def test_a_failed_download_keeps_the_old_file_and_removes_the_partial(tmp_path: Path) -> None:
    b = build(transport=_FailOnSecondChunk(), chunk_bytes=100)
    src = tmp_path / "remote.bin"
    src.write_bytes(os.urandom(350))
    dest = tmp_path / "local.bin"
    dest.write_bytes(b"old")
    reply = await b.service.download(str(src), str(dest))
    assert reply.is_error and "injected: the distro went away" in reply.text
    assert dest.read_bytes() == b"old"
    assert _leftovers(tmp_path) == []


async def test_upload_refuses_a_missing_or_non_regular_local_file(tmp_path: Path) -> None:
    b = build()
    missing = await b.service.upload(str(tmp_path / "nope"), str(tmp_path / "x"))
    assert missing.is_error and "cannot read the local file" in missing.text
    isdir = await b.service.upload(str(tmp_path), str(tmp_path / "x"))
    assert isdir.is_error
    assert not (tmp_path / "x").exists()


async def test_file_tools_do_not_source_the_login_profile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A profile that prints (a banner, a pyenv warning) would corrupt content read through a login
    shell; the fixed file-tool scripts run in a plain bash -c. wsl_exec still gets the login shell."""
    home = tmp_path / "home"
    home.mkdir()
    (home / ".bash_profile").write_text('echo PROFILE-NOISE; echo "$$" >> "$HOME/sourced"\n')
    monkeypatch.setenv("HOME", str(home))
    b = build(chunk_bytes=1000)
    data = os.urandom(2500)
    src = tmp_path / "src.bin"
    src.write_bytes(data)
    up = await b.service.upload(str(src), str(tmp_path / "remote.bin"))
    down = await b.service.download(str(tmp_path / "remote.bin"), str(tmp_path / "back.bin"))
    read = await b.service.read_file(str(tmp_path / "remote.bin"), max_bytes=10)
    listing = await b.service.list_dir(str(tmp_path))
    assert not (up.is_error or down.is_error or read.is_error or listing.is_error)
    assert (tmp_path / "back.bin").read_bytes() == data == (tmp_path / "remote.bin").read_bytes()
    assert "PROFILE-NOISE" not in read.text + listing.text
    assert not (home / "sourced").exists()
    ran = await b.service.exec("echo ran", cwd=str(tmp_path))
    assert "--- stdout ---\nPROFILE-NOISE\nran\n" in ran.text and (home / "sourced").exists()


class _ChangesAfterOpen(OsLocalFiles):
    """A boundary double: the local file grows or shrinks right after it is opened for upload."""

    def __init__(self, change: str, state_dir: Path) -> None:
        super().__init__(state_dir)
        self.change = change

    def open_source(self, path: str) -> OsSource:
        source = super().open_source(path)
        with open(path, "r+b") as f:
            if self.change == "grow":
                f.seek(0, os.SEEK_END)
                f.write(b"late bytes")
            else:
                f.truncate(source.size // 2)
        return source


@pytest.mark.parametrize("change", ["grow", "shrink"])
async def test_an_upload_whose_local_file_changes_fails_and_changes_nothing(
    tmp_path: Path, change: str
) -> None:
    b = build(chunk_bytes=1000, local_files=_ChangesAfterOpen(change, tmp_path / "state"))
    src = tmp_path / "src.bin"
    src.write_bytes(os.urandom(2500))
    target = tmp_path / "target.bin"
    target.write_bytes(b"original")
    reply = await b.service.upload(str(src), str(target))
    assert reply.is_error, reply.text
    said = "it grew past 2500 bytes" if change == "grow" else "partial upload holds 1250 bytes, expected 2000"
    assert said in reply.text
    assert target.read_bytes() == b"original"
    assert _leftovers(tmp_path) == []


HOSTILE_NAMES = [
    "a b",
    "it's",
    '"dq"',
    "$(touch pwned)",
    "`touch pwned`",
    "-rf",
    "--help",
    "x;touch pwned",
    "*",
    "back\\slash",
    "tab\there",
    "$HOME",
    "ünï",
]


@pytest.mark.parametrize("name", HOSTILE_NAMES)
async def test_hostile_names_are_never_interpreted_by_the_fixed_scripts(tmp_path: Path, name: str) -> None:
    """Every file tool, on a directory and a file whose names are shell syntax, option-like or
    glob characters: each is one literal name, nothing else is created, no option is taken."""
    b = build()
    directory = tmp_path / name
    directory.mkdir()
    target = directory / name
    wrote = await b.service.write_file(str(target), "one\n")
    assert not wrote.is_error, wrote.text
    appended = await b.service.write_file(str(target), "two\n", append=True)
    assert not appended.is_error, appended.text
    read = await b.service.read_file(str(target))
    assert read.text.endswith("\n\none\ntwo\n"), read.text
    edited = await b.service.edit_file(str(target), [Edit("two", "deux")])
    assert not edited.is_error, edited.text
    ranged = await b.service.read_file(str(target), offset=-1)
    assert ranged.text.endswith("lines 2-2\n\ndeux\n"), ranged.text
    found = await b.raw.search("deux", str(directory))
    assert isinstance(found, results.Searched) and [(m.path, m.line) for m in found.matches] == [
        (str(target), 2)
    ]
    await b.service.write_file(str(target), "one\ntwo\n")
    listing = await b.service.list_dir(str(directory))
    assert listing.text.endswith(f"  {name}"), listing.text
    src = tmp_path / "src.bin"
    src.write_bytes(b"\x00payload\xff")
    up = await b.service.upload(str(src), str(target))
    assert not up.is_error, up.text
    back = directory / f"{name}.back"
    down = await b.service.download(str(target), str(back))
    assert not down.is_error, down.text
    assert target.read_bytes() == back.read_bytes() == b"\x00payload\xff"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([name, "src.bin"])
    assert sorted(p.name for p in directory.iterdir()) == sorted([name, f"{name}.back"])


@pytest.mark.parametrize("ranged", [False, True])
async def test_a_file_holding_nul_bytes_is_said_binary_not_shown(tmp_path: Path, ranged: bool) -> None:
    """Issue 29 item 6: 400 raw U+0000 characters came back under a note promising U+FFFD."""
    binary = tmp_path / "b.bin"
    binary.write_bytes(b"head\n" + b"\x00" * 400 + b"\ntail\n")
    b = build()
    reply = await (b.service.read_file(str(binary), limit=2) if ranged else b.service.read_file(str(binary)))
    assert "\x00" not in reply.text and "\x00" not in reply.structured["content"]
    assert "binary file (it holds NUL bytes)" in reply.text and "wsl_download" in reply.text
    assert reply.structured["binary"] is True and reply.structured["content"] == ""
    assert not reply.is_error
    text = tmp_path / "t.txt"
    text.write_bytes(b"caf\xe9\n")  # not UTF-8, but text: shown with U+FFFD as the note says
    shown = await b.service.read_file(str(text))
    assert "caf\ufffd" in shown.text and shown.structured["binary"] is False
