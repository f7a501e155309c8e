"""Which transport the shell server gets: automatic choice and the override (decided in wiring)."""

from __future__ import annotations

from pathlib import Path

from tests.shell.standin import make_wsl_standin
from wslmcp import wiring
from wslmcp.boundaries.shell_transport import LocalTransport, WslExeTransport
from wslmcp.wiring.replay import replay, replay_host

SCENARIO = Path(__file__).resolve().parents[2] / "scenarios" / "shell-basic"


def test_auto_prefers_local_inside_the_distro_and_wsl_exe_outside(tmp_path: Path) -> None:
    standin = make_wsl_standin(tmp_path, {"Ubuntu": "Running"})
    outside = {"PATH": standin.env()["PATH"]}
    assert isinstance(wiring.real(outside).shell_transport("auto", "Ubuntu", None), WslExeTransport)
    inside = {**outside, "WSL_DISTRO_NAME": "ubuntu"}
    assert isinstance(wiring.real(inside).shell_transport("auto", "Ubuntu", None), LocalTransport)
    other = {**outside, "WSL_DISTRO_NAME": "Debian"}
    assert isinstance(wiring.real(other).shell_transport("auto", "Ubuntu", None), WslExeTransport)
    nowhere = {"PATH": str(tmp_path / "empty")}
    assert isinstance(wiring.real(nowhere).shell_transport("auto", "Ubuntu", None), LocalTransport)


def test_the_override_wins_and_replay_always_uses_the_recording(tmp_path: Path) -> None:
    inside = {"WSL_DISTRO_NAME": "Ubuntu"}
    assert isinstance(wiring.real(inside).shell_transport("wsl.exe", "Ubuntu", None), WslExeTransport)
    assert isinstance(wiring.real({}).shell_transport("local", "Ubuntu", None), LocalTransport)
    replayed = replay(SCENARIO)
    assert isinstance(replayed.shell_transport("local", "Ubuntu", None), WslExeTransport)
    tokens = replayed.tokens
    assert [tokens.next(), tokens.next()] == ["0000000000000001", "0000000000000002"]


def test_a_replay_serves_the_scenario_env_over_the_given_one() -> None:
    host = replay_host(SCENARIO, {"WSL_DISTRO": "Other", "HOME": "/root"})
    assert host.shell_env["WSL_DISTRO"] == "Ubuntu" and host.shell_env["HOME"] == "/root"
    assert replay_host(SCENARIO).shell_env["WSL_DISTRO"] == "Ubuntu"
