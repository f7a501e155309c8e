"""Which transport the shell server gets: automatic choice and the override."""

from __future__ import annotations

from pathlib import Path

from tests.shell.standin import make_wsl_standin
from wslmcp import wiring
from wslmcp.boundaries.shell_transport import LocalTransport, WslExeTransport

SCENARIO = Path(__file__).resolve().parents[2] / "scenarios" / "shell-basic"


def test_auto_prefers_local_inside_the_distro_and_wsl_exe_outside(tmp_path: Path) -> None:
    standin = make_wsl_standin(tmp_path, {"Ubuntu": "Running"})
    real = wiring.real()
    outside = {"PATH": standin.env()["PATH"]}
    assert isinstance(wiring.shell_transport("auto", "Ubuntu", None, real, outside), WslExeTransport)
    inside = {**outside, "WSL_DISTRO_NAME": "ubuntu"}
    assert isinstance(wiring.shell_transport("auto", "Ubuntu", None, real, inside), LocalTransport)
    other = {**outside, "WSL_DISTRO_NAME": "Debian"}
    assert isinstance(wiring.shell_transport("auto", "Ubuntu", None, real, other), WslExeTransport)
    nowhere = {"PATH": str(tmp_path / "empty")}
    assert isinstance(wiring.shell_transport("auto", "Ubuntu", None, real, nowhere), LocalTransport)


def test_the_override_wins_and_replay_always_uses_the_recording(tmp_path: Path) -> None:
    real = wiring.real()
    inside = {"WSL_DISTRO_NAME": "Ubuntu"}
    assert isinstance(wiring.shell_transport("wsl.exe", "Ubuntu", None, real, inside), WslExeTransport)
    assert isinstance(wiring.shell_transport("local", "Ubuntu", None, real, {}), LocalTransport)
    replayed = wiring.replay(SCENARIO)
    assert isinstance(wiring.shell_transport("local", "Ubuntu", None, replayed, {}), WslExeTransport)
    tokens = wiring.run_tokens(replayed)
    assert [tokens(), tokens()] == ["0000000000000001", "0000000000000002"]
