"""The file tools in process (``boundaries.distro_files``, the local transport with the sandbox off)
answer as their scripts do: every case runs once through each path on the same tree, made afresh
for each, and the replies (text and structured content) and what is left on disk (bytes, mode,
owner, and no temp file) must be the same. The guard judges the path as given and as resolved on
both (a symlink out of WSL_ALLOWED_PATHS, a hidden operator path); ``/proc`` and devices stay on
the script.
"""

from __future__ import annotations

import asyncio
import os
import pwd
import shutil
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.shell.conftest import build
from wslmcp.boundaries.shell_transport import LocalTransport
from wslmcp.shell.edits import Edit

LINES = "".join(f"line {i}: value_{i} = {i}\n" for i in range(1, 2001))


def _tree(root: Path) -> None:
    """The same files for each side."""
    for entry in sorted(root.glob("*"), reverse=True) if root.exists() else ():
        _remove(entry)
    root.mkdir(exist_ok=True)
    (root / "text.py").write_text(LINES)
    (root / "no-newline.txt").write_bytes(b"one\ntwo\nthree")
    (root / "crlf.txt").write_bytes(b"a = 1\r\nb = 2\r\nc = 3\r\n")
    (root / "empty.txt").write_bytes(b"")
    (root / "nul.bin").write_bytes(b"text\x00with\x00nul\n")
    (root / "latin1.txt").write_bytes("caf\xe9\n".encode("latin-1"))
    (root / "exec.sh").write_text("#!/bin/sh\necho old\n")
    (root / "exec.sh").chmod(0o755)
    (root / "private.txt").write_text("secret = old\n")
    (root / "private.txt").chmod(0o600)
    (root / "group.txt").write_text("shared = old\n")
    (root / "group.txt").chmod(0o664)
    (root / "sub").mkdir()
    (root / "sub" / "inner.txt").write_text("inner = old\n")
    (root / "link.txt").symlink_to(root / "text.py")
    (root / "dirlink").symlink_to(root / "sub")
    (root / "loop").symlink_to(root / "loop")
    os.mkfifo(root / "fifo")
    (root.parent / "outside.txt").write_text("outside = 1\n")
    (root / "escape.txt").symlink_to(root.parent / "outside.txt")
    if os.geteuid() == 0 and _tester() is not None:
        (root / "theirs.txt").write_text("owner = tester\n")
        os.chown(root / "theirs.txt", *_tester())  # type: ignore[misc]


def _tester() -> tuple[int, int] | None:
    try:
        entry = pwd.getpwnam("tester")
    except KeyError:
        return None
    return entry.pw_uid, entry.pw_gid


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        for entry in path.iterdir():
            _remove(entry)
        path.rmdir()
    else:
        path.unlink()


def _disk(root: Path) -> dict[str, Any]:
    """What is on disk: each entry's kind, bytes, mode and owner."""
    seen: dict[str, Any] = {}
    for path in sorted(root.rglob("*")):
        st = path.lstat()
        data = path.read_bytes() if stat.S_ISREG(st.st_mode) else None
        seen[str(path.relative_to(root))] = (
            stat.S_IFMT(st.st_mode),
            stat.S_IMODE(st.st_mode),
            st.st_uid,
            data,
        )
    return seen


Case = Callable[[Any, Path], Any]


def _read(name: str, **kw: Any) -> Case:
    return lambda service, root: service.read_file(str(root / name), **kw)


def _edit(name: str, old: str, new: str, **kw: Any) -> Case:
    return lambda service, root: service.edit_file(str(root / name), [Edit(old, new)], **kw)


def _write(name: str, content: str, **kw: Any) -> Case:
    return lambda service, root: service.write_file(str(root / name), content, **kw)


def _read_then_edit(name: str, old: str, new: str, between: Callable[[Path], None] | None = None) -> Case:
    async def case(service: Any, root: Path) -> Any:
        first = await service.read_file(str(root / name))
        if between is not None:
            between(root)
        return first, await service.edit_file(str(root / name), [Edit(old, new)])

    return case


