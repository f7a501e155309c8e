"""Real bash as the oracle for the reader: every program bash actually runs for a command must be
among the programs the guard screened for it.

Stub programs (alpha, beta, gamma, delta) on PATH log their own name when run; each command is run
by the real ``bash -c`` in a temporary directory, with stdin closed, and the log is compared with
``commands_seen``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from wslmcp.shell.guard import Policy
from wslmcp.shell.guard.engine import commands_seen

BASH = shutil.which("bash")
STUBS = ("alpha", "beta", "gamma", "delta")
POLICY = Policy(allow_sudo=True, allow_windows=True, home="/home/me")

COMMANDS = [
    "alpha; beta",
    "alpha && beta || gamma",
    "alpha | beta |& gamma",
    "alpha & wait",
    "echo $(alpha) `beta`",
    "x=$(alpha) && echo $x",
    "cat <(alpha) > /dev/null",
    "echo $(( $(alpha) + 1 ))",
    "echo ${undefined_var:-$(beta)}",
    "eval 'alpha x'",
    'eval alpha; eval "beta"',
    "bash -c 'alpha'",
    "sh -ec 'beta'",
    'bash -c "echo \\"x\\"; gamma"',
    "bash -c 'bash -c \"delta\"'",
    "echo alpha | bash",
    "printf 'beta\\n' | sh -s",
    "bash <<< gamma",
    "bash <<'EOF'\ndelta\nEOF",
    "cat <<EOF | sh\nalpha\nEOF",
    "echo YWxwaGEK | base64 -d | sh",
    "x=alpha; $x",
    "$(echo beta)",
    "{alpha,-x}",
    "$'\\x61lpha'",
    "al\\\npha",
    "\"gamma\"; 'delta'",
    "if alpha; then beta; else gamma; fi",
    "while ! alpha; do :; done",
    "for i in 1 2; do beta; done",
    "case x in x) gamma ;; y) delta ;; esac",
    "[[ -n x ]] && alpha",
    "(( 1 )) && beta",
    "((alpha)); gamma",
    "( alpha ); { beta; }",
    "f() { gamma; }; f",
    'g() { "$@"; }; g delta',
    "env -S 'alpha x'",
    "env A=1 beta",
    "timeout 5 gamma",
    "nice -n 1 delta",
    "nohup alpha > /dev/null 2>&1",
    "command beta",
    "(exec gamma)",
    "time delta",
    "echo q | xargs alpha",
    "echo q | xargs -I{} beta {}",
    "find . -maxdepth 0 -exec gamma {} \\;",
    "find . -maxdepth 0 -exec sh -c 'delta' \\;",
    "awk 'BEGIN { system(\"alpha\") }'",
    "trap 'beta' EXIT; true",
    "coproc gamma; wait",
    "source <(echo delta)",
    "a=1 alpha",
    "2>/dev/null beta",
    "> /dev/null gamma",
    "builtin command delta",
    "python3 -c 'import os; os.system(\"alpha\")'",
    # names the guard evaluates statically instead of refusing (issue 12)
    "x=alpha; ${x}",
    "a=beta; b=a; ${!b}",
    "x=xgamma; ${x:1}",
    "x=DELTA; ${x,,}",
    "x=alphabet; ${x%bet}",
    "x=zeta; ${x/z/b}",
    "printf -v c '%s' alpha; $c",
    "read c <<< beta; $c",
    'set -- gamma q; "$@"',
    "IFS=,; x=delta,q; $x",
    "$()alpha",
    "$(command -v beta)",
    "$(which gamma)",
    "$(echo bmqib | tr b-z a-y)",
    "a=del; a+=ta; $a",
    "for c in alpha beta; do $c; done",
    "X=gamma eval '$X'",
    "X=delta bash -c '$X'",
    "export Y=alpha; bash -c '$Y'",
    'f() { "$@"; }; f beta x',
    "echo gamma > >(sh)",
    "sh < <(echo delta)",
    "echo alpha | source /dev/stdin",
    "echo beta | cat - | sh",
    "echo gamma > t.sh; sh t.sh",
    "printf 'delta\\n' > t.sh; chmod +x t.sh; . ./t.sh",
    'python3 -c \'import subprocess; subprocess.run(["alpha", "x"])\'',
    "xargs beta < <(echo q)",
]


@pytest.fixture(scope="module")
def stubs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("oracle")
    bin_dir = root / "bin"
    bin_dir.mkdir()
    for name in STUBS:
        script = bin_dir / name
        script.write_text(f'#!/bin/sh\necho {name} >> "$ORACLE_LOG"\n')
        script.chmod(0o755)
    return bin_dir


@pytest.mark.skipif(BASH is None, reason="needs a real bash")
@pytest.mark.parametrize("command", COMMANDS)
def test_everything_bash_runs_was_screened(command: str, stubs: Path, tmp_path: Path) -> None:
    bin_dir = stubs
    log = tmp_path / "ran.log"
    env = {
        "PATH": f"{bin_dir}:{os.environ.get('PATH', '/usr/bin:/bin')}",
        "ORACLE_LOG": str(log),
        "HOME": str(tmp_path),
        "LC_ALL": "C",
    }
    subprocess.run(
        [BASH or "bash", "-c", command],
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=20,
        check=False,
    )
    ran = set(log.read_text().split()) if log.exists() else set()
    assert ran, "every oracle command runs at least one stub"
    decision, seen = commands_seen(POLICY, command)
    assert decision.allowed, decision
    missed = ran - set(seen)
    assert not missed, f"bash ran {sorted(ran)}, the guard screened {seen}"


def test_the_oracle_sees_something(stubs: Path, tmp_path: Path) -> None:
    """Guard against a vacuous oracle: the stubs really run and log."""
    bin_dir = stubs
    log = tmp_path / "ran.log"
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "ORACLE_LOG": str(log)}
    subprocess.run([BASH or "bash", "-c", "alpha; beta"], env=env, cwd=tmp_path, check=False, timeout=20)
    assert log.read_text().split() == ["alpha", "beta"]
