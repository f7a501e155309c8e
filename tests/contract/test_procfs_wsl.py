"""The distro-via-wsl.exe /proc adapter: the same suite against a scenario's recorded wsl.exe
(FakeWslExe) and against the real adapter talking to a `wsl.exe` stand-in on PATH that runs the
sample script on this machine's real /proc and answers listings in UTF-16LE.

The sample script has three readers (perl when the distro has it, else bash builtins, else one
`cat` per file under any POSIX sh). Each is run through the real adapter in a stand-in "distro"
whose PATH holds only logging shims of the tools it has, and compared byte for byte with
``LocalProcSource`` reading the same processes and the same files; the shims count what one sample
starts.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import examples
from tests.observe.hostile_procs import ALL_BYTES, CASES, FORGED, hostile_processes
from tests.observe.standin import DISTRO_TOOLS, StandIn, make_standin
from wslmcp.boundaries.procfs import (
    BASE_FILES,
    PID_FILES,
    PID_LINKS,
    LocalProcSource,
    ProcUnavailable,
)
from wslmcp.boundaries.procfs_wsl import (
    SAMPLE_SCRIPT,
    WslDistroLister,
    WslProcSource,
    default_distro,
    parse_framed_sample,
    sample_args,
)
from wslmcp.boundaries.wsl_exe import WslCall, WslExe, WslExeCli
from wslmcp.fakes.wsl_exe import FakeWslExe
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
    sample = await source.read()
    assert rig.calls() == before + 1
    assert len(sample.pids) >= 2


async def test_sample_holds_raw_kernel_files(rig: Rig) -> None:
    sample = await WslProcSource(rig.wsl, rig.running_distro).read()
    assert set(BASE_FILES) <= set(sample.files)
    if not isinstance(rig.wsl, FakeWslExe):  # the recording predates the pressure files: as recorded
        assert {"vmstat", "diskstats", "mounts"} <= set(sample.files)
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
        await source.read()
        await source.read()
    with pytest.raises(ProcUnavailable, match="is not running"):
        await source.read()


async def test_a_missing_wsl_exe_is_proc_unavailable_naming_what_failed(tmp_path: Path) -> None:
    wsl = WslExeCli(str(tmp_path / "no-such-wsl.exe"))
    with pytest.raises(ProcUnavailable, match=r"^/proc of WSL distribution Debian: wsl\.exe not found$"):
        await WslProcSource(wsl, "Debian").read()
    with pytest.raises(ProcUnavailable, match=r"^listing running WSL distributions: wsl\.exe not found$"):
        await WslDistroLister(wsl).running()
    with pytest.raises(ProcUnavailable, match=r"^finding the default WSL distribution: wsl\.exe not found$"):
        await default_distro(wsl)


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


# --- the three readers of the sample script, against real /proc and real files -------------------

TOOLSETS: dict[str, tuple[str, ...]] = {
    "perl": DISTRO_TOOLS,
    "bash": tuple(t for t in DISTRO_TOOLS if t != "perl"),
    "posix-sh": tuple(t for t in DISTRO_TOOLS if t not in ("perl", "bash")),
}
CONSTANT_SPAWNS = {
    "perl": ["sh", "getconf", "getconf", "perl"],
    "bash": ["sh", "getconf", "getconf", "bash"],
}


@pytest.fixture(params=list(TOOLSETS))
def distro(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[str, StandIn]:
    if not Path("/proc/stat").is_file():
        pytest.skip("the stand-in runs the sample script on a real Linux /proc")
    standin = make_standin(tmp_path / "standin", ["Ubuntu"], tools=TOOLSETS[request.param])
    for key, value in standin.env().items():
        monkeypatch.setenv(key, value)
    return request.param, standin


async def test_sample_matches_local_proc_byte_for_byte(distro: tuple[str, StandIn]) -> None:
    with hostile_processes() as running:
        before = LocalProcSource().read_sample()
        remote = await WslProcSource(WslExeCli("wsl.exe"), "Ubuntu").read()
        after = LocalProcSource().read_sample()
    parent, _, titled, _zombie_parent, zombie = running.pids
    # what makes them hostile, as the kernel shows it (so the comparison below means something)
    assert before.files[f"{parent}/cmdline"].startswith(CASES[0].argv[0] + b"\0-c\0")
    assert ALL_BYTES + b"\0" + FORGED + b"\0" in before.files[f"{parent}/cmdline"]
    assert before.files[f"{parent}/stat"].startswith(f"{parent} (a\nb) c) S".encode())
    assert not before.files[f"{titled}/cmdline"].endswith(b"\0")
    assert before.files[f"{zombie}/cmdline"] == b""
    for pid in running.pids:  # the hostile processes hold still, so every byte must match
        for name in (*PID_FILES, *PID_LINKS):
            key = f"{pid}/{name}"
            assert before.files.get(key) == after.files.get(key), key  # a zombie has no io nor cwd
            assert remote.files.get(key) == before.files.get(key), key
    assert remote.files["sys/kernel/random/boot_id"] == before.files["sys/kernel/random/boot_id"]
    stable_cmdlines = {
        k
        for k in before.files.keys() & after.files.keys()
        if k.endswith("/cmdline") and before.files[k] == after.files[k]
    }
    assert {k for k in stable_cmdlines if remote.files.get(k) != before.files[k]} == set()
    assert set(before.pids) & set(after.pids) <= set(remote.pids)  # nobody alive throughout is missing
    assert (remote.clk_tck, remote.page_size) == (before.clk_tck, before.page_size)


@contextmanager
def idle_processes(n: int) -> Iterator[list[int]]:
    children = [subprocess.Popen(["sleep", "60"]) for _ in range(n)]
    try:
        yield [c.pid for c in children]
    finally:
        for c in children:
            c.kill()
        for c in children:
            c.wait()


async def test_one_sample_starts_a_fixed_set_of_commands_however_many_processes(
    distro: tuple[str, StandIn],
) -> None:
    reader, standin = distro
    source = WslProcSource(WslExeCli("wsl.exe"), "Ubuntu")
    small = await source.read()
    first = standin.spawns()
    with idle_processes(25) as pids:
        big = await source.read()
    second = standin.spawns()[len(first) :]
    assert set(pids) <= set(big.pids)  # 25 more processes (others on the machine come and go too)
    if reader == "posix-sh":  # the fallback (no perl, no bash): one cat or readlink per file
        for spawned, sample in ((first, small), (second, big)):
            assert spawned.count("cat") + spawned.count("readlink") >= len(sample.files)
    else:
        assert first == second == CONSTANT_SPAWNS[reader]


async def test_reads_a_proc_like_tree_exactly(distro: tuple[str, StandIn], tmp_path: Path) -> None:
    """`sh -s ROOT` reads a directory laid out like /proc (what the benchmark uses): the parsed
    sample is exactly what LocalProcSource reads there, including a process whose cmdline is
    gone (stat only) and one whose stat is gone (absent)."""
    root = tmp_path / "proc"
    files = {
        "stat": b"cpu  1 2 3 4 5 6 7 0 0 0\n",
        "uptime": b"10.00 20.00\n",
        "meminfo": b"MemTotal: 1 kB\n",
        "sys/kernel/random/boot_id": b"6f1c1f4e-3b9a-4c55-9a53-2d0c9f3c2a10\n",
        "1/stat": b"1 (init) S 0 1 1 0 -1\n",
        "1/cmdline": b"/init\0",
        "20/stat": b"20 (a\nb) c) R 1\n",
        "20/cmdline": ALL_BYTES + b"\0\0" + FORGED + b"\0",
        "21/stat": b"21 (\xff\xfe) S 1\n",
        "21/cmdline": b"title without NUL \xff",
        "22/stat": b"22 (kthread) S 2\n",
        "22/cmdline": b"",
        "23/stat": b"23 (gone) S 1\n",
        "24/cmdline": b"stat vanished\0",
        "1/io": b"rchar: 1\nwchar: 2\nread_bytes: 4096\nwrite_bytes: 0\n",
        "vmstat": b"pswpin 0\npswpout 0\n",
        "pressure/memory": b"some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
    }
    for rel, data in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    (root / "1" / "cwd").symlink_to(os.path.realpath(tmp_path))  # a physical path: what cd -P gives
    ex = await WslExeCli("wsl.exe").run(
        WslCall([*sample_args("Ubuntu"), str(root)], stdin=SAMPLE_SCRIPT, timeout_s=30)
    )
    assert ex.exit_code == 0, ex.stderr
    sample = parse_framed_sample(ex.stdout)
    expected = dict(LocalProcSource(str(root)).read_sample().files)
    assert "24/cmdline" not in expected and "23/cmdline" not in expected
    assert dict(sample.files) == expected


async def test_every_call_draws_a_fresh_marker(distro: tuple[str, StandIn]) -> None:
    heads = []
    for _ in range(2):
        ex = await WslExeCli("wsl.exe").run(WslCall(sample_args("Ubuntu"), stdin=SAMPLE_SCRIPT, timeout_s=30))
        heads.append(ex.stdout.split(b"\n", 1)[0])
    assert heads[0] != heads[1]
    assert all(re.fullmatch(rb"WSLMCP1 [0-9a-f]{32}", h) for h in heads)


@settings(
    max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    cmdlines=st.lists(st.binary(max_size=300), min_size=1, max_size=4),
    comm=st.binary(max_size=15).filter(lambda b: b"\0" not in b),
)
async def test_any_bytes_round_trip(distro: tuple[str, StandIn], cmdlines: list[bytes], comm: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        files = {f"{100 + i}/cmdline": c for i, c in enumerate(cmdlines)}
        files |= {f"{100 + i}/stat": b"%d (%s) S 1 0\n" % (100 + i, comm) for i in range(len(cmdlines))}
        for rel, data in files.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_bytes(data)
        ex = await WslExeCli("wsl.exe").run(
            WslCall([*sample_args("Ubuntu"), tmp], stdin=SAMPLE_SCRIPT, timeout_s=30)
        )
    assert ex.exit_code == 0, ex.stderr
    assert dict(parse_framed_sample(ex.stdout).files) == files


async def test_processes_coming_and_going_during_a_sample_never_break_it(distro: tuple[str, StandIn]) -> None:
    stop = threading.Event()

    def churn() -> None:  # short-lived children, each reaped here (nothing is orphaned)
        while not stop.is_set():
            subprocess.run(["true"], check=True)

    threads = [threading.Thread(target=churn) for _ in range(2)]
    for t in threads:
        t.start()
    try:
        samples = [await WslProcSource(WslExeCli("wsl.exe"), "Ubuntu").read() for _ in range(2)]
    finally:
        stop.set()
        for t in threads:
            t.join()
    for sample in samples:
        for pid in sample.pids:
            assert sample.files[f"{pid}/stat"].startswith(f"{pid} (".encode())
