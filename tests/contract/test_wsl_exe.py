"""wsl.exe: one contract suite over the real adapter (``WslExeCli`` against a `wsl.exe` stand-in on
PATH) and the twin (``FakeWslExe`` serving the same requests recorded from that stand-in), with a
rig that carries the facts each must show. Then the wsl.exe transport against the stand-in: the exact
argument vector, WSL_UTF8, UTF-16LE decoding of wsl.exe's own output, timeouts that reach inside the
"distro", and --check."""

from __future__ import annotations

import asyncio
import getpass
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from tests.shell.conftest import build, processes_with, survivors
from tests.shell.standin import WslStandIn, make_wsl_standin
from wslmcp.boundaries.clock import SystemClock
from wslmcp.boundaries.process import Exchange
from wslmcp.boundaries.shell_transport import ScriptCall, TransportError, WslExeTransport, wsl_exec_args
from wslmcp.boundaries.wsl_exe import WslCall, WslExe, WslExeCli, decode_wsl_output, wsl_output_encoding
from wslmcp.fakes.wsl_exe import FakeWslExe, RecordingWslExe
from wslmcp.scenario.loader import Scenario
from wslmcp.scenario.recorder import ScenarioWriter


@pytest.fixture
def standin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> WslStandIn:
    s = make_wsl_standin(tmp_path / "standin", {"Ubuntu": "Running", "Debian": "Stopped"})
    for key, value in s.env().items():
        monkeypatch.setenv(key, value)
    return s


# -- the boundary: one suite, real and twin ---------------------------------------------------------

RUNNING = ("-d", "Ubuntu", "--exec", "bash", "-c")
CONTRACT_CALLS: dict[str, WslCall] = {
    "listing": WslCall(["-l", "-v"], timeout_s=30),
    "bytes": WslCall([*RUNNING, r"printf '\000\377\r\n'; printf 'err\376' >&2; exit 5"], timeout_s=30),
    "fed": WslCall([*RUNNING, "cat"], stdin=bytes(range(256)) * 4, timeout_s=30),
    "closed": WslCall([*RUNNING, 'read -r line; echo "rc=$?"'], timeout_s=30),
    "capped": WslCall([*RUNNING, "head -c 100000 /dev/zero"], max_output=1000, timeout_s=30),
    "unknown distro": WslCall(["-d", "Nope", "--exec", "bash", "-c", "true"], timeout_s=30),
    "deadline": WslCall([*RUNNING, "echo before; exec sleep 9.8765"], timeout_s=1.0),
}


@dataclass
class WslRig:
    wsl: WslExe
    own_failure_exit: int  # the exit status wsl.exe gives for its own failure (an unknown distro)


@pytest.fixture(scope="module")
def recorded_standin(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[WslStandIn, Path]]:
    """The stand-in, and a scenario holding CONTRACT_CALLS recorded from it by RecordingWslExe."""
    base = tmp_path_factory.mktemp("wsl-contract")
    s = make_wsl_standin(base / "standin", {"Ubuntu": "Running", "Debian": "Stopped"})
    with pytest.MonkeyPatch.context() as mp:
        for key, value in s.env().items():
            mp.setenv(key, value)
        writer = ScenarioWriter(base / "rec", "wsl-contract", "recorded from the stand-in", SystemClock())

        async def record() -> None:
            recorder = RecordingWslExe(WslExeCli("wsl.exe"), writer)
            for call in CONTRACT_CALLS.values():
                await recorder.run(call)

        asyncio.run(record())
        writer.commit()
    yield s, base / "rec"


@pytest.fixture(params=["real", "twin"])
def rig(
    request: pytest.FixtureRequest, recorded_standin: tuple[WslStandIn, Path], monkeypatch: pytest.MonkeyPatch
) -> WslRig:
    s, recording = recorded_standin
    if request.param == "real":
        for key, value in s.env().items():
            monkeypatch.setenv(key, value)
        return WslRig(WslExeCli("wsl.exe"), own_failure_exit=1)
    return WslRig(FakeWslExe(Scenario.load(recording)), own_failure_exit=1)