def _swap_dir_for_link(root: Path) -> None:
    (root / "moved").mkdir()
    (root / "moved" / "inner.txt").write_text("inner = old\n")
    _remove(root / "sub")
    (root / "sub").symlink_to(root / "moved")


CASES: dict[str, Case] = {
    "whole": _read("text.py"),
    "whole-cut": _read("text.py", max_bytes=1000),
    "empty": _read("empty.txt"),
    "nul-bytes": _read("nul.bin"),
    "not-utf8": _read("latin1.txt"),
    "crlf": _read("crlf.txt"),
    "first-100": _read("text.py", limit=100),
    "middle": _read("text.py", offset=1500, limit=3),
    "tail-100": _read("text.py", offset=-100),
    "tail-beyond": _read("no-newline.txt", offset=-10),
    "last-line-no-newline": _read("no-newline.txt", offset=-1),
    "past-the-end": _read("text.py", offset=5000),
    "range-cut": _read("text.py", offset=10, limit=500, max_bytes=333),
    "missing": _read("nope.txt"),
    "missing-range": _read("nope.txt", offset=-3),
    "directory": _read("sub"),
    "fifo": _read("fifo"),
    "symlink": _read("link.txt"),
    "symlink-dir": _read("dirlink/inner.txt"),
    "symlink-loop": _read("loop"),
    "symlink-out-of-allowed": _read("escape.txt"),
    "dot-dot": _read("sub/../text.py"),
    "proc": lambda service, root: service.read_file(f"/proc/{os.getpid()}/cmdline"),
    "device": lambda service, root: service.read_file("/dev/null"),
    "operator-path": lambda service, root: service.read_file(os.path.expanduser("~/.ssh/id_rsa")),
    "edit": _edit("text.py", "value_1000 = 1000\n", "value_1000 = -1\n"),
    "edit-dry-run": _edit("text.py", "value_5 = 5\n", "value_5 = 6\n", dry_run=True),
    "edit-no-match": _edit("text.py", "value_5 = 55\n", "x"),
    "edit-crlf": _edit("crlf.txt", "b = 2\n", "b = 20\n"),
    "edit-exec": _edit("exec.sh", "old", "new"),
    "edit-private": _edit("private.txt", "old", "new"),
    "edit-group": _edit("group.txt", "old", "new"),
    "edit-theirs": _edit("theirs.txt", "tester", "still tester"),
    "edit-binary": _edit("nul.bin", "text", "x"),
    "edit-not-utf8": _edit("latin1.txt", "caf", "x"),
    "edit-through-link": _edit("link.txt", "value_7 = 7\n", "value_7 = 8\n"),
    "edit-out-of-allowed": _edit("escape.txt", "outside", "inside"),
    "edit-missing": _edit("nope.txt", "a", "b"),
    "edit-known": _read_then_edit("text.py", "value_9 = 9\n", "value_9 = 10\n"),
    "edit-known-changed": _read_then_edit(
        "sub/inner.txt",
        "old",
        "new",
        lambda root: (root / "sub" / "inner.txt").write_text("inner = changed old\n"),
    ),
    "edit-known-path-moved": _read_then_edit("sub/inner.txt", "old", "new", _swap_dir_for_link),
    "write-new": _write("new.txt", "fresh\n"),
    "write-over": _write("exec.sh", "#!/bin/sh\necho replaced\n"),
    "write-theirs": _write("theirs.txt", "replaced\n"),
    "append": _write("no-newline.txt", "\nfour\n", append=True),
    "append-new": _write("new.txt", "first\n", append=True),
    "write-missing-parent": _write("nowhere/new.txt", "x"),
    "write-directory": _write("sub", "x"),
    "write-through-link": _write("link.txt", "replaced through the link\n"),
    "write-out-of-allowed": _write("escape.txt", "x"),
    "write-persistence": lambda service, root: service.write_file(
        os.path.expanduser("~/.bashrc"), "echo hi\n"
    ),
}


