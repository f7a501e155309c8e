"""``wslmcp doctor`` for real on temp homes of both sides: one line per check, each failure with its
fix, Windows-only checks skipped on Linux, the clients' entries started, exit 0 or 1."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.install.rig import DISTRO, Rig, make_rig
from tests.observe.engine_answers import item
from tests.standins.engine import engine_in_thread
from wslmcp.clients import CLIENTS


@pytest.fixture
def rig(tmp_path: Path) -> Rig:
    return make_rig(tmp_path)


@pytest.fixture
def docker_host() -> Iterator[str]:
    answers = [item("/version", {"Version": "27.1.1"})]
    with (
        tempfile.TemporaryDirectory(dir="/tmp") as tmp,  # short path: unix sockets allow ~108 bytes
        engine_in_thread(Path(tmp) / "e.sock", answers) as engine,
    ):
        yield engine.url


def _doctor(rig: Rig, *args: str, env: dict[str, str] | None = None) -> tuple[int, list[dict[str, Any]]]:
    done = rig.run("doctor", "--json", *args, env=env)
    assert done.stdout, done.stderr
    return done.returncode, json.loads(done.stdout)["checks"]


def _named(lines: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    return [line for line in lines if line["name"] == name]


def test_a_host_with_our_entries_everywhere_is_well(rig: Rig, docker_host: str) -> None:
    assert rig.install("--no-check")[0] == 0
    env = rig.env()
    env["DOCKER_HOST"] = docker_host
    code, lines = _doctor(rig, env=env)
    assert [line["name"] for line in lines[:2]] == ["python", "wslmcp"]
    assert _named(lines, "wsl")[0] == {
        "name": "wsl",
        "status": "ok",
        "detail": "WSL version: 2.3.26.0",
        "fix": None,
    }
    assert _named(lines, "pdh")[0]["status"] == "skip" and "Windows only" in _named(lines, "pdh")[0]["detail"]
    docker = _named(lines, "docker")[0]
    assert docker["status"] == "ok" and "Docker Engine 27.1.1" in docker["detail"], docker
    assert _named(lines, "distro")[0]["status"] == "ok" and DISTRO in _named(lines, "distro")[0]["detail"]
    if shutil.which("rg"):
        assert _named(lines, "ripgrep")[0]["status"] == "ok"
    clients = _named(lines, "client")
    assert {line["status"] for line in clients} == {"ok"}, clients
    windows_files = [f for c in CLIENTS for f in c.files("user", "windows")]
    assert sum("(windows," in line["detail"] for line in clients) == 2 * len(windows_files)
    assert all("answers: " in line["detail"] for line in clients)
    sandbox = _named(lines, "sandbox")[0]
    assert code == (0 if sandbox["status"] == "ok" else 1), lines


def test_what_is_wrong_is_named_with_its_fix_and_exit_1(rig: Rig) -> None:
    assert rig.install("--client", "cursor", "--client", "codex", "--no-check")[0] == 0
    (rig.linux / ".codex" / "config.toml").write_text("[mcp_servers\n")  # broken by hand
    env = rig.env()
    env["STANDIN_DIR"] = str(rig.cwd)  # wsl.exe knows no such distro any more
    (rig.cwd / "distros").write_text("Debian\n")
    code, lines = _doctor(rig, env=env)
    assert code == 1
    failed = [line for line in lines if line["status"] == "fail"]
    broken = next(line for line in failed if ".codex" in line["detail"])
    assert "cannot be read" in broken["detail"] and broken["fix"].startswith("fix the file by hand")
    windows = [line for line in failed if "Cursor (windows," in line["detail"]]
    assert len(windows) == 2 and all(
        line["fix"].startswith("run it by hand to see why: wsl.exe") for line in windows
    )
    bare = [line for line in _named(lines, "client") if line["status"] == "warn"]
    assert {line["fix"] for line in bare} >= {"wslmcp install --client claude-code"}
    text = rig.run("doctor", env=env)
    assert text.returncode == 1 and "FAIL  client" in text.stdout and "fix: run it by hand" in text.stdout
    assert text.stdout.rstrip().endswith("check(s) failed")


def test_docker_absent_is_a_warning_and_windows_checks_are_skipped_on_linux(rig: Rig, tmp_path: Path) -> None:
    env = rig.env(inside_wsl=False, interop=False)
    env["DOCKER_HOST"] = f"unix://{tmp_path}/none.sock"
    _, lines = _doctor(rig, "--no-start", env=env)
    docker = _named(lines, "docker")[0]
    assert docker["status"] == "warn" and docker["fix"]
    assert {line["status"] for line in _named(lines, "wsl") + _named(lines, "pdh")} == {"skip"}
    assert all("(windows," not in line["detail"] for line in _named(lines, "client"))
