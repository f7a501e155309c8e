"""The sandbox profile as data (pure): what the policy and the WSL_SANDBOX* settings turn into, how a
failed probe is classified, which failures get a ``[sandbox]`` line, and the argument vectors both
transports build (unchanged when the sandbox is off, so recorded scenarios replay)."""

from __future__ import annotations

import subprocess

import pytest

from wslmcp.boundaries.shell_transport import Confinement, ScriptCall, distro_argv, wsl_args, wsl_exec_args
from wslmcp.clients import home_places, project_configs
from wslmcp.shell.config import ConfigError, load_config
from wslmcp.shell.guard.paths import HOST_CONTROL_SOCKETS, RUNS_LATER
from wslmcp.shell.guard.registry.git import COMMAND_SETTINGS, runs_setting
from wslmcp.shell.sandbox import (
    INSTALL_COMMANDS,
    ProbeFacts,
    Profile,
    explain,
    is_hidden,
    parse_probe,
    probe_failure,
    profile_for,
    split_report,
    stopped_by,
)
from wslmcp.shell.sandbox_launcher import launcher


def profile(**env: str) -> Profile:
    config = load_config({"WSL_DISTRO": "Ubuntu", "WSL_SANDBOX": "on", **env})
    return profile_for(config.policy, config.sandbox)


def test_the_settings_are_strict_and_default_auto() -> None:
    config = load_config({"WSL_DISTRO": "Ubuntu"})
    assert (config.sandbox.mode, config.sandbox.network, config.sandbox.hide_paths) == ("auto", True, ())
    assert config.sandbox.on and not config.sandbox.required and config.sandbox.check
    for value, mode in [("auto", "auto"), ("AUTO", "auto"), ("true", "on"), ("off", "off"), ("0", "off")]:
        assert load_config({"WSL_SANDBOX": value}).sandbox.mode == mode
    assert load_config({"WSLMCP_SANDBOX_CHECK": "off"}).sandbox.check is False
    on = load_config(
        {"WSL_SANDBOX": "ON", "WSL_SANDBOX_NETWORK": "off", "WSL_HIDE_PATHS": "/srv/keys/, /data/*/x"}
    )
    assert (on.sandbox.mode, on.sandbox.network, on.sandbox.hide_paths) == (
        "on",
        False,
        ("/srv/keys", "/data/*/x"),
    )
    for name, value, said in [
        ("WSL_SANDBOX", "required", "WSL_SANDBOX must be one of auto, true"),
        ("WSL_SANDBOX_NETWORK", "2", "WSL_SANDBOX_NETWORK must be one of"),
        ("WSL_HIDE_PATHS", "~/.secret", "WSL_HIDE_PATHS entries must be absolute"),
        ("WSL_HIDE_PATHS", "/tmp/a,/", "hiding / would hide everything"),
    ]:
        with pytest.raises(ConfigError, match=said):
            load_config({name: value})


def test_writable_roots_follow_the_policy() -> None:
    assert profile().writable == ("~",)
    assert profile(WSL_ALLOWED_PATHS="/srv/app,/home/dev/src").writable == ("/srv/app", "/home/dev/src")
    assert profile(WSL_READONLY="true").writable == ()
    on_drive = profile(WSL_ALLOWED_PATHS="/mnt/c/Users/dev/src,/srv/app")
    assert (on_drive.writable, on_drive.left_read_only) == (("/srv/app",), ("/mnt/c/Users/dev/src",))
    opened = profile(WSL_ALLOWED_PATHS="/mnt/c/Users/dev/src", WSL_ALLOW_WINDOWS="true")
    assert (opened.writable, opened.left_read_only) == (("/mnt/c/Users/dev/src",), ())
    # a root above the drives keeps them read-only unless Windows is allowed
    assert profile(WSL_ALLOWED_PATHS="/").read_only == ("/mnt/[a-zA-Z]",)
    assert profile(WSL_ALLOWED_PATHS="/", WSL_ALLOW_WINDOWS="true").read_only == ()


def test_what_is_hidden_and_kept_read_only_comes_from_the_guards_lists() -> None:
    p = profile(WSL_HIDE_PATHS="/srv/keys")
    for place in home_places():  # the client table's places, each on the side that keeps it
        assert ("~/" + place.path in p.hidden) == ("linux" in place.sides), place
        assert ("/mnt/*/Users/*/" + place.path in p.hidden) == ("windows" in place.sides), place
    assert "/srv/keys" in p.hidden
    # what runs later: the guard's list, its git configuration as files; in each project the agent
    # settings files of .claude (its hooks), the MCP configurations (git's own are found per repository)
    assert {path for _, path in p.runs_later} | {"~/.config/git"} == {
        path for why, path in RUNS_LATER if path not in ("~/.gitconfig", "/etc/gitconfig")
    }
    assert p.git_configs == ("~/.gitconfig", "~/.config/git/config", "/etc/gitconfig")
    assert {path for _, path in p.in_project} == {config.path for config in project_configs()} | {
        ".claude/settings.json",
        ".claude/settings.local.json",
    }
    assert {".mcp.json", ".vscode/mcp.json", ".cursor/mcp.json"} <= {path for _, path in p.in_project}
    assert set(p.sockets) == {path for _, path in HOST_CONTROL_SOCKETS} | {"/run/WSL"}
    assert "/run/WSL" not in profile(WSL_ALLOW_WINDOWS="true").sockets  # interop open
    assert (p.network, p.interop) == (True, False)
    assert profile(WSL_SANDBOX_NETWORK="off").network is False


