"""How a run's ending is read: one exit form (``ExitStatus``), the exit marker taken out of the
output, and recordings of the scripts of earlier versions read as today's."""

from __future__ import annotations

import pytest

from wslmcp.scenario.script_versions import as_today
from wslmcp.shell.execution import ExitStatus, build_script, cwd_marker, take_exit_marker
from wslmcp.shell.processes import start_script
from wslmcp.shell.runner import sweep_script

T = "0000000000000011"
CD = "cd -- '/tmp/w' 2>/dev/null || { printf '%s %s\\n' 'wslmcp: cannot enter the working directory' '/tmp/w' >&2; exit 1; }\n"


def test_one_form_for_every_ending() -> None:
    assert ExitStatus.of(0) == ExitStatus(0, None)
    assert ExitStatus.of(143) == ExitStatus(143, None)  # a shell reporting its child's death: an exit
    assert ExitStatus.of(-15) == ExitStatus(143, 15)  # the marker's and the local transport's form
    assert ExitStatus.of(None, killed=True) == ExitStatus(137, 9)  # a deadline's KILL, no code reported
    assert ExitStatus.of(137, killed=True) == ExitStatus(137, 9)  # past a sandbox or wsl.exe
    assert ExitStatus.of(0, killed=True) == ExitStatus(0, None)  # it had exited on its own
    assert ExitStatus.of(None) == ExitStatus(None, None)
    assert ExitStatus(143, 15).words() == "143 (killed by signal 15, SIGTERM)"
    assert (ExitStatus(2).words(), ExitStatus(None).words()) == ("2", "none")


def test_the_exit_marker_is_taken_out_of_the_output() -> None:
    assert take_exit_marker(b"out\n\0WSLMCP_EXIT_" + T.encode() + b":-15\0tail", T) == (b"out\ntail", -15)
    assert take_exit_marker(b"out\0WSLMCP_EXIT_0000000000000012:-15\0", T)[1] is None  # another run's
    assert take_exit_marker(b"plain", T) == (b"plain", None)


# The scripts as the recorded scenarios hold them (versions before the signal traps).
EARLIER = {
    "command": f"export WSLMCP_RUN={T}\n{CD}eval 'mkdir -p src'",
    "command without a cwd": f"export WSLMCP_RUN={T}\neval 'sleep 30 & sleep 31'",
    "session": (
        f'export WSLMCP_RUN={T}\n{CD}trap \'__wslmcp_rc=$?; printf "\\n%s%s\\n" "__WSLMCP_CWD_{T}__" '
        "\"$PWD\"; exit $__wslmcp_rc' EXIT\neval 'pwd'"
    ),
    "background": (
        f'export WSLMCP_RUN={T}\nexec 2>&1\ntrap \'__wslmcp_rc=$?; printf "\\0WSLMCP_EXIT_%s:%s\\0" {T} '
        f"\"$__wslmcp_rc\"; exit $__wslmcp_rc' EXIT\n{CD}eval 'sh build.sh'"
    ),
}
TODAY = {
    "command": f"export WSLMCP_RUN={T}\n" + build_script("mkdir -p src", cwd="/tmp/w", marker=None, token=T),
    "command without a cwd": f"export WSLMCP_RUN={T}\n"
    + build_script("sleep 30 & sleep 31", cwd=None, marker=None, token=T),
    "session": f"export WSLMCP_RUN={T}\n" + build_script("pwd", cwd="/tmp/w", marker=cwd_marker(T), token=T),
    "background": f"export WSLMCP_RUN={T}\n" + start_script("sh build.sh", "/tmp/w", T),
}


@pytest.mark.parametrize("kind", list(EARLIER))
def test_a_recorded_wrapper_of_an_earlier_version_reads_as_todays(kind: str) -> None:
    assert EARLIER[kind] != TODAY[kind]
    assert as_today(EARLIER[kind]) == TODAY[kind]
    assert as_today(TODAY[kind]) == TODAY[kind]


def _earlier_sweep(today: str, signal: str) -> str:
    """Today's sweep as the version before it named each process as it signalled it."""
    head = today[: today.index("for p in $all; do\n")]
    head = head.replace(
        'carriers() { grep -lsa -- "$c" /proc/[0-9]*/cmdline 2>/dev/null; grep -lsxzF -- "$t" /proc/[0-9]*/environ 2>/dev/null; }',
        'carriers() { grep -lsxzF -- "$t" /proc/[0-9]*/environ 2>/dev/null; grep -lsa -- "$c" /proc/[0-9]*/cmdline 2>/dev/null; }',
    )
    fallback_today = (
        '  carriers() { for f in /proc/[0-9]*/cmdline; do grep -qs -- "$c" "$f" 2>/dev/null && echo "$f"; done\n'
        "    for f in /proc/[0-9]*/environ; do { tr '\\0' '\\n' < \"$f\"; } 2>/dev/null "
        '| grep -qxF -- "$t" && echo "$f"; done; }\n'
    )
    fallback_earlier = (
        "  carriers() { for f in /proc/[0-9]*/environ; do { tr '\\0' '\\n' < \"$f\"; } 2>/dev/null "
        '| grep -qxF -- "$t" && echo "$f"; done\n'
        '    for f in /proc/[0-9]*/cmdline; do grep -qs -- "$c" "$f" 2>/dev/null && echo "$f"; done; }\n'
    )
    assert fallback_today in head
    head = head.replace(fallback_today, fallback_earlier)
    return (
        head + 'for p in $all; do printf \'%s %s\\n\' "$p" "$(cat /proc/$p/comm 2>/dev/null)"; done\n'
        f'for p in $all; do kill -{signal} "$p" 2>/dev/null; done\nexit 0'
    )


@pytest.mark.parametrize("signal", ["INT", "TERM", "KILL"])
@pytest.mark.parametrize("descendants", [False, True], ids=["plain", "sandboxed"])
def test_a_recorded_sweep_of_an_earlier_version_reads_as_todays(signal: str, descendants: bool) -> None:
    today = sweep_script(T, "0000000000000012", signal=signal, descendants=descendants)
    earlier = _earlier_sweep(today, signal)
    assert earlier != today
    assert as_today(earlier) == today
    assert as_today(today) == today
