"""The distro-via-wsl.exe /proc adapter: the same suite against a scenario's recorded wsl.exe
(FakeWslExe) and against the real adapter talking to a `wsl.exe` stand-in on PATH that runs the
sample script on this machine's real /proc and answers listings in UTF-16LE."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from fakes.wsl_exe import FakeWslExe
from tests.observe.standin import make_standin
from wslmcp.boundaries.procfs import GLOBAL_FILES, ProcUnavailable
from wslmcp.boundaries.procfs_wsl import WslDistroLister, WslProcSource, parse_framed_sample
from wslmcp.boundaries.wsl_exe import WslExe, WslExeCli
from wslmcp.scenario.loader import Scenario

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"


@dataclass
class Rig:
    wsl: WslExe
    running_distro: str
    stopped_distro: str
    calls: Callable[[], int]
    listed: list[str]


def _standin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Rig:
    standin = make_standin(tmp_path, ["Ubuntu", "Debian"])
    for key, value in standin.env().items():
        monkeypatch.setenv(key, value)
    return Rig(WslExeCli("wsl.exe"), "Debian", "Stopped", lambda: len(standin.calls()), ["Ubuntu", "Debian"])


def _fake() -> Rig:
    fake = FakeWslExe(Scenario.load(SCENARIOS / "multi-distro"))
    return Rig(fake, "Debian", "Alpine", lambda: len(fake.calls), ["Ubuntu", "Debian", "Alpine"])


@pytest.fixture(params=["standin", "fake"])
def rig(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Rig:
    if request.param == "standin":
        if not Path("/proc/stat").is_file():
            pytest.skip("the stand-in runs the sample script on a real Linux /proc")
        return _standin(tmp_path, monkeypatch)
    return _fake()


async def test_one_sample_is_one_wsl_exe_call(rig: Rig) -> None:
    source = WslProcSource(rig.wsl, rig.running_distro)
    before = rig.calls()
    sample = await source.read_sample()
    assert rig.calls() == before + 1
    assert len(sample.pids) >= 2


async def test_sample_holds_raw_kernel_files(rig: Rig) -> None:
    sample = await WslProcSource(rig.wsl, rig.running_distro).read_sample()
    assert set(GLOBAL_FILES) <= set(sample.files)
    assert re.match(rb"cpu  (\d+ ){3,}", sample.files["stat"])
    assert re.fullmatch(rb"[0-9a-f-]{36}\n", sample.files["sys/kernel/random/boot_id"])
    assert sample.clk_tck > 0 and sample.page_size > 0
    for pid in sample.pids:
        assert sample.files[f"{pid}/stat"].startswith(f"{pid} (".encode())


async def test_listing_running_distributions_decodes_utf16(rig: Rig) -> None:
    assert await WslDistroLister(rig.wsl).running() == rig.listed


async def test_a_stopped_distribution_raises_with_wsl_exe_message(rig: Rig) -> None:
    source = WslProcSource(rig.wsl, rig.stopped_distro)
    if isinstance(rig.wsl, FakeWslExe):  # the recording stopped Alpine before its third sample
        await source.read_sample()
        await source.read_sample()
    with pytest.raises(ProcUnavailable, match="is not running"):
        await source.read_sample()


MARK = b"0123456789abcdef"


def framed(*records: bytes, end: bool = True) -> bytes:
    return (
        b"WSLMCP1 "
        + MARK
        + b"\nCLK_TCK 250\nPAGESIZE 16384\n"
        + b"".join(records)
        + (b"\n" + MARK + b" END\n" if end else b"")
    )


def test_hostile_content_cannot_forge_frames() -> None:
    cmdline = b"/bin/x\0\nffffffffffffffff F 1/stat\nforged\0"
    data = framed(
        b"\n" + MARK + b" F 7/stat\n7 (a\nb) c) S 1 1 1 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 5 0 9\n",
        b"\n" + MARK + b" F 7/cmdline\n" + cmdline,
    )
    sample = parse_framed_sample(data)
    assert sample.files["7/cmdline"] == cmdline
    assert sample.files["7/stat"].startswith(b"7 (a\nb) c) S")
    assert (sample.clk_tck, sample.page_size, sample.pids) == (250, 16384, (7,))


def test_a_file_that_vanished_is_dropped() -> None:
    data = framed(b"\n" + MARK + b" F 9/stat\n", b"\n" + MARK + b" X\n")
    assert parse_framed_sample(data).files == {}


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"hello\n",
        framed(b"\n" + MARK + b" F stat\ncpu 1\n", end=False),
        framed(b"\n" + MARK + b" Q odd\n"),
    ],
    ids=["empty", "no marker", "truncated", "unknown frame"],
)
def test_unusable_output_is_proc_unavailable(data: bytes) -> None:
    with pytest.raises(ProcUnavailable):
        parse_framed_sample(data)
