"""wsl_edit_file and ranged wsl_read_file through the service, on a real bash (local transport and
the wsl.exe stand-in): what is written, what is refused and that a refusal changes nothing."""

from __future__ import annotations

import os
import stat
from collections.abc import Awaitable
from pathlib import Path

import pytest

from tests.shell.conftest import WrappedLocal, build
from tests.shell.standin import transport_of
from wslmcp.boundaries.process import Stdin
from wslmcp.boundaries.shell_transport import ShellTransport
from wslmcp.catalogue import Reply
from wslmcp.shell.edits import Edit

SOURCE = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"


@pytest.fixture(params=["local", "wsl.exe-standin"])
def transport(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> ShellTransport:
    return transport_of(request.param, tmp_path, monkeypatch)


def _state(path: Path) -> tuple[bytes, int, int]:
    st = path.stat()
    return path.read_bytes(), st.st_mtime_ns, st.st_ino


def _leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if "wslmcp" in p.name)


async def test_edits_apply_in_order_and_answer_with_a_diff(transport: ShellTransport, tmp_path: Path) -> None:
    b = build(transport=transport)
    target = tmp_path / "calc.py"
    target.write_text(SOURCE)
    target.chmod(0o640)
    if os.geteuid() == 0:
        os.chown(target, 65534, 65534)
    reply = await b.service.edit_file(
        str(target),
        [
            Edit("a + b", "b + a"),
            Edit("(a, b)", "(x, y)", expected=2),
            Edit("x, y):\n    return a - b", "x, y):\n    return x - y"),
        ],
    )
    assert not reply.is_error, reply.text
    assert reply.text.startswith(f"Edited {target}: 3 edits, replacements 1, 2, 1; 66 → 66 bytes")
    assert (
        f"--- {target}\n+++ {target}\n@@ -1,6 +1,6 @@\n-def add(a, b):\n-    return a + b\n+def add(x, y):\n+    return b + a\n"
        in reply.text
    )
    assert target.read_text() == "def add(x, y):\n    return b + a\n\n\ndef sub(x, y):\n    return x - y\n"
    st = target.stat()
    assert stat.S_IMODE(st.st_mode) == 0o640
    if os.geteuid() == 0:
        assert (st.st_uid, st.st_gid) == (65534, 65534)
    script = tmp_path / "run.sh"
    script.write_text("echo old\n")
    script.chmod(0o4751)
    assert not (await b.service.edit_file(str(script), [Edit("old", "new")])).is_error
    assert script.read_text() == "echo new\n" and stat.S_IMODE(script.stat().st_mode) == 0o4751
    assert _leftovers(tmp_path) == []


async def test_a_near_miss_or_a_wrong_count_changes_nothing_and_says_why(
    transport: ShellTransport, tmp_path: Path
) -> None:
    b = build(transport=transport)
    target = tmp_path / "calc.py"
    target.write_text(SOURCE)
    before = _state(target)
    near = await b.service.edit_file(
        str(target), [Edit("a + b", "b + a"), Edit("def sub(a,b):", "def minus(a, b):")]
    )
    assert near.is_error
    assert near.text.startswith(
        'wsl_edit_file changed nothing: edit 2 of 2 (oldText "def sub(a,b):") matched 0 times, expected 1.'
    )
    assert "Closest text: line 5, similarity 0.93; [-sent-]{+in the file+}: def sub(a,{+ +}b):" in near.text
    twice = await b.service.edit_file(str(target), [Edit("return a", "return z")])
    assert twice.is_error and "matched 2 times, expected 1" in twice.text
    assert "Matches start at lines 2, 6" in twice.text and "expectedReplacements to 2" in twice.text
    assert _state(target) == before and _leftovers(tmp_path) == []


async def test_a_dry_run_writes_nothing(transport: ShellTransport, tmp_path: Path) -> None:
    b = build(transport=transport)
    target = tmp_path / "calc.py"
    target.write_text(SOURCE)
    before = _state(target)
    reply = await b.service.edit_file(str(target), [Edit("a - b", "b - a")], dry_run=True)
    assert reply.text.startswith(f"Dry run, nothing was written: would edit {target}: 1 edit")
    assert "-    return a - b\n+    return b - a" in reply.text
    assert _state(target) == before