async def test_wsl_exe_own_output_is_decoded_from_utf16le(rig: WslRig) -> None:
    ex = await rig.wsl.run(CONTRACT_CALLS["listing"])
    assert ex.exit_code == 0 and wsl_output_encoding(ex.stdout) == "utf-16le"
    assert "* Ubuntu    Running         2\n" in decode_wsl_output(ex.stdout)


async def test_a_linux_commands_bytes_pass_untouched_and_a_nonzero_exit_is_a_result(rig: WslRig) -> None:
    ex = await rig.wsl.run(CONTRACT_CALLS["bytes"])
    assert (ex.stdout, ex.stderr, ex.exit_code, ex.timed_out) == (b"\x00\xff\r\n", b"err\xfe", 5, False)
    assert ex.argv == ("wsl.exe", *CONTRACT_CALLS["bytes"].args)


async def test_stdin_is_fed_when_given_and_closed_otherwise(rig: WslRig) -> None:
    fed = await rig.wsl.run(CONTRACT_CALLS["fed"])
    assert fed.stdout == bytes(range(256)) * 4
    closed = await rig.wsl.run(CONTRACT_CALLS["closed"])
    assert closed.stdout == b"rc=1\n"


async def test_capture_is_capped_but_counted_and_a_sink_takes_stdout(rig: WslRig) -> None:
    capped = await rig.wsl.run(CONTRACT_CALLS["capped"])
    assert len(capped.stdout) == 1000 and capped.stdout_total == 100000 and capped.truncated
    sink = bytearray()
    sunk = await rig.wsl.run(replace(CONTRACT_CALLS["fed"], stdout_sink=sink.extend))
    assert sunk.stdout == b"" and bytes(sink) == bytes(range(256)) * 4


async def test_sinks_take_stdout_and_stderr_as_they_come(rig: WslRig) -> None:
    out, err = bytearray(), bytearray()
    ex = await rig.wsl.run(replace(CONTRACT_CALLS["bytes"], stdout_sink=out.extend, stderr_sink=err.extend))
    assert (ex.stdout, ex.stderr, bytes(out), bytes(err)) == (b"", b"", b"\x00\xff\r\n", b"err\xfe")
    assert (ex.stdout_total, ex.stderr_total, ex.exit_code) == (4, 4, 5)


async def test_a_recording_keeps_what_a_stderr_sink_took(
    recorded_standin: tuple[WslStandIn, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    s, _ = recorded_standin
    for key, value in s.env().items():
        monkeypatch.setenv(key, value)
    writer = ScenarioWriter(tmp_path / "rec", "sinks", "a call whose streams went to sinks", SystemClock())
    out, err = bytearray(), bytearray()
    call = CONTRACT_CALLS["bytes"]
    await RecordingWslExe(WslExeCli("wsl.exe"), writer).run(
        replace(call, stdout_sink=out.extend, stderr_sink=err.extend)
    )
    writer.commit()
    replayed = await FakeWslExe(Scenario.load(tmp_path / "rec")).run(call)
    assert (replayed.stdout, replayed.stderr) == (bytes(out), bytes(err)) == (b"\x00\xff\r\n", b"err\xfe")


async def test_its_own_failure_is_an_exit_status_with_a_decodable_message(rig: WslRig) -> None:
    ex = await rig.wsl.run(CONTRACT_CALLS["unknown distro"])
    assert ex.exit_code == rig.own_failure_exit
    assert "There is no distribution with the supplied name." in decode_wsl_output(ex.stdout)


async def test_the_deadline_kills_wsl_exe_and_says_so(rig: WslRig) -> None:
    ex = await rig.wsl.run(CONTRACT_CALLS["deadline"])
    assert ex.timed_out and ex.exit_code is None and ex.stdout == b"before\n"
    for line in processes_with("sleep 9.8765"):  # the stand-in's Linux side outlives wsl.exe: the
        os.kill(int(line.split()[0]), 9)  # caller's job (the runner's sweep), done here by hand


# -- the transport over the stand-in -----------------------------------------------------------------


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
    assert re.search(r"\d+ process(es)? inside the distro:", reply.text) and " sleep" in reply.text
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
