"""Configuration from WSL_* variables: defaults, list formats, and every malformed value."""

from __future__ import annotations

import getpass
import os
import subprocess
import sys

import pytest

from wslmcp.shell.config import ConfigError, load_config, split_patterns


def test_defaults_follow_the_reference() -> None:
    c = load_config({"WSL_DISTRO": "Ubuntu"})
    assert (c.distro, c.user, c.name, c.description, c.cwd) == ("Ubuntu", None, "Ubuntu", None, None)
    assert (c.exec_timeout_ms, c.max_output, c.max_read_bytes, c.log_level) == (60000, 100000, 200000, "info")
    p = c.policy
    assert (p.readonly, p.allow_sudo, p.allow_windows) == (False, True, False)
    assert p.allow_commands is None and p.allowed_paths is None and p.deny_patterns == ()
    assert c.output_cap_bytes == 256 << 20  # the safety cap: long output is not an error
    assert (c.max_processes, c.process_output_bytes, c.process_max_ms) == (8, 1 << 20, 24 * 3600 * 1000)


def test_background_process_limits_are_read() -> None:
    c = load_config(
        {
            "WSL_DISTRO": "Ubuntu",
            "WSL_MAX_PROCESSES": "2",
            "WSL_PROCESS_OUTPUT_BYTES": "4096",
            "WSL_PROCESS_MAX_MS": " 90000 ",
            "WSL_EXEC_TIMEOUT_MS": "1000",
        }
    )
    assert (c.max_processes, c.process_output_bytes, c.process_max_ms, c.exec_timeout_ms) == (
        2,
        4096,
        90000,
        1000,
    )


def test_every_variable_is_read() -> None:
    c = load_config(
        {
            "WSL_DISTRO": "Ubuntu-24.04",
            "WSL_USER": "dev",
            "WSL_NAME": "ubuntu_dev",
            "WSL_DESCRIPTION": "the build box",
            "WSL_CWD": "/opt/app",
            "WSL_READONLY": "YES",
            "WSL_ALLOW_SUDO": "off",
            "WSL_ALLOW_WINDOWS": "1",
            "WSL_ALLOW_COMMANDS": "ls, git,,cat",
            "WSL_DENY_PATTERNS": "^rm",
            "WSL_ALLOWED_PATHS": "/var/log/, /opt//app",
            "WSL_EXEC_TIMEOUT_MS": " 5000 ",
            "WSL_MAX_OUTPUT": "100",
            "WSL_MAX_READ_BYTES": "10",
            "WSL_MCP_LOG_LEVEL": "WARN",
            "WSLMCP_SHELL_TRANSPORT": "local",
        }
    )
    assert (c.distro, c.user, c.name, c.description, c.cwd) == (
        "Ubuntu-24.04",
        "dev",
        "ubuntu_dev",
        "the build box",
        "/opt/app",
    )
    assert (c.policy.readonly, c.policy.allow_sudo, c.policy.allow_windows) == (True, False, True)
    assert c.policy.allow_commands == ("ls", "git", "cat", "pwd")
    assert c.policy.allowed_paths == ("/var/log", "/opt/app")
    assert c.policy.user == "dev"
    assert (c.exec_timeout_ms, c.max_output, c.max_read_bytes, c.log_level, c.transport) == (
        5000,
        100,
        10,
        "warn",
        "local",
    )


def test_blank_values_mean_default() -> None:
    c = load_config({"WSL_DISTRO": "Ubuntu", "WSL_READONLY": "  ", "WSL_EXEC_TIMEOUT_MS": ""})
    assert c.policy.readonly is False and c.exec_timeout_ms == 60000


def test_without_distro_the_config_is_unconfigured_but_still_strict() -> None:
    assert load_config({}).configured is False
    with pytest.raises(ConfigError, match="WSL_READONLY"):
        load_config({"WSL_READONLY": "ture"})


@pytest.mark.parametrize(
    ("pattern_list", "expected"),
    [
        ("x{1,3}", ["x{1,3}"]),
        ("^rm,^reboot", ["^rm", "^reboot"]),
        (r"a\,b, c", [r"a\,b", "c"]),
        ("[,;]q,(a|b,c)", ["[,;]q", "(a|b,c)"]),
        ("[]x,]y", ["[]x,]y"]),
        (" , ^ls ,", ["^ls"]),
    ],
)
def test_deny_patterns_keep_commas_inside_a_pattern(pattern_list: str, expected: list[str]) -> None:
    assert split_patterns(pattern_list) == expected


