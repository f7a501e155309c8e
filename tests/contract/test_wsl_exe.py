"""The wsl.exe transport against a `wsl.exe` stand-in on PATH: the exact argument vector, WSL_UTF8,
UTF-16LE decoding of wsl.exe's own output, timeouts that reach inside the "distro", and --check."""

from __future__ import annotations

import getpass
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.shell.conftest import build, survivors
from tests.shell.standin import WslStandIn, make_wsl_standin
from wslmcp.boundaries.process import Exchange
from wslmcp.boundaries.shell_transport import ScriptCall, TransportError, WslExeTransport, wsl_exec_args
from wslmcp.boundaries.wsl_exe import WslCall, WslExeCli


@pytest.fixture
def standin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> WslStandIn:
    s = make_wsl_standin(tmp_path / "standin", {"Ubuntu": "Running", "Debian": "Stopped"})
    for key, value in s.env().items():
        monkeypatch.setenv(key, value)
    return s


def _transport(distro: str = "Ubuntu", user: str | None = "root") -> WslExeTransport:
    return WslExeTransport(WslExeCli("wsl.exe", kill_on_overflow=True), distro, user)


def test_argv_is_exactly_d_u_exec_bash_lc_script() -> None:
    assert wsl_exec_args("ubuntu", "root", "printf '%s\\n' 'x\\y'") == [
        "-d",
        "ubuntu",
        "-u",
        "root",
        "--exec",
        "bash",
        "-lc",
        "printf '%s\\n' 'x\\y'",
    ]
    assert wsl_exec_args("ubuntu", None, "true") == ["-d", "ubuntu", "--exec", "bash", "-lc", "true"]


async def test_the_stand_in_receives_that_argv_and_wsl_utf8(standin: WslStandIn) -> None:
    ex = await _transport().run(ScriptCall("echo 'a b' \"$HOME\"", timeout_s=30))
    assert ex.exit_code == 0
    assert standin.calls() == [
        ["-d", "Ubuntu", "-u", "root", "--exec", "bash", "-lc", "echo 'a b' \"$HOME\""]
    ]
    assert "--" not in standin.calls()[0]
    assert standin.utf8_flags() == ["1"]


async def test_service_calls_go_through_wsl_exe_with_the_user(standin: WslStandIn, tmp_path: Path) -> None:
    me = getpass.getuser()
    b = build({"WSL_USER": me}, transport=_transport(user=me))
    reply = await b.service.exec("echo hi", cwd=str(tmp_path))
    assert "--- stdout ---\nhi\n" in reply.text
    argv = standin.calls()[-1]
    assert argv[:7] == ["-d", "Ubuntu", "-u", me, "--exec", "bash", "-lc"] and len(argv) == 8
    assert argv[7].startswith("export WSLMCP_RUN=") and argv[7].endswith("eval 'echo hi'")


async def test_listing_is_decoded_from_utf16le(standin: WslStandIn) -> None:
    text = await _transport().list_distros()
    assert text is not None and "* Ubuntu    Running         2\n" in text
    b = build(transport=_transport())
    hosts = await b.service.list_hosts()
    assert "(WSL, this machine; transport: wsl.exe)" in hosts.text
    assert "distro: Running  ·  WSL 2  ·  " in hosts.text
    assert "windows=locked" in hosts.text
    stopped = build({"WSL_DISTRO": "Debian"}, transport=_transport("Debian"))
    calls = len(standin.calls())
    text2 = (await stopped.service.list_hosts()).text
    assert "distro: Stopped  ·  WSL 2  (the first command will start it)" in text2
    assert len(standin.calls()) == calls + 1  # only the listing: a stopped distro is not started by probing
    missing = build({"WSL_DISTRO": "Arch"}, transport=_transport("Arch"))
    assert "distro: NOT FOUND in 'wsl -l -v'" in (await missing.service.list_hosts()).text


async def test_timeout_kills_inside_the_distro_and_says_so(standin: WslStandIn, tmp_path: Path) -> None:
    b = build({"WSL_EXEC_TIMEOUT_MS": "2000"}, transport=_transport())
    reply = await b.service.exec("sleep 17.320508 & sleep 17.320509", cwd=str(tmp_path))
    assert "TIMED OUT after 2000ms — wsl.exe was killed, and " in reply.text
    assert "process(es) inside the distro:" in reply.text and " sleep" in reply.text
    assert await survivors("sleep 17.32050") == []


class _OwnFailure:
    """A boundary double for wsl.exe: what Windows returns when the distro does not exist
    (exit status 4294967295, the reason in UTF-16LE on stdout)."""

    async def run(self, call: WslCall) -> Exchange:
        said = "There is no distribution with the supplied name.\r\n".encode("utf-16-le")
        return Exchange(tuple(call.args), said, b"", 4294967295, 0.01, stdout_total=len(said))


async def test_wsl_exe_own_failure_is_a_transport_error_decoded_from_utf16() -> None:
    transport = WslExeTransport(_OwnFailure(), "Nope", None)
    with pytest.raises(TransportError, match=r"wsl\.exe failed for distro 'Nope': There is no distribution"):
        await transport.run(ScriptCall("true", timeout_s=5))
    b = build({"WSL_DISTRO": "Nope"}, transport=transport)
    reply = await b.service.exec("true")
    assert reply.is_error and "wsl_exec failed: wsl.exe failed for distro 'Nope'" in reply.text


async def test_a_missing_wsl_exe_is_a_clear_error(tmp_path: Path) -> None:
    transport = WslExeTransport(WslExeCli(str(tmp_path / "no-wsl.exe")), "Ubuntu", None)
    with pytest.raises(TransportError, match=r"wsl\.exe could not be started"):
        await transport.run(ScriptCall("true", timeout_s=5))


def _check(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("WSL_")}
    return subprocess.run(
        [sys.executable, "-m", "wslmcp", "shell", "--check"],
        env={**clean, **env, "WSLMCP_SHELL_TRANSPORT": "wsl.exe"},
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def test_check_through_the_stand_in(standin: WslStandIn) -> None:
    ok = _check({"WSL_DISTRO": "Ubuntu", "WSL_USER": "root", **standin.env()})
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert ok.stdout.startswith("Checking Ubuntu  →  root@Ubuntu  (transport: wsl.exe)\n\n  OK      uid=")
    assert "\n          distro: Running  ·  WSL 2  ·  " in ok.stdout
    missing = _check({"WSL_DISTRO": "Arch", **standin.env()})
    assert missing.returncode == 1
    assert "  FAILED  distro: NOT FOUND in 'wsl -l -v'" in missing.stdout


async def test_transfers_through_wsl_exe_are_byte_exact(standin: WslStandIn, tmp_path: Path) -> None:
    b = build(transport=_transport(), chunk_bytes=4096)
    data = bytes(range(256)) * 40 + b"\r\n\x00\xff"
    (tmp_path / "src.bin").write_bytes(data)
    up = await b.service.upload(str(tmp_path / "src.bin"), str(tmp_path / "remote.bin"))
    assert not up.is_error, up.text
    down = await b.service.download(str(tmp_path / "remote.bin"), str(tmp_path / "back.bin"))
    assert not down.is_error, down.text
    assert (tmp_path / "remote.bin").read_bytes() == data == (tmp_path / "back.bin").read_bytes()
    assert all(call[:5] == ["-d", "Ubuntu", "-u", "root", "--exec"] for call in standin.calls())