async def test_binary_oversized_and_non_utf8_files_are_refused(
    transport: ShellTransport, tmp_path: Path
) -> None:
    b = build({"WSL_MAX_READ_BYTES": "1000"}, transport=transport)
    cases = {
        "bin": (b"text\x00more", "is a binary file (it holds NUL bytes)"),
        "big": (b"x" * 1001, "is 1001 bytes, over WSL_MAX_READ_BYTES (1000)"),
        "latin1": ("line\ncafé\n".encode("latin-1"), "is not UTF-8 text (byte 8, line 2)"),
    }
    for name, (data, said) in cases.items():
        target = tmp_path / name
        target.write_bytes(data)
        reply = await b.service.edit_file(str(target), [Edit("x", "y")])
        assert reply.is_error and said in reply.text and "nothing was changed" in reply.text, reply.text
        assert target.read_bytes() == data
    missing = await b.service.edit_file(str(tmp_path / "nope"), [Edit("x", "y")])
    assert missing.is_error and "no such file" in missing.text
    (tmp_path / "text").write_text("x\n")
    nul = await b.service.edit_file(str(tmp_path / "text"), [Edit("x", "y\x00")])
    assert nul.is_error and "NUL" in nul.text and (tmp_path / "text").read_text() == "x\n"


async def test_crlf_files_keep_their_endings(transport: ShellTransport, tmp_path: Path) -> None:
    b = build(transport=transport)
    target = tmp_path / "win.txt"
    target.write_bytes(b"one\r\ntwo\r\nthree\r\n")
    reply = await b.service.edit_file(str(target), [Edit("one\ntwo\n", "1\n2\n")])
    assert not reply.is_error, reply.text
    assert target.read_bytes() == b"1\r\n2\r\nthree\r\n"


async def test_the_policy_applies_read_only_allowed_paths_and_operator_files(tmp_path: Path) -> None:
    target = tmp_path / "calc.py"
    target.write_text(SOURCE)
    before = _state(target)
    for env, rule in (
        ({"WSL_READONLY": "true"}, "read"),
        ({"WSL_ALLOWED_PATHS": str(tmp_path / "elsewhere")}, "allowed paths"),
    ):
        reply = await build(env).service.edit_file(str(target), [Edit("a + b", "b + a")], dry_run=True)
        assert (
            reply.is_error and "Refused by this profile's guard policy" in reply.text and rule in reply.text
        )
    secret = tmp_path / ".ssh" / "config"
    secret.parent.mkdir()
    secret.write_text("Host x\n")
    reply = await build().service.edit_file(str(secret), [Edit("Host", "Host y")])
    assert reply.is_error and "Refused by this profile's guard policy" in reply.text
    assert _state(target) == before and secret.read_text() == "Host x\n"


@pytest.mark.parametrize("known", [False, True], ids=["read by the edit", "known from a read before"])
@pytest.mark.parametrize("when", ["before the write begins", "just before the rename"])
async def test_a_change_of_the_file_between_read_and_write_is_detected_and_nothing_is_written(
    tmp_path: Path, when: str, known: bool
) -> None:
    target = tmp_path / "calc.py"
    target.write_text(SOURCE)
    meddle = f"printf 'theirs\\n' >> '{target}'\n"

    class Concurrent(WrappedLocal):
        def rewrite(self, script: str, stdin: Stdin) -> tuple[str, Stdin]:
            if "the file changed after it was read" in script:  # the replacing script: another writer strikes
                at = script.index("tmp=") if when.startswith("before") else script.index("sums=$(sha256sum")
                script = script[:at] + meddle + script[at:]
            return script, stdin

    b = build(transport=Concurrent())
    if known:
        assert not (await b.service.read_file(str(target))).is_error
    reply = await b.service.edit_file(str(target), [Edit("a + b", "b + a")])
    assert reply.is_error and "the file changed after it was read, so nothing was written" in reply.text
    assert target.read_text() == SOURCE + "theirs\n" * (2 if known else 1)  # others' changes, not ours
    assert _leftovers(tmp_path) == []


async def test_ranged_reads_count_lines_from_either_end(transport: ShellTransport, tmp_path: Path) -> None:
    b = build(transport=transport)
    target = tmp_path / "log.txt"
    target.write_text("".join(f"line {i}\n" for i in range(1, 101)) + "tail without newline")
    total = 101
    first = await b.service.read_file(str(target), offset=1, limit=2)
    assert first.text == f"{target} — 812 B, {total} lines; lines 1-2\n\nline 1\nline 2\n"
    last = await b.service.read_file(str(target), offset=-3)
    assert (
        last.text
        == f"{target} — 812 B, {total} lines; lines 99-101\n\nline 99\nline 100\ntail without newline"
    )
    middle = await b.service.read_file(str(target), offset=50, limit=1)
    assert middle.text.endswith("lines 50-50\n\nline 50\n")
    past = await b.service.read_file(str(target), offset=500)
    assert past.text == f"{target} — 812 B, {total} lines; no line at 500\n\n"
    cut = await b.service.read_file(str(target), offset=10, max_bytes=20)
    assert cut.text.endswith("lines 10-12, cut at 20 bytes\n\nline 10\nline 11\nline")
    whole = await b.service.read_file(str(target))  # without offset and limit: as before
    assert whole.text.startswith(f"{target} — 812 B\n\nline 1\n")
    zero = await b.service.read_file(str(target), offset=0)
    assert zero.is_error and "offset counts lines from 1" in zero.text


