"""A recording replays as it was recorded: ``wslmcp scenario record`` states in the manifest every
option its sources need, and ``wslmcp observe --replay DIR`` with no other option serves it (this
machine recorded for real, with and without a Docker Engine stand-in); the bundled recordings made
before the manifest said so replay the same way; and a call the recording cannot answer is a
``replay miss``, never a tool error."""

from __future__ import annotations

import hashlib
import json
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import SCENARIOS
from tests.replay.loop import clean_env, failures, replay_calls, wslmcp
from tests.standins.engine import engine_in_thread
from wslmcp.boundaries.docker_api import TOP_PS_ARGS

pytestmark = pytest.mark.skipif(not Path("/proc/stat").is_file(), reason="records this machine's /proc")

FRESH = ("get_system_summary", {"max_age_ms": 0})
LIST = ("list_resources", {"snapshot_id": "{{snapshot}}", "limit": 5})
CID = "d" * 64
ENGINE = [
    {"path": "/containers/json", "json": [{"Id": CID, "Names": ["/web"], "Image": "nginx", "State": "running"}]},
    {"path": f"/containers/{CID}/stats", "query": {"stream": "false"}, "json": {"read": "r", "cpu_stats": {}}},
    {"path": f"/containers/{CID}/top", "query": {"ps_args": TOP_PS_ARGS},
     "json": {"Titles": ["PID", "COMM"], "Processes": [["1", "nginx"]]}},
]  # fmt: skip


@pytest.fixture
def sock_dir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="loop-", dir="/tmp") as d:  # a unix socket path stays short
        yield Path(d)


def _record(out: Path, *flags: str, env: dict[str, str] | None = None) -> dict[str, object]:
    done = wslmcp("scenario", "record", "--out", str(out), "--duration", "1", "--interval-ms", "500",
                  *flags, env=env or clean_env())  # fmt: skip
    assert done.returncode == 0, done.stderr
    manifest: dict[str, object] = json.loads((out / "scenario.json").read_text(encoding="utf-8"))
    return manifest


def test_a_recording_of_this_host_replays_with_the_documented_command_only(tmp_path: Path) -> None:
    manifest = _record(tmp_path / "rec")
    observe = manifest["observe"]
    assert isinstance(observe, dict)
    args = observe["args"]
    assert args[args.index("--interval-ms") + 1] == "500"
    assert "--no-docker" in args and "--no-wslc" in args  # neither was recorded
    answers, stderr = replay_calls("observe", tmp_path / "rec", [FRESH, LIST, FRESH, LIST])
    assert failures(answers) == []
    summary = answers[0]["result"]["structuredContent"]
    assert summary["snapshot"]["sample_window_ms"] == 500
    assert stderr == ""


def test_a_call_past_the_recording_is_a_replay_miss_not_a_tool_error(tmp_path: Path) -> None:
    _record(tmp_path / "rec")  # three samples: two fresh collections, no history before a request
    answers, _ = replay_calls("observe", tmp_path / "rec", [FRESH, FRESH, ("get_history", {}), FRESH])
    assert failures(answers[:2]) == []
    assert answers[2]["error"]["message"].startswith("replay miss: history:"), answers[2]
    error = answers[3]["error"]
    assert error["message"].startswith("replay miss: procfs replay of scenario 'rec'"), error
    assert "a /proc sample at t=1500 ms" in error["message"]


def test_a_recording_with_the_engine_replays_its_containers(tmp_path: Path, sock_dir: Path) -> None:
    with engine_in_thread(sock_dir / "d.sock", ENGINE) as engine:
        manifest = _record(tmp_path / "rec", "--docker", env=clean_env(DOCKER_HOST=engine.url))
    observe = manifest["observe"]
    assert isinstance(observe, dict) and "--no-docker" not in observe["args"]
    containers = ("list_resources", {"snapshot_id": "{{snapshot}}", "resource_kind": "container"})
    answers, _ = replay_calls("observe", tmp_path / "rec", [FRESH, containers])
    assert failures(answers) == []
    names = [r["usage"]["name"] for r in answers[1]["result"]["structuredContent"]["data"]]
    assert names == ["web"]


@pytest.mark.parametrize("name", ["linux-recorded", "history-idle"])
def test_bundled_recordings_replay_under_a_plain_replay_unchanged(name: str) -> None:
    manifest = SCENARIOS / name / "scenario.json"
    before = hashlib.sha256(manifest.read_bytes()).hexdigest()
    answers, stderr = replay_calls("observe", SCENARIOS / name, [FRESH, LIST])
    assert failures(answers) == [], stderr
    assert hashlib.sha256(manifest.read_bytes()).hexdigest() == before
