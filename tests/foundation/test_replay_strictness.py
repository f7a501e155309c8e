"""Fakes replay strictly: a request the scenario does not hold fails loudly with what was asked and offered."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from wslmcp.boundaries.wsl_exe import WslCall
from wslmcp.fakes.clock import FakeClock
from wslmcp.fakes.procfs import FakeProcSource
from wslmcp.fakes.replay import ReplayMiss
from wslmcp.fakes.wsl_exe import FakeWslExe
from wslmcp.scenario.loader import Scenario
from wslmcp.scenario.manifest import SCHEMA


def test_proc_sample_outside_the_timeline(recorded_linux: Path) -> None:
    scenario = Scenario.load(recorded_linux)
    clock = FakeClock(0.0)
    source = FakeProcSource(scenario, clock)
    source.read_sample()
    last = scenario.timeline[-1].t_ms
    clock.advance(last / 1000 + 5)
    with pytest.raises(ReplayMiss) as info:
        source.read_sample()
    message = str(info.value)
    assert f"a /proc sample at t={last + 5000} ms" in message
    assert "t=0 ms" in message and f"t={last} ms" in message
    assert info.value.boundary == "procfs" and info.value.scenario == "linux-recorded"


def test_proc_sample_follows_the_clock(recorded_linux: Path) -> None:
    scenario = Scenario.load(recorded_linux)
    clock = FakeClock(0.0)
    source = FakeProcSource(scenario, clock)
    seen = []
    for entry in scenario.timeline:
        clock.advance(entry.t_ms / 1000 - clock.monotonic())
        seen.append(source.read_sample())
    assert len({id(s) for s in seen}) == len(scenario.timeline)
    clock.advance(0.0005)  # past the last sample, which this scenario holds for 0 ms
    with pytest.raises(ReplayMiss):
        source.read_sample()


def exchange_scenario(tmp_path: Path) -> Scenario:
    root = tmp_path / "s"
    (root / "x").mkdir(parents=True)
    (root / "x" / "list.out").write_bytes("Ubuntu\r\nDebian\r\n".encode("utf-16-le"))
    (root / "x" / "one.out").write_bytes(b"first")
    (root / "x" / "two.out").write_bytes(b"second")
    digest = hashlib.sha256(b"echo hi").hexdigest()
    manifest = {
        "schema": SCHEMA,
        "name": "ex",
        "exchanges": {
            "wsl_exe": [
                {
                    "args": ["--list", "--quiet"],
                    "stdout": "x/list.out",
                    "stdout_encoding": "utf-16le",
                    "exit_code": 0,
                },
                {
                    "args": ["-d", "U", "--exec", "sh"],
                    "stdin_sha256": digest,
                    "stdout": "x/one.out",
                    "exit_code": 0,
                },
                {
                    "args": ["-d", "U", "--exec", "sh"],
                    "stdin_sha256": digest,
                    "stdout": "x/two.out",
                    "exit_code": 3,
                },
            ]
        },
    }
    (root / "scenario.json").write_text(json.dumps(manifest))
    return Scenario.load(root)


async def test_wsl_exchange_replays_raw_bytes(tmp_path: Path) -> None:
    fake = FakeWslExe(exchange_scenario(tmp_path))
    answer = await fake.run(WslCall(["--list", "--quiet"]))
    assert answer.stdout == "Ubuntu\r\nDebian\r\n".encode("utf-16-le")
    assert answer.exit_code == 0


async def test_identical_requests_replay_in_order_then_repeat_the_last(tmp_path: Path) -> None:
    fake = FakeWslExe(exchange_scenario(tmp_path))
    args = ["-d", "U", "--exec", "sh"]
    got = [await fake.run(WslCall(args, stdin=b"echo hi")) for _ in range(3)]
    assert [(g.stdout, g.exit_code) for g in got] == [(b"first", 0), (b"second", 3), (b"second", 3)]


async def test_unrecorded_request_names_it_and_the_alternatives(tmp_path: Path) -> None:
    fake = FakeWslExe(exchange_scenario(tmp_path))
    with pytest.raises(ReplayMiss) as info:
        await fake.run(WslCall(["--list", "--running"]))
    message = str(info.value)
    assert "not recorded: wsl.exe --list --running" in message
    assert "wsl.exe --list --quiet" in message.split("offers:")[1]


async def test_same_args_different_stdin_is_a_miss(tmp_path: Path) -> None:
    fake = FakeWslExe(exchange_scenario(tmp_path))
    with pytest.raises(ReplayMiss):
        await fake.run(WslCall(["-d", "U", "--exec", "sh"], stdin=b"echo bye"))


def test_a_replay_without_a_fixture_home_never_reads_the_real_one(recorded_linux: Path) -> None:
    """A scenario that holds no client files must refuse every file request, not fall through to
    the real filesystem: a replay reads only what the scenario recorded."""
    from wslmcp.wiring.replay import replay

    files = replay(recorded_linux).client_files
    for ask in (
        lambda: files.read_bytes("/etc/hostname"),
        lambda: files.stat("/etc/hostname"),
        lambda: list(files.iter_files("/etc", ".conf")),
        lambda: list(files.iter_lines("/etc/hostname")),
        lambda: files.same_file("/etc/hostname", "/etc/hostname"),
    ):
        with pytest.raises(ReplayMiss, match="holds no client files"):
            ask()
