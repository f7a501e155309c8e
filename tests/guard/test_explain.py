"""`wslmcp shell explain`: the policy from WSL_* variables, one JSON object, exit 0 (2 on bad config)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from wslmcp.shell.explain import main

CLEAN = {k: v for k, v in os.environ.items() if not k.startswith("WSL")}


def run_cli(args: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "wslmcp", "shell", "explain", *args],
        env={**CLEAN, **(env or {})},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def explain(
    args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, **env: str
) -> tuple[int, dict[str, str | None] | None, str]:
    for key in [k for k in os.environ if k.startswith("WSL")]:
        monkeypatch.delenv(key)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    try:
        code = main(args)
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip() else None), err


def test_cli_prints_one_json_object_for_a_refused_command() -> None:
    done = run_cli(["--json", "rm -rf /"])
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("\n") == 1
    assert json.loads(done.stdout) == {
        "verdict": "reject",
        "rule": "catastrophe.rm_root",
        "segment": "rm -rf /",
        "reason": "blocked as dangerous: rm deletes the filesystem root (/); nothing was run",
    }


def test_cli_reads_the_policy_from_wsl_variables() -> None:
    assert json.loads(run_cli(["echo x > f"]).stdout)["verdict"] == "allow"
    refused = json.loads(run_cli(["echo x > f"], {"WSL_READONLY": "true"}).stdout)
    assert refused["rule"] == "readonly.redirect"


def test_cli_configuration_error_exits_2_and_prints_no_json() -> None:
    done = run_cli(["--json", "ls"], {"WSL_READONLY": "ture"})
    assert done.returncode == 2
    assert done.stdout == ""
    assert "WSL_READONLY" in done.stderr and "ture" in done.stderr


def test_allowed_command_has_null_fields(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, _ = explain(["--json", "ls", "-la"], capsys, monkeypatch)
    assert code == 0
    assert out == {"verdict": "allow", "rule": None, "segment": None, "reason": None}


def test_command_words_after_double_dash(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, _ = explain(["--json", "--", "rm", "-rf", "/etc"], capsys, monkeypatch)
    assert code == 0 and out is not None
    assert out["rule"] == "catastrophe.rm_root" and out["segment"] == "rm -rf /etc"


def test_command_uses_wsl_cwd_and_the_cwd_argument(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, out, _ = explain(["touch", "f"], capsys, monkeypatch, WSL_CWD="/mnt/c/work")
    assert out is not None and out["rule"] == "windows.mnt_write"
    _, out, _ = explain(["--cwd", "/tmp", "touch", "f"], capsys, monkeypatch, WSL_CWD="/mnt/c/work")
    assert out is not None and out["verdict"] == "allow"
    _, out, _ = explain(["--cwd", "/tmp;reboot", "ls"], capsys, monkeypatch)
    assert out is not None and out["rule"] == "cwd.metachar"


@pytest.mark.parametrize(
    "case",
    [
        (["--json", "--path", "/mnt/c/x.txt", "--access", "write"], {}, "reject", "windows.mnt_write"),
        (["--json", "--path", "/mnt/c/x.txt", "--access", "read"], {}, "allow", None),
        (
            ["--json", "--path", "/mnt/c/x.txt", "--access", "write"],
            {"WSL_ALLOW_WINDOWS": "true"},
            "allow",
            None,
        ),
        (
            ["--json", "--path", "/home/me/.ssh/id_rsa", "--access", "read"],
            {"WSL_ALLOW_WINDOWS": "1"},
            "reject",
            "operator_path",
        ),
        (
            ["--json", "--path", "/etc/passwd", "--access", "read"],
            {"WSL_ALLOWED_PATHS": "/var/log"},
            "reject",
            "allowed_paths",
        ),
        (
            ["--json", "--path", "/var/log/syslog", "--access", "read"],
            {"WSL_ALLOWED_PATHS": "/var/log"},
            "allow",
            None,
        ),
        (
            ["--json", "--path", "/tmp/x", "--access", "write"],
            {"WSL_READONLY": "yes"},
            "reject",
            "readonly.write",
        ),
        (
            ["--json", "--local", "C:\\Users\\me\\.claude.json", "--access", "write"],
            {},
            "reject",
            "operator_path",
        ),
        (
            ["--json", "--local", "C:/Users/me/.aws/credentials", "--access", "read"],
            {},
            "reject",
            "operator_path",
        ),
        (
            ["--json", "--local", "/home/me/.ssh/id_ed25519", "--access", "read"],
            {},
            "reject",
            "operator_path",
        ),
        (["--json", "--local", "C:\\Users\\me\\report.pdf", "--access", "write"], {}, "allow", None),
        (["--json", "--cwd", "/tmp"], {}, "allow", None),
        (["--json", "--cwd", "$(reboot)"], {}, "reject", "cwd.metachar"),
        (["--json", "sudo ls"], {"WSL_ALLOW_SUDO": "false"}, "reject", "sudo"),
        (["--json", "rm x"], {"WSL_ALLOW_COMMANDS": "ls,cat"}, "reject", "allow_commands"),
        (
            ["--json", "docker compose down"],
            {"WSL_DENY_PATTERNS": r"docker\s+compose\s+down"},
            "reject",
            "deny_pattern",
        ),
        (["--json", "cmd.exe /c dir"], {}, "reject", "windows.interop"),
        (["--json", "cmd.exe /c dir"], {"WSL_ALLOW_WINDOWS": "on"}, "allow", None),
    ],
)
def test_each_question_and_policy_variable(
    case: tuple[list[str], dict[str, str], str, str | None],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    args, env, verdict, rule = case
    code, out, _ = explain(args, capsys, monkeypatch, **env)
    assert code == 0
    assert out is not None and (out["verdict"], out["rule"]) == (verdict, rule)
    assert set(out) == {"verdict", "rule", "segment", "reason"}


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["--json"],
        ["--path", "/x"],
        ["--local", "/x"],
        ["--path", "/x", "--access", "delete"],
        ["--access", "read", "ls"],
        ["--path", "/x", "--access", "read", "ls"],
        ["--path", "/x", "--local", "/y", "--access", "read"],
        ["--path", "/x", "--access", "read", "--cwd", "/tmp"],
    ],
)
def test_usage_errors_exit_2_with_one_line(
    args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, err = explain(args, capsys, monkeypatch)
    assert code == 2
    assert out is None
    assert err.count("\n") == 1 and err.startswith("wslmcp shell explain: error:")


def test_configuration_error_in_process(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, err = explain(["ls"], capsys, monkeypatch, WSL_DENY_PATTERNS="([unclosed")
    assert code == 2 and out is None
    assert "WSL_DENY_PATTERNS" in err


def test_words_after_the_separator_are_one_command_each_word_one_argument(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`explain -- python3 -c "…"` as a shell hands it over: the code is one argument of python3,
    not more commands; plain words and operators still read as typed (`explain ls '&&' rm -rf /`)."""
    code = "import os; os.system('rm -rf /etc')"
    rc, doc, _ = explain(["--json", "--", "python3", "-c", code], capsys, monkeypatch, WSL_DISTRO="Ubuntu")
    assert rc == 0 and doc is not None and doc["verdict"] == "reject", doc
    rc, doc, _ = explain(["--json", "ls", "&&", "rm", "-rf", "/"], capsys, monkeypatch, WSL_DISTRO="Ubuntu")
    assert rc == 0 and doc is not None and doc["verdict"] == "reject", doc