def test_deny_patterns_are_python_regex_case_insensitive() -> None:
    c = load_config({"WSL_DISTRO": "U", "WSL_DENY_PATTERNS": r"x{2,3}y,a\,b,(?P<n>docker)\s+rm"})
    a, b, d = c.policy.deny_patterns
    assert a.search("xxY") and not a.search("x{1") and b.search("a,b") and d.search("DOCKER rm x")


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("WSL_READONLY", "ture", "one of true"),
        ("WSL_ALLOW_SUDO", "maybe", "one of true"),
        ("WSL_ALLOW_WINDOWS", "2", "one of true"),
        ("WSL_EXEC_TIMEOUT_MS", "abc", "positive whole number"),
        ("WSL_EXEC_TIMEOUT_MS", "0", "positive whole number"),
        ("WSL_EXEC_TIMEOUT_MS", "-1", "positive whole number"),
        ("WSL_EXEC_TIMEOUT_MS", "5e3", "positive whole number"),
        ("WSL_EXEC_TIMEOUT_MS", "1.5", "positive whole number"),
        ("WSL_EXEC_TIMEOUT_MS", "99999999999", "at most"),
        ("WSL_MAX_OUTPUT", "10k", "positive whole number"),
        ("WSL_MAX_OUTPUT", "١٢", "positive whole number"),
        ("WSL_MAX_READ_BYTES", "0x10", "positive whole number"),
        ("WSL_DENY_PATTERNS", "(unclosed", "invalid entry /(unclosed/"),
        ("WSL_DENY_PATTERNS", "ok,[z-a]", "invalid entry /[z-a]/"),
        ("WSL_ALLOWED_PATHS", "var/log", "absolute"),
        ("WSL_ALLOWED_PATHS", "/ok,~/x", "absolute"),
        ("WSL_ALLOW_COMMANDS", "/bin/ls", "bare command names"),
        ("WSL_ALLOW_COMMANDS", "ls;rm", "bare command names"),
        ("WSL_MCP_LOG_LEVEL", "loud", "one of silent"),
        ("WSL_USER", "bad user", "Linux user name"),
        ("WSL_DISTRO", "has space", "distro name"),
        ("WSL_CWD", "relative/dir", "absolute directory"),
        ("WSL_NAME", "two\nlines", "one line"),
        ("WSLMCP_SHELL_TRANSPORT", "ssh", "one of auto"),
        ("WSL_MAX_PROCESSES", "0", "positive whole number"),
        ("WSL_MAX_PROCESSES", "8.0", "positive whole number"),
        ("WSL_MAX_PROCESSES", "1000", "at most"),
        ("WSL_PROCESS_OUTPUT_BYTES", "1MiB", "positive whole number"),
        ("WSL_PROCESS_OUTPUT_BYTES", "99999999999", "at most"),
        ("WSL_PROCESS_MAX_MS", "-5", "positive whole number"),
        ("WSL_PROCESS_MAX_MS", "86400000000", "at most"),
    ],
)
def test_malformed_values_name_the_variable_and_the_value(name: str, value: str, expected: str) -> None:
    env = {"WSL_DISTRO": "Ubuntu", name: value}
    with pytest.raises(ConfigError) as info:
        load_config(env)
    message = str(info.value)
    assert name in message
    assert repr(value.strip()) in message or value.strip() in message
    assert expected in message


def _run_cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("WSL")}
    return subprocess.run(
        [sys.executable, "-m", "wslmcp", "shell", *args],
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def test_a_malformed_value_fails_startup_with_nothing_on_stdout() -> None:
    done = _run_cli({"WSL_DISTRO": "Ubuntu", "WSL_EXEC_TIMEOUT_MS": "abc"})
    assert done.returncode == 1
    assert done.stdout == ""
    assert "WSL_EXEC_TIMEOUT_MS" in done.stderr and "'abc'" in done.stderr


def test_check_without_a_distro_fails() -> None:
    done = _run_cli({}, "--check")
    assert done.returncode == 1
    # this machine is plain Linux: as wsl_list_hosts says, any label turns the tools on
    assert "No WSL_DISTRO is set, and this machine is plain Linux" in done.stdout
    assert "set WSL_DISTRO to any label" in done.stdout


def test_the_setup_texts_name_every_optional_variable() -> None:
    from wslmcp.shell.config import VARIABLES
    from wslmcp.shell.replies import LINUX_SETUP_TEXT, SETUP_TEXT

    for text in (SETUP_TEXT, LINUX_SETUP_TEXT):
        optional = text[text.index("Optional") :].replace("\n", " ")
        missing = [
            name for name, _ in VARIABLES if name not in ("WSL_DISTRO", "WSL_USER") and name not in optional
        ]
        assert missing == []
        assert max(len(line) for line in text.splitlines()) <= 100


def test_check_with_the_local_transport_probes_and_prints_ok() -> None:
    done = _run_cli({"WSL_DISTRO": "Ubuntu", "WSLMCP_SHELL_TRANSPORT": "local"}, "--check")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"Checking Ubuntu  →  {getpass.getuser()}@Ubuntu  (transport: local)")
    ok = next(line for line in lines if line.startswith("  OK      uid="))
    assert ok.endswith("ms)")
    assert "this machine: running, local Linux (not WSL)" in done.stdout and "kernel " in done.stdout
    assert done.stderr == ""


def test_local_transport_refuses_another_user() -> None:
    done = _run_cli(
        {"WSL_DISTRO": "Ubuntu", "WSL_USER": "nobody-else", "WSLMCP_SHELL_TRANSPORT": "local"}, "--check"
    )
    assert done.returncode == 1
    assert done.stdout == ""
    assert "WSL_USER=nobody-else" in done.stderr


async def test_check_reports_a_refused_probe_and_a_missing_cwd() -> None:
    from tests.shell.conftest import build
    from wslmcp.shell.replies import render_check

    refused = build({"WSL_DENY_PATTERNS": "^id$"}).service.service
    text, ok = render_check(await refused.check())
    assert not ok and text.splitlines()[2].startswith("  FAILED  ")
    assert "Refused by this profile's guard policy" in text
    missing = build({"WSL_CWD": "/nonexistent-wslmcp-dir"}).service.service
    text, ok = render_check(await missing.check())
    assert not ok and "exit code 1" in text and "(WSL_CWD=/nonexistent-wslmcp-dir)" in text
    fine = build().service.service
    text, ok = render_check(await fine.check())
    assert ok and text.splitlines()[2].startswith("  OK      uid=")
