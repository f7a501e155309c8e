"""What a shell call would change on the host, as a recording of a session judges it: from the
tools' annotations and the guard's effects, never a list of its own."""

from __future__ import annotations

import pytest

from wslmcp.shell.changes import changes_of
from wslmcp.shell.config import load_config
from wslmcp.shell.tools import TOOLS

POLICY = load_config({"WSL_DISTRO": "x"}).policy


@pytest.mark.parametrize(
    "command",
    ["ls -la /tmp", "du -sh /var", "git status", "cat /etc/os-release | grep ID", "python3 -c 'print(1)'",
     "bash -c 'ls'", "echo ls | bash", "python3 --version", "sleep 2; echo done"],
)  # fmt: skip
def test_commands_that_only_look_change_nothing(command: str) -> None:
    assert changes_of("wsl_exec", {"command": command}, POLICY).none


@pytest.mark.parametrize(
    ("command", "cwd", "said"),
    [
        ("mkdir -p /w/app && cd /w/app && echo built", None, "writes /w/app"),
        ("rm -rf build", "/w", "writes /w/build"),
        ("cd /w && git commit -m x", None, "writes /w"),
        ("make -C /w/x", None, "writes /w/x"),
        ("echo hi > /etc/motd", None, "writes /etc/motd"),
        ("rm -rf ../..", "/w", "writes /"),
        ("echo hi > out.txt", None, "writes a path only known at run time"),
    ],
)
def test_commands_that_write_name_what_they_write(command: str, cwd: str | None, said: str) -> None:
    args = {"command": command, **({"cwd": cwd} if cwd else {})}
    assert changes_of("wsl_exec", args, POLICY).said() == said


@pytest.mark.parametrize(
    "command",
    ["./build.sh", "bash x.sh", "python3 x.py", "sh < x.sh", "/tmp/tool --x", "kill 1", "apt-get install foo",
     "eval \"$CMD\""],
)  # fmt: skip
def test_what_the_guard_cannot_see_or_is_no_write_is_never_within_a_directory(command: str) -> None:
    changes = changes_of("wsl_exec", {"command": command, "cwd": "/w"}, POLICY)
    assert changes.other and not changes.within("/w") and not changes.within("/")


def test_within_a_directory_means_every_write_inside_it() -> None:
    make = changes_of("wsl_exec", {"command": "make -C /w/x"}, POLICY)
    assert make.within("/w") and make.within("/w/x") and not make.within("/w/x/y") and not make.within(None)
    assert not changes_of("wsl_exec", {"command": "rm -rf /wx"}, POLICY).within(
        "/w"
    )  # a prefix is not inside


def test_tools_by_their_annotations() -> None:
    by_hint = {t.name: t.hints for t in TOOLS}
    for name, hints in by_hint.items():
        if hints.read_only or not hints.destructive:
            assert changes_of(name, {"path": "/etc/x"}, POLICY).none, name
    assert changes_of("wsl_write_file", {"path": "/w/a", "content": ""}, POLICY).paths == ("/w/a",)
    assert changes_of("wsl_edit_file", {"path": "/w/a", "edits": [], "dryRun": True}, POLICY).none
    assert changes_of("wsl_download", {"remotePath": "/w/a", "localPath": "/l/b"}, POLICY).paths == (
        "/w/a",
        "/l/b",
    )
    assert changes_of("wsl_stop", {"process": "p1"}, POLICY).none  # ends only what this server started
    assert changes_of("wsl_send_input", {"process": "p1", "input": "rm -rf /\n"}, POLICY).other
    assert changes_of("wsl_write_file", {"path": "relative.txt"}, POLICY).paths == (None,)
