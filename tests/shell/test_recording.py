"""Recording wsl.exe: the real WslExeCli drives the `wsl.exe` stand-in through RecordingWslExe, the
scenario is committed, and FakeWslExe replays every exchange byte for byte."""

from __future__ import annotations

import hashlib
import io
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.shell.conftest import survivors
from tests.shell.standin import make_wsl_standin
from wslmcp.boundaries.clock import SystemClock
from wslmcp.boundaries.process import Exchange
from wslmcp.boundaries.shell_transport import ScriptCall, WslExeTransport, wsl_exec_args
from wslmcp.boundaries.wsl_exe import WslCall, WslExe, WslExeCli
from wslmcp.fakes.wsl_exe import FakeWslExe, RecordingWslExe
from wslmcp.scenario.loader import Scenario
from wslmcp.scenario.recorder import ScenarioWriter
from wslmcp.shell.runner import Runner

STREAMED = os.urandom(2 * 1024 * 1024 + 3)


def _requests() -> list[tuple[list[str], dict[str, Any]]]:
    def ex(script: str) -> list[str]:
        return wsl_exec_args("Ubuntu", "dev", script, login=False)

    return [
        (["-l", "-v"], {}),
        (ex(r"printf '\000\377\r\n'; printf 'err\376' >&2; exit 5"), {}),
        (ex("cat"), {"stdin": bytes(range(256)) * 4}),
        (ex("cat"), {"stdin": b""}),
        (ex("head -c 100000 /dev/zero"), {"max_output": 1000}),
        (wsl_exec_args("Nope", None, "true"), {}),
    ]


async def _play(wsl: WslExe) -> list[tuple[Exchange, bytes]]:
    """Every request, plus a streamed transfer and a timed-out run with its kill sweep."""
    got = []
    for args, kw in _requests():
        got.append((await wsl.run(WslCall(args, timeout_s=30, **kw)), b""))
    sink = bytearray()
    streamed = await wsl.run(
        WslCall(
            wsl_exec_args("Ubuntu", "dev", "cat", login=False),
            stdin=io.BytesIO(STREAMED),
            stdout_sink=sink.extend,
            timeout_s=60,
        )
    )
    got.append((streamed, bytes(sink)))
    runner = Runner(WslExeTransport(wsl, "Ubuntu", "dev"), tokens=lambda: "00000000000000ab")
    # the deadline leaves the stand-in time to start its Linux side even on a loaded machine
    run = await runner.run(ScriptCall("sleep 19.5; echo never", timeout_s=2.0, max_output=1000))
    got.append((run.exchange, "\n".join(run.killed).encode()))
    return got


def _seen(ex: Exchange) -> tuple[Any, ...]:
    return (
        ex.argv[1:],
        ex.stdout,
        ex.stderr,
        ex.exit_code,
        ex.timed_out,
        ex.overflowed,
        ex.stdout_total,
        ex.stderr_total,
        round(ex.duration_s * 1000),
    )


async def test_a_recording_replays_byte_identical(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    standin = make_wsl_standin(tmp_path / "standin", {"Ubuntu": "Running", "Debian": "Stopped"})
    for key, value in standin.env().items():
        monkeypatch.setenv(key, value)
    writer = ScenarioWriter(tmp_path / "rec", "rec", "round trip", SystemClock())
    recorded = await _play(RecordingWslExe(WslExeCli("wsl.exe", kill_on_overflow=True), writer))
    writer.commit()
    assert await survivors("sleep 19.5") == []

    scenario = Scenario.load(tmp_path / "rec")
    replayed = await _play(FakeWslExe(scenario))
    assert [_seen(ex) for ex, _ in replayed] == [_seen(ex) for ex, _ in recorded]
    assert [extra for _, extra in replayed[:-1]] == [extra for _, extra in recorded[:-1]]
    assert recorded[-2][1] == STREAMED  # the streamed stdout reached the caller's sink both times
    # the sweep after the deadline named the script's shell and its sleep, recorded and replayed
    assert sorted(line.split()[1] for line in recorded[-1][1].decode().splitlines()) == ["bash", "sleep"]
    assert replayed[-1][1] == recorded[-1][1]

    # what the recording says about itself
    items: Sequence[dict[str, Any]] = json.loads((tmp_path / "rec" / "scenario.json").read_text())[
        "exchanges"
    ]["wsl_exe"]
    listing, binary, fed, empty, flood, nodistro = items[:6]
    assert listing["stdout_encoding"] == "utf-16le" and "stdin_sha256" not in listing
    assert (tmp_path / "rec" / listing["stdout"]).read_bytes().decode("utf-16-le").startswith("  NAME")
    assert binary["stdout_encoding"] == binary["stderr_encoding"] == "bytes" and binary["exit_code"] == 5
    assert (tmp_path / "rec" / binary["stdout"]).read_bytes() == b"\x00\xff\r\n"
    assert fed["stdin_sha256"] == hashlib.sha256(bytes(range(256)) * 4).hexdigest()
    assert empty["stdin_sha256"] == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    assert "stdout" not in empty
    assert flood["overflowed"] and flood["stdout_total"] > 1000
    assert (tmp_path / "rec" / flood["stdout"]).stat().st_size == 1000
    assert nodistro["exit_code"] == 1
    assert items[-2]["timed_out"] and items[-2]["exit_code"] is None


async def test_a_replay_of_different_stdin_is_a_miss(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from wslmcp.fakes.replay import ReplayMiss

    standin = make_wsl_standin(tmp_path / "standin", {"Ubuntu": "Running"})
    for key, value in standin.env().items():
        monkeypatch.setenv(key, value)
    writer = ScenarioWriter(tmp_path / "rec", "rec", "miss", SystemClock())
    args = wsl_exec_args("Ubuntu", None, "cat", login=False)
    await RecordingWslExe(WslExeCli("wsl.exe"), writer).run(
        WslCall(args, stdin=io.BytesIO(b"one"), timeout_s=30)
    )
    writer.commit()
    fake = FakeWslExe(Scenario.load(tmp_path / "rec"))
    assert (await fake.run(WslCall(args, stdin=b"one"))).stdout == b"one"
    with pytest.raises(ReplayMiss):
        await fake.run(WslCall(args, stdin=io.BytesIO(b"two")))
