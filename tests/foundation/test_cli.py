"""The CLI as a user meets it: real processes, real exit codes, real streams."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from wslmcp import __version__

SUBCOMMANDS = ["observe", "shell", "profile", "install", "doctor", "scenario", "eval"]


def wslmcp(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "wslmcp", *args], capture_output=True, text=True, timeout=120, cwd=cwd
    )


def test_help_lists_every_subcommand() -> None:
    result = wslmcp("--help")
    assert result.returncode == 0
    for name in SUBCOMMANDS:
        assert f"  {name}" in result.stdout


def test_version() -> None:
    result = wslmcp("--version")
    assert (result.returncode, result.stdout.strip()) == (0, f"wslmcp {__version__}")


@pytest.mark.parametrize("name", SUBCOMMANDS)
def test_each_subcommand_has_help(name: str) -> None:
    result = wslmcp(name, "--help")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: wslmcp ")


@pytest.mark.parametrize(
    "args", [["--frobnicate"], ["frobnicate"], ["scenario", "--frobnicate"], ["scenario", "list", "a", "b"]]
)
def test_unknown_arguments_exit_2_with_one_line(args: list[str]) -> None:
    result = wslmcp(*args)
    assert result.returncode == 2
    assert result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1
    assert "error:" in result.stderr


@pytest.mark.parametrize("name", ["observe", "shell", "profile", "install", "doctor"])
def test_every_subcommand_writes_the_same_usage_line(name: str) -> None:
    """One parsing style as a user sees it: observe's own parser writes the line argparse's do."""
    result = wslmcp(name, "--frobnicate")
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.startswith(f"wslmcp {name}: error: ") and result.stderr.endswith(" (see --help)\n")
    assert "--frobnicate" in result.stderr and len(result.stderr.splitlines()) == 1


def test_no_arguments_prints_the_help() -> None:
    result = wslmcp()
    assert result.returncode == 0 and result.stdout.startswith("usage: wslmcp") and result.stderr == ""


@pytest.mark.parametrize("name", ["scenario", "eval"])
def test_a_command_of_subcommands_alone_prints_its_help(name: str) -> None:
    result = wslmcp(name)
    assert (result.returncode, result.stderr) == (0, "")
    assert (
        result.stdout.startswith(f"usage: wslmcp {name}")
        and "show this help message and exit" in result.stdout
    )


@pytest.mark.skipif(not Path("/proc/stat").is_file(), reason="recording needs a real Linux /proc")
def test_record_validate_replay(tmp_path: Path) -> None:
    out = tmp_path / "s"
    recorded = wslmcp("scenario", "record", "--out", str(out), "--duration", "0.2", "--interval-ms", "100")
    assert recorded.returncode == 0, recorded.stderr
    assert "recorded 3 samples" in recorded.stdout
    validated = wslmcp("scenario", "validate", str(out))
    assert validated.returncode == 0 and "ok" in validated.stdout
    replayed = wslmcp("scenario", "replay", str(out))
    assert replayed.returncode == 0
    assert "match" in replayed.stdout and "digests match" in replayed.stdout
    shown = json.loads(wslmcp("scenario", "show", "--json", str(out)).stdout)
    assert shown["schema"] == "wslmcp-scenario/1.0" and shown["source"] == "recorded"


def test_record_refuses_bad_interval_and_existing_output(tmp_path: Path) -> None:
    bad = wslmcp("scenario", "record", "--out", str(tmp_path / "x"), "--interval-ms", "50")
    assert bad.returncode == 2 and "--interval-ms" in bad.stderr
    assert bad.stderr.startswith("wslmcp scenario record: error: ") and len(bad.stderr.splitlines()) == 1
    assert not (tmp_path / "x").exists()
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "keep").write_text("mine")
    taken = wslmcp("scenario", "record", "--out", str(tmp_path / "full"))
    assert taken.returncode == 1 and "nothing was written" in taken.stderr
    assert (tmp_path / "full" / "keep").read_text() == "mine"


@pytest.mark.skipif(not Path("/proc/stat").is_file(), reason="needs /proc, where nothing can be created")
def test_record_into_an_unwritable_place_is_one_clear_line() -> None:
    failed = wslmcp("scenario", "record", "--out", "/proc/wslmcp-recording", "--duration", "0")
    assert failed.returncode == 1 and failed.stdout == ""
    assert failed.stderr.startswith("wslmcp scenario: recording into /proc/wslmcp-recording failed")
    assert len(failed.stderr.splitlines()) == 1


def test_replay_reports_a_tampered_sample_as_mismatch(tmp_path: Path, recorded_linux: Path) -> None:
    import shutil

    copy = tmp_path / "tampered"
    shutil.copytree(recorded_linux, copy)
    (copy / "samples" / "0001" / "proc" / "uptime").write_bytes(b"1.00 1.00\n")
    result = wslmcp("scenario", "replay", str(copy))
    assert result.returncode == 1
    assert "MISMATCH" in result.stdout and "differs from its recorded digest" in result.stdout


def test_validate_names_file_and_key(tmp_path: Path) -> None:
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "scenario.json").write_text('{"schema": "wslmcp-scenario/9.0", "name": "x"}')
    result = wslmcp("scenario", "validate", str(tmp_path / "s"))
    assert result.returncode == 1
    assert f"{tmp_path / 's' / 'scenario.json'}: schema: expected major version 1" in result.stderr


def test_list_and_show_bundled(repo: Path) -> None:
    listed = wslmcp("scenario", "list", str(repo / "scenarios"))
    assert listed.returncode == 0 and "linux-recorded" in listed.stdout
    shown = wslmcp("scenario", "show", str(repo / "scenarios" / "linux-recorded"))
    assert shown.returncode == 0 and "checks:      procfs-replay" in shown.stdout


@pytest.mark.parametrize("action", ["list", "validate", "replay", "show"])
def test_a_scenario_path_that_is_no_directory_says_so(action: str, tmp_path: Path) -> None:
    missing = wslmcp("scenario", action, str(tmp_path / "absent"))
    assert (missing.returncode, missing.stdout) == (1, "")
    assert missing.stderr == f"wslmcp scenario: {tmp_path / 'absent'}: no such directory\n"
    (tmp_path / "file").write_text("")
    assert wslmcp("scenario", action, str(tmp_path / "file")).stderr.endswith(": not a directory\n")
