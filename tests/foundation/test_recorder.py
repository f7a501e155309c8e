"""Recording wraps a real adapter; replaying the recording gives back exactly what was read."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

import pytest

from wslmcp.boundaries.procfs import LocalProcSource, ProcSample
from wslmcp.fakes.clock import FakeClock
from wslmcp.fakes.procfs import FakeProcSource, redact_cmdlines
from wslmcp.replay.recording import record_observe as record
from wslmcp.scenario.checks import run_checks
from wslmcp.scenario.loader import Scenario, sample_digest
from wslmcp.scenario.recorder import RecordingRefused, ScenarioWriter

pytestmark = pytest.mark.skipif(not Path("/proc/stat").is_file(), reason="needs a real Linux /proc to record")


class Keeping:
    """Remembers what the real adapter handed out, to compare with the replay."""

    def __init__(self) -> None:
        self.inner = LocalProcSource()
        self.samples: list[ProcSample] = []

    def read_sample(self, light_for: Collection[int] = ()) -> ProcSample:
        sample = self.inner.read_sample()
        self.samples.append(sample)
        return sample


def replay_all(out: Path) -> list[ProcSample]:
    scenario = Scenario.load(out)
    clock = FakeClock()
    source = FakeProcSource(scenario, clock)
    samples = []
    for entry in scenario.timeline:
        clock.advance(entry.t_ms / 1000 - clock.monotonic())
        samples.append(source.read_sample())
    return samples


async def test_round_trip_is_byte_identical(tmp_path: Path) -> None:
    clock = FakeClock()
    keeping = Keeping()
    out = tmp_path / "rec"
    writer = ScenarioWriter(out, "rec", "", clock, keep_cmdlines=True)
    await record(keeping, writer, clock, duration_s=2.0, interval_ms=500)
    replayed = replay_all(out)
    assert len(keeping.samples) == 5
    assert [t.t_ms for t in Scenario.load(out).timeline] == [0, 500, 1000, 1500, 2000]
    for original, again in zip(keeping.samples, replayed, strict=True):
        assert again.files == original.files
        assert (again.clk_tck, again.page_size, again.pids) == (
            original.clk_tck,
            original.page_size,
            original.pids,
        )
        assert sample_digest(again) == sample_digest(original)
    assert [r.ok for r in run_checks(Scenario.load(out))] == [True]


async def test_samples_keep_their_schedule_however_long_a_read_takes(tmp_path: Path) -> None:
    clock = FakeClock()

    class Slow(Keeping):
        def read_sample(self, light_for: Collection[int] = ()) -> ProcSample:
            clock.advance(0.2)  # a read that takes 200 ms of the clock's time
            return super().read_sample()

    out = tmp_path / "rec"
    await record(Slow(), ScenarioWriter(out, "rec", "", clock), clock, duration_s=2.0, interval_ms=500)
    assert [t.t_ms for t in Scenario.load(out).timeline] == [0, 500, 1000, 1500, 2000]


async def test_redaction_keeps_argv0_only_and_is_declared(tmp_path: Path) -> None:
    clock = FakeClock()
    keeping = Keeping()
    out = tmp_path / "rec"
    await record(keeping, ScenarioWriter(out, "rec", "", clock), clock, duration_s=0, interval_ms=100)
    replayed = replay_all(out)
    for original, again in zip(keeping.samples, replayed, strict=True):
        assert again.files == redact_cmdlines(original).files
    own = [p for p, data in replayed[0].files.items() if p.endswith("/cmdline") and data]
    assert own and all(replayed[0].files[p].count(b"\0") == 1 for p in own)
    assert Scenario.load(out).manifest["host"]["redactions"]


def test_redact_cmdlines_keeps_empty_cmdlines_empty() -> None:
    sample = ProcSample.build({"1/cmdline": b"", "2/cmdline": b"python\0-c\0secret=1\0"}, 100, 4096)
    assert redact_cmdlines(sample).files == {"1/cmdline": b"", "2/cmdline": b"python\0"}


def test_refuses_a_non_empty_directory_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "taken"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    with pytest.raises(RecordingRefused, match="not an empty directory"):
        ScenarioWriter(out, "x", "", FakeClock())
    assert [p.name for p in out.iterdir()] == ["notes.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"]


async def test_an_interrupted_recording_leaves_nothing_behind(tmp_path: Path) -> None:
    class Failing:
        calls = 0

        def read_sample(self, light_for: Collection[int] = ()) -> ProcSample:
            self.calls += 1
            if self.calls == 2:
                raise OSError("the distro went away")
            return LocalProcSource().read_sample()

    clock = FakeClock()
    with pytest.raises(OSError, match="went away"):
        await record(Failing(), ScenarioWriter(tmp_path / "rec", "rec", "", clock), clock, 2.0, 500)
    assert list(tmp_path.iterdir()) == []
