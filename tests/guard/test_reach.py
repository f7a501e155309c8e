"""Deletion judged by its reach (issue 29, defect 4), each case run for real first.

Every home case runs unguarded in bash against a canary home (``HOME`` and the working directory a
temporary directory) and must destroy canaries there: the harm is reachable without the rule. Then the
guard must refuse the same text, with the home known and with it only symbolic (``~``, as in the
server), by the rule the reach calls for. Cases that reach ``/`` are never run for real: the programs
that would delete are stubs on ``PATH`` that record what they were handed, which must be ``/``'s own
entries. Near misses run too, and leave the canaries outside the project alone.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from wslmcp.shell.guard import Guard, Policy

CANARIES = {
    "notes.txt": "my notes",
    ".bashrc": "export PATH=$HOME/bin:$PATH",
    ".ssh/id_ed25519": "key",
    "proj/app.py": "print(1)",
    "proj/app.pyc": "bytecode",
    "proj/build/out.o": "object",
    "other/lib.pyc": "bytecode",
    "docs/old.log": "log",
    "docs/keep.md": "keep",
}

EVERY_NAME = "catastrophe.rm_root"
CHOSEN = "mass_delete"

HOME_CASES = [
    ("find ~ -name '*' -delete", EVERY_NAME),
    ("find ~ -type f -delete", EVERY_NAME),
    ("find ~ ! -name .bashrc -delete", EVERY_NAME),
    ("find ~ -type f -exec shred -u {} +", EVERY_NAME),
    ("find ~ -type f -exec truncate -s 0 {} +", EVERY_NAME),
    ("ls ~ | xargs rm -rf", EVERY_NAME),
    ("ls -A ~ | xargs -I{} rm -rf ~/{}", EVERY_NAME),
    ("find ~ -print0 | xargs -0 rm", EVERY_NAME),
    ("find ~ -type f | xargs rm -f", EVERY_NAME),
    ('for f in ~/*; do rm -rf "$f"; done', EVERY_NAME),
    ('for f in $(ls ~); do rm -rf ~/"$f"; done', EVERY_NAME),
    ('ls ~ | while read -r f; do rm -rf "$f"; done', EVERY_NAME),
    ('while read -r f; do rm -f "$f"; done < <(find ~ -type f)', EVERY_NAME),
    ("rm -rf $(ls -A ~)", EVERY_NAME),
    ("truncate -s 0 ~/*", EVERY_NAME),
    ("mkdir -p ../trash && ls -A ~ | xargs -I{} mv ~/{} ../trash/", EVERY_NAME),
    ("find ~ -name '*.pyc' -delete", CHOSEN),
    ("find ~ -name '*.pyc' | xargs rm", CHOSEN),
    ("ls ~ | grep -v proj | xargs rm -rf", CHOSEN),
    ('while read -r f; do rm -f "$f"; done < <(find ~ -name "*.log")', CHOSEN),
]

NEAR_MISSES = [
    "find ~/proj -name '*.pyc' -delete",
    "cd ~/proj && find . -name '*.pyc' -delete",
    "cd ~/proj && rm -rf build",
    "ls ~/proj/build | xargs -I{} rm -f ~/proj/build/{}",
    "find ~ -name '*.pyc' | xargs ls -l",
]

ROOT_CASES = [
    "ls / | xargs rm -rf",
    "find / -maxdepth 1 -print0 | xargs -0 rm -rf",
    'for f in $(ls /); do rm -rf "/$f"; done',
    "find / -maxdepth 1 -name 'e*' | xargs rm -rf",
]


def _canary_home(tmp_path: Path) -> Path:
    home = tmp_path / "home" / "me"
    for name, text in CANARIES.items():
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_text(text)
    return home


def _harmed(home: Path) -> list[str]:
    """The canaries the command deleted, emptied or changed."""
    return [
        name
        for name, text in CANARIES.items()
        if not (home / name).is_file() or (home / name).read_text() != text
    ]


def _run(command: str, home: Path, *, path: str | None = None, cwd: str | None = None) -> None:
    """``command`` in bash with ``home`` as HOME (and as the working directory unless ``cwd``)."""
    assert home.is_relative_to(Path(os.environ.get("TMPDIR", "/tmp"))) or home.is_relative_to("/tmp"), home
    env = {"HOME": str(home), "PATH": path or os.environ["PATH"], "LC_ALL": "C"}
    subprocess.run(
        ["bash", "-c", command], cwd=cwd or home, env=env, timeout=60, capture_output=True, check=False
    )


def _guards(home: Path) -> list[Guard]:
    return [Guard(Policy(home=str(home), user="me", allow_sudo=True)), Guard(Policy(allow_sudo=True))]


@pytest.mark.parametrize(("command", "rule"), HOME_CASES, ids=[c for c, _ in HOME_CASES])
def test_a_deletion_across_the_home_does_harm_and_is_refused(tmp_path: Path, command: str, rule: str) -> None:
    home = _canary_home(tmp_path)
    _run(command, home)
    harmed = _harmed(home)
    assert harmed, f"{command!r} left every canary alone, so it shows no harm"
    assert any(not name.startswith("proj/") for name in harmed), harmed  # beyond one project
    for guard in _guards(home):
        decision = guard.check_command(command)
        assert (decision.verdict, decision.rule) == ("reject", rule), (guard.policy.home, decision.reason)


@pytest.mark.parametrize("command", NEAR_MISSES)
def test_ordinary_deletion_in_a_project_runs(tmp_path: Path, command: str) -> None:
    home = _canary_home(tmp_path)
    for guard in _guards(home):
        decision = guard.check_command(command)
        assert decision.allowed, (guard.policy.home, decision.reason)
    _run(command, home)
    assert all(name.startswith("proj/") for name in _harmed(home))


def _recording_stubs(tmp_path: Path) -> tuple[str, Path]:
    """A PATH whose rm records its arguments and working directory instead of deleting anything."""
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    log = tmp_path / "rm.log"
    rm = stubs / "rm"
    rm.write_text(f'#!/bin/bash\nprintf "%s\\n" "$PWD" "$@" >> {log}\n')
    rm.chmod(rm.stat().st_mode | stat.S_IXUSR)
    real = ":".join(p for p in os.environ["PATH"].split(":") if p)
    return f"{stubs}:{real}", log


@pytest.mark.parametrize("command", ROOT_CASES)
def test_a_deletion_across_root_reaches_it_and_is_refused(tmp_path: Path, command: str) -> None:
    path, log = _recording_stubs(tmp_path)
    assert shutil.which("rm", path=path) == str(tmp_path / "stubs" / "rm")  # nothing is deleted
    _run(command, tmp_path, path=path, cwd="/")
    where, *names = log.read_text().splitlines()
    handed = {os.path.normpath(os.path.join(where, n)) for n in names if not n.startswith("-")}
    assert "/etc" in handed, handed  # a real rm would have deleted /etc
    for guard in _guards(tmp_path):
        decision = guard.check_command(command)
        assert (decision.verdict, decision.rule) == ("reject", "catastrophe.rm_root"), decision.reason