def test_effects_show_what_the_flow_pass_found(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, _ = explain(["--json", "--effects", "echo x >> ~/.profile; kill -9 -1"], capsys, monkeypatch)
    assert code == 0 and out is not None
    assert out["rule"] == "persistence"
    batches = out["effects"]
    assert isinstance(batches, list)
    assert [b["command"] for b in batches] == ["echo x >> ~/.profile", "kill -9 -1"]
    assert {"effect": "Write", "path": "~/.profile", "how": "append", "op": ">>"} in batches[0]["effects"]
    assert {"effect": "Signal", "signal": "9", "pids": ["-1"]} in batches[1]["effects"]


def test_effects_need_a_command(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, err = explain(["--effects", "--cwd", "/tmp"], capsys, monkeypatch)
    assert code == 2 and out is None
    assert "--effects needs a COMMAND" in err


def test_a_program_that_writes_a_file_is_not_said_to_redirect(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Read-only: ``python3 -c 'open("x","w")'`` writes x itself; it has no redirection to name."""
    code, said, _ = explain(['python3 -c \'open("x","w")\''], capsys, monkeypatch, WSL_READONLY="true")
    assert code == 0 and said is not None
    assert (said["rule"], said["reason"]) == (
        "readonly.write",
        "profile is read-only and 'python3' writes x; nothing was run",
    )