def _side(root: Path, case: Case, *, in_process: bool) -> tuple[Any, dict[str, Any]]:
    _tree(root)
    b = build(
        {"WSL_ALLOWED_PATHS": f"{root},/proc,/dev", "WSL_MAX_READ_BYTES": "100000"},
        transport=LocalTransport(in_process_files=in_process),
    )
    assert (b.raw.files is not None and b.raw.files.direct is not None) == in_process
    replies = asyncio.run(case(b.service, root))
    return replies, _disk(root)


@pytest.mark.parametrize("name", sorted(CASES))
def test_in_process_and_script_answer_alike(tmp_path: Path, name: str) -> None:
    root = tmp_path / "tree"
    script = _side(root, CASES[name], in_process=False)
    direct = _side(root, CASES[name], in_process=True)
    assert direct[0] == script[0]
    assert direct[1] == script[1]
    assert not [p for p in direct[1] if ".wslmcp-" in p], "no temp file is left"


def test_the_cases_reach_what_they_are_about(tmp_path: Path) -> None:
    """The comparison is not of two failures: reads and edits succeed, refusals refuse."""
    root = tmp_path / "tree"
    replies, disk = _side(root, CASES["edit-exec"], in_process=True)
    assert (
        not replies.is_error
        and disk["exec.sh"][3] == b"#!/bin/sh\necho new\n"
        and disk["exec.sh"][1] == 0o755
    )
    replies, _ = _side(root, CASES["symlink-out-of-allowed"], in_process=True)
    assert replies.is_error and "refused" in replies.structured["error"]["code"]
    replies, _ = _side(root, CASES["tail-100"], in_process=True)
    assert not replies.is_error and replies.structured["firstLine"] == 1901
    replies, disk = _side(root, CASES["edit-known-changed"], in_process=True)
    assert not replies[1].is_error and disk["sub/inner.txt"][3] == b"inner = changed new\n"


# -- under the sandbox: a read is one confined script (the probe reads too) --------------------------


@pytest.mark.parametrize("ranged", [False, True])
def test_under_the_sandbox_a_read_answers_as_unconfined_and_a_hidden_path_stays_hidden(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ranged: bool
) -> None:
    from tests.shell.sandbox_world import machine
    from tests.shell.test_sandbox_dynamic import REASON, _make_world, confinement

    if REASON is not None:
        pytest.skip(REASON)
    home = tmp_path / "home"
    home.mkdir()
    outside = Path(tempfile.mkdtemp(prefix="wslmcp-parity-", dir="/var/tmp"))
    monkeypatch.setenv("HOME", str(home))
    try:
        with machine(alone=False):  # (stand-ins other tests make where launchers look: not meanwhile)
            world = _make_world(home, outside)
            (home / "proj" / "link.c").symlink_to(home / "proj" / "src" / "main.c")
            env = world.env(WSL_ALLOWED_PATHS=f"{home},{outside}")
            plain = build(env, transport=LocalTransport())
            confined = build(env, transport=LocalTransport(confinement=confinement(world, **env)))
            kw: dict[str, Any] = {"offset": -1} if ranged else {}

            async def both(path: Path) -> tuple[Any, Any]:
                return await plain.service.read_file(str(path), **kw), await confined.service.read_file(
                    str(path), **kw
                )

            for path in (home / "proj" / "src" / "main.c", home / "proj" / "link.c", home / "nope.c"):
                a, b = asyncio.run(both(path))
                assert a == b, path
            vault = outside / "vault" / "key"
            a, b = asyncio.run(both(vault))
            assert world.secret in a.text  # reachable without the sandbox (WSL_HIDE_PATHS is the sandbox's)
            assert b.is_error and world.secret not in b.text + str(b.structured)
    finally:
        shutil.rmtree(outside, ignore_errors=True)
