"""Property tests: the guard never crashes, its work is structurally bounded, and wrapping a refused
command in any supported wrapper or payload keeps it refused."""

from __future__ import annotations

import base64
import re
import shlex
import shutil
import subprocess

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wslmcp.shell.guard import Guard, Policy
from wslmcp.shell.guard.engine import check_command
from wslmcp.shell.guard.limits import MAX_COMMAND_CHARS, MAX_WORK, Budget
from wslmcp.shell.guard.reader import read

POLICY = Policy(allow_sudo=True, home="/home/me", user="me")
STRICT = Policy(readonly=True, allow_commands=("ls", "cat"), allowed_paths=("/srv",), home="/home/me")
_TOKENS = [
    *"abcrmfx/-. \t\n;&|<>()[]{}$`'\"\\!*?~=#0123456789",
    "$(",
    "<<",
    "EOF",
    "-c",
    "bash",
    "rm",
    "eval",
    "${",
    "<(",
    "<<<",
]
SHELLISH = st.lists(st.sampled_from(_TOKENS), max_size=120).map("".join)
SETTINGS = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(st.one_of(st.text(max_size=300), SHELLISH))
def test_arbitrary_text_never_crashes_and_work_is_bounded(text: str) -> None:
    for policy in (POLICY, STRICT):
        budget = Budget()
        decision = check_command(policy, text, None, budget)
        assert decision.verdict in ("allow", "reject")
        assert budget.spent <= MAX_WORK
        if decision.verdict == "reject":
            assert decision.rule and decision.reason and decision.reason.endswith("nothing was run")


@SETTINGS
@given(SHELLISH)
def test_reader_always_terminates_on_shell_like_text(text: str) -> None:
    budget = Budget()
    try:
        read(text, budget)
    except Exception as exc:  # only the structural limit may stop it
        assert type(exc).__name__ == "GuardLimit", exc
    assert budget.spent <= MAX_WORK


@SETTINGS
@given(st.text(max_size=120), st.sampled_from(["path", "local", "cwd"]), st.sampled_from(["read", "write"]))
def test_path_guards_never_crash(text: str, check: str, access: str) -> None:
    guard = Guard(STRICT)
    if check == "path":
        decision = guard.check_path(text, access)  # type: ignore[arg-type]
    elif check == "local":
        decision = guard.check_local_path(text, access)  # type: ignore[arg-type]
    else:
        decision = guard.check_cwd(text)
    assert decision.verdict in ("allow", "reject")


def test_too_long_is_refused_before_reading() -> None:
    budget = Budget()
    decision = check_command(POLICY, "echo " + "a" * MAX_COMMAND_CHARS, None, budget)
    assert decision.rule == "parse.too_long"
    assert budget.spent == 0


def test_nesting_past_the_bound_is_refused() -> None:
    for opening, closing in (("( ", " )"), ("$(", ")"), ("{ ", "; }"), ("if true; then ", "; fi")):
        text = "echo x"
        for _ in range(40):
            text = f"{opening}{text}{closing}" if opening != "$(" else f"echo $({text})"
        assert check_command(POLICY, text, None).rule == "parse.too_deep", opening


def test_payload_depth_past_the_bound_is_refused() -> None:
    text = "ls"
    for _ in range(10):
        text = "sh -c " + shlex.quote(text)
    assert check_command(POLICY, text, None).rule == "parse.too_deep"


def test_expansion_bombs_stay_within_the_work_budget() -> None:
    bombs = [
        "echo " + "{a,b}" * 40,
        "a=xxxxxxxx; " + "; ".join("a=$a$a" for _ in range(60)) + "; echo $a",
        "echo {1..100000000}",
        "eval " * 3 + "'" + "ls;" * 5000 + "'",
    ]
    for text in bombs:
        budget = Budget()
        decision = check_command(POLICY, text, None, budget)
        assert budget.spent <= MAX_WORK
        assert decision.verdict == "allow" or decision.rule in ("parse.too_complex", "parse.too_deep"), (
            decision
        )


# ------------------------------------------------------------------ wrappers keep refusals

REFUSED_SIMPLE = [
    "rm -rf /",
    "rm -rf /etc",
    "reboot",
    "shutdown -h now",
    "mkfs.ext4 /dev/sdb1",
    "dd if=/dev/zero of=/dev/sda",
    "chmod -R 777 /",
    "crontab -r",
    "cat /home/me/.ssh/id_rsa",
    "cp x /mnt/c/Users/me/Desktop/x",
    "cmd.exe /c dir",
    "wsl.exe --shutdown",
    "systemctl poweroff",
    "find / -delete",
]
REFUSED_SCRIPTS = [
    *REFUSED_SIMPLE,
    "echo x > /dev/sda",
    ":(){ :|:& };:",
    "cd / && rm -rf *",
    "a=rm; $a -rf /",
]

ARGV_WRAPPERS = [
    "sudo",
    "sudo -u root",
    "sudo --",
    "env",
    "env -i",
    "env -u PATH",
    "env FOO=1",
    "env -C /tmp",
    "nohup",
    "setsid",
    "time",
    "time -p",
    "timeout 30",
    "timeout -s KILL 5",
    "nice",
    "nice -n 10",
    "ionice -c 3",
    "stdbuf -oL",
    "command",
    "exec",
    "exec -a x",
    "chroot /",
    "pkexec",
    "doas",
    "runuser -u root --",
    "nsenter -t 1 -m",
    "systemd-run",
    "flock /tmp/l",
    "strace -f",
    "xargs",
    "watch -x",
    "unbuffer",
]