async def test_an_edit_of_what_was_just_read_or_written_runs_one_script(tmp_path: Path) -> None:
    wrapped = WrappedLocal()
    b = build(transport=wrapped)
    target, other = tmp_path / "calc.py", tmp_path / "other.py"
    target.write_text(SOURCE)
    other.write_text(SOURCE)
    assert not (await b.service.list_dir(str(tmp_path))).is_error  # the first call's own work done

    async def scripts(call: Awaitable[Reply]) -> int:
        before = wrapped.calls
        reply = await call
        assert not reply.is_error, reply.text
        return wrapped.calls - before

    await scripts(b.service.read_file(str(target)))
    assert await scripts(b.service.edit_file(str(target), [Edit("a + b", "b + a")])) == 1
    assert await scripts(b.service.edit_file(str(target), [Edit("b + a", "a * b")])) == 1
    await scripts(b.service.write_file(str(other), SOURCE + "# more\n"))
    assert await scripts(b.service.edit_file(str(other), [Edit("# more", "# less")])) == 1
    assert target.read_text() == SOURCE.replace("a + b", "a * b")
    assert other.read_text() == SOURCE + "# less\n"
    fresh = tmp_path / "fresh.py"
    fresh.write_text(SOURCE)
    assert await scripts(b.service.edit_file(str(fresh), [Edit("a - b", "b - a")])) == 2  # read, then write
    # a command that changed the file (a formatter, say): the known content is tried, found changed,
    # and the file read again
    await scripts(b.service.exec(f"echo '# formatted' >> {target}"))
    assert await scripts(b.service.edit_file(str(target), [Edit("a * b", "a // b")])) == 3
    assert target.read_text() == SOURCE.replace("a + b", "a // b") + "# formatted\n"


@pytest.mark.parametrize("change", ["content", "mode", "a directory on the path became a link"])
async def test_an_edit_after_the_file_changed_since_it_was_read_edits_the_file_as_it_is_now(
    transport: ShellTransport, tmp_path: Path, change: str
) -> None:
    b = build(transport=transport)
    work = tmp_path / "work"
    work.mkdir()
    target = work / "calc.py"
    target.write_text(SOURCE)
    target.chmod(0o644)
    assert not (await b.service.read_file(str(target))).is_error
    edit, expected, written = Edit("a + b", "b + a"), SOURCE.replace("a + b", "b + a"), target
    if change == "content":  # the edit matches only in the file as it is now
        target.write_text(SOURCE.replace("def sub", "def minus"))
        edit, expected = Edit("def minus", "def diff"), SOURCE.replace("def sub", "def diff")
    elif change == "mode":
        target.chmod(0o755)
    else:
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir()
        (elsewhere / "calc.py").write_text(SOURCE + "# elsewhere\n")
        work.rename(tmp_path / "was-work")
        work.symlink_to(elsewhere)
        expected, written = expected + "# elsewhere\n", elsewhere / "calc.py"
    reply = await b.service.edit_file(str(target), [edit])
    assert not reply.is_error, reply.text
    assert written.read_text() == expected
    assert stat.S_IMODE(written.stat().st_mode) == (0o755 if change == "mode" else 0o644)
    if written != target:
        assert (tmp_path / "was-work" / "calc.py").read_text() == SOURCE


async def test_an_edit_of_known_content_is_judged_where_the_path_leads_now(tmp_path: Path) -> None:
    allowed, outside = tmp_path / "allowed", tmp_path / "outside"
    (allowed / "work").mkdir(parents=True)
    outside.mkdir()
    target = allowed / "work" / "calc.py"
    target.write_text(SOURCE)
    (outside / "calc.py").write_text(SOURCE)  # the same content: only the path tells them apart
    b = build({"WSL_ALLOWED_PATHS": str(allowed)})
    assert not (await b.service.read_file(str(target))).is_error
    (allowed / "work").rename(allowed / "was-work")
    (allowed / "work").symlink_to(outside)
    reply = await b.service.edit_file(str(target), [Edit("a + b", "b + a")])
    assert reply.is_error and "Refused by this profile's guard policy" in reply.text
    assert (outside / "calc.py").read_text() == SOURCE