def test_the_launcher_is_valid_bash_holding_the_profile() -> None:
    text = launcher(profile(WSL_HIDE_PATHS="/srv/it's here"))
    # (its patterns are extglobs, which it turns on before the first is read)
    assert text.index("shopt -s nullglob dotglob extglob globstar") < text.index("!(*.sample)")
    checked = subprocess.run(["bash", "-O", "extglob", "-n", "-c", text], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr
    assert "HA=('/srv/it'\\''s here' '/run/docker.sock'" in text
    assert "[.aws]=1" not in text and "['.aws']=1" in text and "['appdata/roaming']=0" in text
    assert "*TOKEN*|*SECRET*|*PASSWORD*|*_KEY|SSH_AUTH_SOCK" in text
    assert 'exec -c "$bw"' in text  # bubblewrap itself starts with no environment
    assert "CHECK=1" in text and "CHECK=0" in launcher(profile(WSLMCP_SANDBOX_CHECK="off"))


def test_the_git_settings_undone_are_the_guards_and_cover_what_git_runs() -> None:
    """One list for the guard and the sandbox; every key git's own documentation names as a command,
    a program, a hook directory or more configuration."""
    for key in (
        "core.hooksPath", "core.fsmonitor", "core.sshCommand", "core.editor", "core.pager", "core.askPass",
        "sequence.editor", "diff.external", "diff.x.textconv", "diff.x.command", "filter.lfs.smudge",
        "filter.x.clean", "filter.x.process", "merge.x.driver", "credential.helper",
        "credential.https://x.helper", "include.path", "includeIf.gitdir:~/w/.path", "gpg.program",
        "gpg.ssh.program", "pager.log", "remote.origin.uploadpack", "uploadpack.packObjectsHook",
        "sendemail.smtpServer", "init.templateDir", "protocol.ext.allow",
    ):  # fmt: skip
        assert runs_setting(key, "x"), key
    assert runs_setting("alias.st", "!sh -c x") and not runs_setting("alias.st", "status")
    for key in ("user.email", "remote.origin.url", "remote.origin.fetch", "branch.main.remote", "core.bare"):
        assert not runs_setting(key, "x"), key
    assert "core.hookspath" in COMMAND_SETTINGS


def test_both_transports_build_the_same_command_and_nothing_changes_when_off() -> None:
    call = ScriptCall("echo hi")
    assert distro_argv(call, None) == ["bash", "-lc", "echo hi"]
    assert wsl_exec_args("Ubuntu", "dev", "echo hi") == [
        "-d",
        "Ubuntu",
        "-u",
        "dev",
        "--exec",
        "bash",
        "-lc",
        "echo hi",
    ]
    confined = Confinement("LAUNCHER")
    assert distro_argv(call, confined) == [
        "bash",
        "-p",
        "-c",
        "LAUNCHER",
        "wslmcp-sandbox",
        "own",
        "-lc",
        "echo hi",
        "",
        "",
    ]
    sweep = ScriptCall("x", login=False, confine="distro-pids", cwd="/srv/proj", tag="ab12")
    assert wsl_args("Ubuntu", None, distro_argv(sweep, confined))[-6:] == [
        "wslmcp-sandbox",
        "distro-pids",
        "-c",
        "x",
        "/srv/proj",  # where it starts: the launcher checks that project's own files after the command
        "ab12",  # the mark of the after-command check's report
    ]
    assert distro_argv(sweep, None) == ["bash", "-c", "x"]  # the confinement only matters under a sandbox


def test_a_failed_probe_is_classified() -> None:
    ok = parse_probe(
        "home=/home/dev\nbwrap=/usr/bin/bwrap\nkernel=5.15.167.4-microsoft-standard-WSL2\nstatus=0\nerror=\n"
    )
    assert probe_failure(ok, "Ubuntu") is None and ok.home == "/home/dev"
    missing = probe_failure(ProbeFacts(installer="apt-get"), "Ubuntu")
    assert missing is not None and "not installed" in missing.reason
    assert INSTALL_COMMANDS["apt-get"] in missing.remedy and str(missing).endswith(missing.remedy)
    assert "sudo dnf install -y bubblewrap" in str(probe_failure(ProbeFacts(installer="dnf"), "Fedora"))
    wsl1 = probe_failure(
        ProbeFacts(bwrap="/usr/bin/bwrap", kernel="4.4.0-19041-Microsoft", status="1"), "Old"
    )
    assert wsl1 is not None and "WSL 1" in wsl1.reason and "wsl --set-version Old 2" in wsl1.remedy
    userns = ProbeFacts(
        bwrap="/usr/bin/bwrap", status="1", error="bwrap: setting up uid map: Permission denied"
    )
    said = probe_failure(userns, "Ubuntu")
    assert said is not None and "user namespaces are not usable" in said.reason
    assert "max_user_namespaces" in said.remedy
    mount = ProbeFacts(
        bwrap="/usr/bin/bwrap", status="1", error="bwrap: Can't mount tmpfs on /newroot/x: No such file"
    )
    assert "could not set up its mounts" in str(probe_failure(mount, "Ubuntu"))


@pytest.mark.parametrize(
    ("stderr", "rule"),
    [
        ("touch: cannot touch '/etc/x': Read-only file system", "only the writable roots can be written"),
        ("cat: /home/dev/.aws/credentials: Permission denied", "this path is hidden by the sandbox"),
        (
            'sudo: The "no new privileges" flag is set, which prevents sudo from running as root.',
            "setuid programs",
        ),
        ("bwrap: Can't mount tmpfs on /newroot/x: No such file or directory", "the sandbox could not start"),
        ("Cannot connect to the Docker daemon at unix:///var/run/docker.sock.", "sockets of Docker"),
        ("File size limit exceeded", "file size limit"),
        ("cat: /tmp/build.log: No such file or directory", "/tmp and /run/user are private to each call"),
        ("wslmcp: cannot enter the working directory '/tmp/x'", "/tmp and /run/user are private"),
    ],
)
def test_a_failure_on_the_sandbox_gets_one_line_naming_the_rule_and_the_roots(stderr: str, rule: str) -> None:
    line = stopped_by(profile(WSL_ALLOWED_PATHS="/srv/app"), "/home/dev", stderr)
    assert line is not None and line.startswith("[sandbox] ") and rule in line
    assert line.endswith("writable: /srv/app")


def test_other_failures_get_no_sandbox_line() -> None:
    p = profile()
    assert stopped_by(p, "/home/dev", "cat: /etc/shadow: Permission denied") is None
    assert stopped_by(p, "/home/dev", "ls: cannot access 'x': No such file or directory") is None
    # a missing file in /tmp is the private /tmp's doing only outside the roots and what stays visible
    assert stopped_by(p, "/home/dev", "cat: /tmpx/a: No such file or directory") is None
    rooted = profile(WSL_ALLOWED_PATHS="/tmp/work")
    assert stopped_by(rooted, None, "cat: /tmp/work/a: No such file or directory") is None
    visible = profile_for(load_config({"WSL_SANDBOX": "on"}).policy, load_config({}).sandbox, "/tmp/start")
    assert stopped_by(visible, None, "cat: /tmp/start/a: No such file or directory") is None
    # no network is the sandbox's doing only when it turned the network off
    assert stopped_by(p, None, "curl: (6) Could not resolve host: example.com") is None
    off = stopped_by(profile(WSL_SANDBOX_NETWORK="off"), "/home/dev", "curl: (6) Could not resolve host: x")
    assert off == "[sandbox] the network is off (WSL_SANDBOX_NETWORK=off); writable: /home/dev"


def test_explain_shows_the_whole_profile() -> None:
    shown = explain(profile(WSL_READONLY="true"), "/home/dev")
    assert shown["writable"] == [] and "~/.bashrc" not in shown["put_back_after_each_command"]
    assert "/home/dev/.bashrc" in shown["put_back_after_each_command"]  # type: ignore[operator]
    assert "core.hookspath" in shown["git_settings_undone"]  # type: ignore[operator]
    assert "/home/dev/.aws" in shown["hidden"]  # type: ignore[operator]
    assert shown["limits"] == {"processes": 1024, "file_bytes": 4 << 30}


def test_a_path_is_hidden_when_it_lies_in_what_the_profile_hides() -> None:
    p = profile(WSL_HIDE_PATHS="/srv/*/keys")
    hidden = [
        "/home/dev/.aws",
        "/home/dev/.aws/credentials",
        "/home/dev/.config/gcloud/x",
        "/srv/app/keys/id",
        "/run/docker.sock",
        "/mnt/c/Users/Bob/AppData/Roaming/Claude/config.json",
        "/mnt/c/users/bob/.SSH/id_rsa",
    ]
    shown = [
        "/home/dev/.awsome",
        "/home/dev/proj/.aws-notes",
        "/srv/app/keyring",
        "/home/other/.aws",
        "/run/docker",
    ]
    assert [path for path in hidden if not is_hidden(p, "/home/dev", path)] == []
    assert [path for path in shown if is_hidden(p, "/home/dev", path)] == []
    assert not is_hidden(p, None, "/home/dev/.aws")  # the home unknown: nothing home-relative matched


def test_the_checks_report_is_taken_out_by_its_tag() -> None:
    data = b"warning\n\0t0k3n\n~/.bashrc: changed by the command, put back\n\0"
    assert split_report(data, "t0k3n") == (b"warning\n", ("~/.bashrc: changed by the command, put back",))
    assert split_report(data, "other") == (data, ())  # a block the command forged has another tag
    assert split_report(b"plain", "") == (b"plain", ())
