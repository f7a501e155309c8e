"""`wslmcp scenario record --docker --wslc` (and --windows) against an Engine stand-in and a
wslc.exe stand-in: what it writes replays through the twins, and a source this host lacks is
refused with nothing written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.contract.test_wslc import LISTING, STATS, _scenario, _utf16
from tests.standins.engine import engine_in_thread
from tests.standins.wslc import make_wslc_standin, standin_env
from wslmcp.boundaries.docker_api import TOP_PS_ARGS
from wslmcp.boundaries.wslc import LIST_ARGS, STATS_ARGS, decode_wslc_json
from wslmcp.fakes.clock import FakeClock
from wslmcp.fakes.docker_api import FakeDockerApi
from wslmcp.fakes.wslc import FakeWslc
from wslmcp.scenario.loader import Scenario

CID = "c" * 64
ENGINE = [
    {"path": "/containers/json", "json": [{"Id": CID, "Names": ["/web"]}]},
    {"path": f"/containers/{CID}/stats", "query": {"stream": "false"}, "json": {"read": "r", "cpu_stats": {}}},
    {"path": f"/containers/{CID}/top", "query": {"ps_args": TOP_PS_ARGS},
     "json": {"Titles": ["PID"], "Processes": [["1"]]}},
]  # fmt: skip


@pytest.fixture
def sock_dir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="rec-", dir="/tmp") as d:
        yield Path(d)


def _record(out: Path, env: dict[str, str], *flags: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "wslmcp", "scenario", "record", "--out", str(out),
            "--duration", "0", "--interval-ms", "100", *flags]  # fmt: skip
    return subprocess.run(argv, capture_output=True, text=True, timeout=60, env=env)


async def test_docker_and_wslc_answers_are_recorded_and_replay(tmp_path: Path, sock_dir: Path) -> None:
    (tmp_path / "wslc").mkdir()
    wslc_root = _scenario(tmp_path / "wslc", [(LIST_ARGS, json.dumps(LISTING).encode(), b"", 0),
                                               (STATS_ARGS, _utf16(json.dumps(STATS)), b"", 0)])  # fmt: skip
    make_wslc_standin(wslc_root, tmp_path / "bin")
    out = tmp_path / "recorded"
    with engine_in_thread(sock_dir / "d.sock", ENGINE) as engine:
        env = {**os.environ, **standin_env(wslc_root, tmp_path / "bin"), "DOCKER_HOST": engine.url}
        done = _record(out, env, "--docker", "--wslc")
    assert done.returncode == 0, done.stderr
    scenario = Scenario.load(out)
    docker_items = scenario.manifest["exchanges"]["docker_api"]
    assert [i["path"] for i in docker_items[:3]] == [i["path"] for i in ENGINE]
    assert len([i for i in docker_items if i["path"] == "/containers/json"]) == 2  # one per sample
    api = FakeDockerApi.from_scenario(scenario, FakeClock())
    assert api.endpoint.url == engine.url
    top = await api.get(f"/containers/{CID}/top", {"ps_args": TOP_PS_ARGS}, timeout_s=1)
    assert top.body == ENGINE[2]["json"]
    wslc = FakeWslc(scenario)
    assert decode_wslc_json(await wslc.run(STATS_ARGS)) == STATS
    assert scenario.manifest["exchanges"]["wslc"][1]["stdout_encoding"] == "utf-16le"


@pytest.mark.skipif(sys.platform == "win32", reason="checks the refusal on a host without PDH")
def test_windows_sources_on_linux_are_refused_and_nothing_is_written(tmp_path: Path) -> None:
    out = tmp_path / "never"
    done = _record(out, dict(os.environ), "--windows")
    assert done.returncode == 1
    assert "--windows needs a Windows host" in done.stderr
    assert not out.exists() and list(tmp_path.iterdir()) == []


async def test_on_windows_the_primary_is_recorded_through_wsl_exe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.shell.standin import make_wsl_standin
    from wslmcp import wiring
    from wslmcp.replay.record_windows import Sources, record_host
    from wslmcp.scenario.recorder import ScenarioWriter
    from wslmcp.wiring.recording import recording

    standin = make_wsl_standin(tmp_path / "wsl", {"Ubuntu": "Running"})
    env = {
        **os.environ,
        **standin.env(),
        "WSLMCP_WSL_EXE": standin.executable,
        "DOCKER_HOST": "unix:///nonexistent",
    }
    for key, value in standin.env().items():
        monkeypatch.setenv(key, value)
    writer = ScenarioWriter(tmp_path / "rec", "rec", "", wiring.real(env).clock)
    sources = Sources(docker=True, through_wsl_exe=True, distro="Ubuntu")
    scenario = Scenario.load(await record_host(recording(writer, env), writer, sources, 0, 100))
    wsl = [i["args"] for i in scenario.manifest["exchanges"]["wsl_exe"]]
    assert wsl == [["--list", "--running", "--quiet"], ["-d", "Ubuntu", "--exec", "sh", "-s"]] * 2
    assert scenario.manifest["observe"] == {"args": ["--interval-ms", "100", "--distro", "Ubuntu", "--no-wslc"],
                                            "platform": "windows",
                                            "wsl_interop": True}  # fmt: skip
    assert "timeline" not in scenario.manifest or not any(
        "procfs" in e for e in scenario.manifest["timeline"]
    )
    absent = scenario.manifest["exchanges"]["docker_api"]
    assert [(i["path"], i["error"]) for i in absent] == [("/containers/json", "absent")] * 2
    from wslmcp.boundaries.procfs_wsl import WslProcSource
    from wslmcp.fakes.wsl_exe import FakeWslExe

    replayed = await WslProcSource(FakeWslExe(scenario), "Ubuntu").read()
    assert any(path.endswith("/stat") for path in replayed.files)