def _text_wrappers(inner: str) -> list[str]:
    q = shlex.quote(inner)
    b64 = base64.b64encode(inner.encode()).decode()
    return [
        f"bash -c {q}",
        f"sh -c {q}",
        f"bash -lc {q}",
        f"sh -ec {q}",
        f"bash -xec {q}",
        f"dash -c {q}",
        f"zsh -c {q}",
        f"su -c {q}",
        f"su root -c {q}",
        f"eval {q}",
        f"env -S {q}",
        f"watch {q}",
        f"echo {q} | bash",
        f"printf '%s\\n' {q} | sh",
        f"bash <<< {q}",
        f"echo {b64} | base64 -d | sh",
        f"echo $( {inner} )",
        f"X=$( {inner} )",
        f"cat <( {inner} )",
        f"if true; then {inner}; fi",
        f"{{ {inner}; }}",
        f"( {inner} )",
        f"true && {inner}",
        f"false || {inner}",
        f"ls | {{ {inner}; }}",
        f"find . -maxdepth 0 -exec sh -c {q} \\;",
        f"flock /tmp/l -c {q}",
        f"sudo sh -c {q}",
        f"for i in 1; do {inner}; done",
        f"while true; do {inner}; break; done",
        f"bash <<'EOF'\n{inner}\nEOF",
        f"awk 'BEGIN {{ system(\"{inner}\") }}'" if '"' not in inner and "'" not in inner else f"eval {q}",
    ]


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(REFUSED_SIMPLE),
    st.lists(st.sampled_from(ARGV_WRAPPERS), min_size=1, max_size=3),
    st.lists(st.integers(min_value=0, max_value=31), max_size=2),
)
def test_wrapping_a_refused_command_keeps_it_refused(
    command: str, prefixes: list[str], texts: list[int]
) -> None:
    text = " ".join([*prefixes, command])
    if any(p == "xargs" for p in prefixes):
        text = "echo | " + text
    assert check_command(POLICY, command, None).verdict == "reject"
    assert check_command(POLICY, text, None).verdict == "reject", text
    for index in texts:
        text = _text_wrappers(text)[index]
        assert check_command(POLICY, text, None).verdict == "reject", text


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(REFUSED_SCRIPTS), st.lists(st.integers(min_value=0, max_value=31), min_size=1, max_size=3)
)
def test_payload_wrapping_keeps_scripts_refused(script: str, layers: list[int]) -> None:
    assert check_command(POLICY, script, None).verdict == "reject"
    text = script
    for index in layers:
        text = _text_wrappers(text)[index]
        assert check_command(POLICY, text, None).verdict == "reject", text


# ------------------------------------------------------------------ respellings keep refusals

BASH = shutil.which("bash")


def _single(word: str) -> str:
    return "'" + word.replace("'", "'\\''") + "'"


def _respell(word: str, how: int, k: int) -> tuple[str, str]:
    """(assignments to run first, the word spelled another way); bash reads both as ``word``."""
    q = _single(word)
    forms: list[tuple[str, str]] = [
        ("", q),
        ("", '"' + re.sub(r'([\\"$`])', r"\\\1", word) + '"'),
        ("", _single(word[:1]) + "''" + _single(word[1:]) if word[1:] else q),
        ("", "".join("\\" + c for c in word)),
        ("", "$'" + "".join(f"\\x{ord(c):02x}" for c in word) + "'"),
        (f"v{k}={q}; ", f'"$v{k}"'),
        ("", f'"$(printf %s {q})"'),
        ("", f'"${{unset_{k}:-{word}}}"' if re.fullmatch(r"[\w./-]+", word) else q),
        ("", f'"$(echo {base64.b64encode(word.encode()).decode()} | base64 -d)"'),
        (f"v{k}={_single('_' + word)}; ", f'"${{v{k}:1}}"'),
        ("", f"$(){q}"),
        (f"v{k}={_single(word.upper())}; ", f'"${{v{k},,}}"') if word == word.lower() else ("", q),
        (f"a{k}={q}; b{k}=a{k}; ", f'"${{!b{k}}}"'),
        (f"printf -v v{k} %s {q}; ", f'"$v{k}"'),
        (f"read -r v{k} <<< {q}; ", f'"$v{k}"') if " " not in word else ("", q),
        ("", word[:1] + "\\\n" + _single(word[1:]) if word[1:] else q),
        (
            f"v{k}={_single(word[: len(word) // 2])}; w{k}={_single(word[len(word) // 2 :])}; ",
            f'"$v{k}$w{k}"',
        ),
        (f"v{k}={_single(word)}; ", f'"$(echo "$v{k}" | tr a-z a-z)"' if word.isalpha() else f'"$v{k}"'),
    ]
    return forms[how % len(forms)]


RESPELLABLE = [c for c in REFUSED_SIMPLE if all(re.fullmatch(r"[\w./=:+-]+", w) for w in c.split())]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(RESPELLABLE), st.lists(st.integers(min_value=0, max_value=17), min_size=1, max_size=6))
def test_respelling_a_refused_command_keeps_it_refused(command: str, hows: list[int]) -> None:
    words = command.split()
    prefix, spelled = "", []
    for k, word in enumerate(words):
        assigns, text = _respell(word, hows[k % len(hows)], k)
        prefix += assigns
        spelled.append(text)
    respelled = prefix + " ".join(spelled)
    if BASH is not None:  # the respelling really means the same words to bash
        show = "printf '[%s]' "
        original = subprocess.run([BASH, "-c", show + command], capture_output=True, text=True, check=True)
        variant = subprocess.run(
            [BASH, "-c", prefix + show + " ".join(spelled)], capture_output=True, text=True, check=True
        )
        assert variant.stdout == original.stdout, respelled
    assert check_command(POLICY, command, None).verdict == "reject"
    decision = check_command(POLICY, respelled, None)
    assert decision.verdict == "reject", (respelled, decision)
