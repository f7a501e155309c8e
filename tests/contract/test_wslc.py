"""One contract for the WSLC port over the real adapter (against a `wslc.exe` stand-in on PATH) and
the recorded twin, both answering from the same recorded exchanges: exact args and WSL_UTF8, UTF-8
and UTF-16LE output decoded like wsl.exe's, non-zero exits and garbage, a hang cut at the deadline,
recorded order; then where wslc.exe is found, and wslc's units."""

from __future__ import annotations

import codecs
import json
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.standins.wslc import calls, make_wslc_standin, standin_env
from wslmcp.boundaries.wslc import (
    LIST_ARGS,
    STATS_ARGS,
    Wslc,
    WslcGarbage,
    decode_wslc_json,
    parse_mem_usage,
    parse_percent,
    parse_size,
)
from wslmcp.boundaries.wslc_cli import WslcCli, find_wslc
from wslmcp.fakes.replay import ReplayMiss
from wslmcp.fakes.wslc import FakeWslc, RecordingWslc
from wslmcp.scenario.loader import Scenario
from wslmcp.scenario.manifest import SCHEMA

LISTING = [{"Id": "a" * 64, "Name": "web", "Image": "nginx:latest", "State": "running"}]
STATS = [
    {"ID": "a" * 64, "Name": "web", "CPUPerc": "12.34%", "MemUsage": "12.50 MiB / 1.95 GiB",
     "MemPerc": "0.63%", "NetIO": "1.2 kB / 0 B", "BlockIO": "0 B / 0 B", "PIDs": 3},
]  # fmt: skip

Record = tuple[Sequence[str], bytes, bytes, int | None]  # args, stdout, stderr, exit (None = hangs)
Make = Callable[[Sequence[Record]], Wslc]


def _scenario(root: Path, records: Sequence[Record]) -> Path:
    items: list[dict[str, Any]] = []
    for i, (args, out, err, code) in enumerate(records):
        item: dict[str, Any] = {"args": list(args), "exit_code": code}
        for stream, data in (("stdout", out), ("stderr", err)):
            if data:
                (root / f"{i}.{stream}").write_bytes(data)
                item[stream] = f"{i}.{stream}"
        if code is None:
            item["timed_out"] = True
        items.append(item)
    manifest = {"schema": SCHEMA, "name": "wslc-contract", "exchanges": {"wslc": items}}
    (root / "scenario.json").write_text(json.dumps(manifest))
    return root


@pytest.fixture(params=["real", "twin"])
def make(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Make]:
    def build(records: Sequence[Record]) -> Wslc:
        root = _scenario(tmp_path / "scenario", records)
        if request.param == "twin":
            return FakeWslc(Scenario.load(root))
        exe = make_wslc_standin(root, tmp_path / "bin")
        for key, value in standin_env(root, tmp_path / "bin").items():
            monkeypatch.setenv(key, value)
        assert find_wslc(os.environ, windows=False) == str(exe)
        return WslcCli(str(exe))

    (tmp_path / "scenario").mkdir()
    yield build


def _utf16(text: str) -> bytes:
    return codecs.BOM_UTF16_LE + text.replace("\n", "\r\n").encode("utf-16-le")


async def test_list_and_stats_decode_to_the_documents_wslc_printed(make: Make) -> None:
    wslc = make([(LIST_ARGS, json.dumps(LISTING).encode(), b"", 0),
                 (STATS_ARGS, _utf16(json.dumps(STATS, indent=2)), b"", 0)])  # fmt: skip
    listing = await wslc.run(LIST_ARGS, timeout_s=10)
    assert listing.argv[1:] == LIST_ARGS and listing.exit_code == 0
    assert decode_wslc_json(listing) == LISTING
    stats = decode_wslc_json(await wslc.run(STATS_ARGS, timeout_s=10))
    assert stats == STATS
    assert parse_mem_usage(stats[0]["MemUsage"]) == (13107200, 2093796557)
    assert parse_percent(stats[0]["CPUPerc"]) == 12.34


async def test_a_failing_wslc_is_an_exit_code_and_its_message(make: Make) -> None:
    message = _utf16("The WSL service is not running.\n")
    wslc = make([(STATS_ARGS, b"", message, 1)])
    ex = await wslc.run(STATS_ARGS, timeout_s=10)
    assert ex.exit_code == 1
    with pytest.raises(
        WslcGarbage,
        match=r"container stats --format json --no-trunc exited 1: The WSL service is not running\.$",
    ):
        decode_wslc_json(ex)


async def test_garbage_on_stdout_is_refused_by_the_decoder(make: Make) -> None:
    wslc = make([(LIST_ARGS, b"\xff\xfe\x00garbage{", b"", 0)])
    with pytest.raises(WslcGarbage, match="not JSON"):
        decode_wslc_json(await wslc.run(LIST_ARGS, timeout_s=10))


async def test_a_hung_wslc_is_cut_at_the_deadline(make: Make) -> None:
    wslc = make([(STATS_ARGS, b"", b"", None)])
    ex = await wslc.run(STATS_ARGS, timeout_s=0.5)
    assert ex.timed_out and ex.exit_code is None


async def test_repeated_args_answer_in_recorded_order_then_the_last(make: Make) -> None:
    wslc = make([(LIST_ARGS, b"[]", b"", 0), (LIST_ARGS, json.dumps(LISTING).encode(), b"", 0)])
    got = [decode_wslc_json(await wslc.run(LIST_ARGS, timeout_s=10)) for _ in range(3)]
    assert got == [[], LISTING, LISTING]


async def test_the_stand_in_saw_the_exact_args_with_wsl_utf8(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _scenario(tmp_path, [(LIST_ARGS, b"[]", b"", 0)])
    exe = make_wslc_standin(root, tmp_path / "bin")
    monkeypatch.setenv("WSLC_STANDIN_SCENARIO", str(root))
    await WslcCli(str(exe)).run(LIST_ARGS, timeout_s=10)
    assert calls(root) == [{"args": list(LIST_ARGS), "utf8": "1"}]


async def test_the_twin_refuses_unrecorded_args(tmp_path: Path) -> None:
    twin = FakeWslc(Scenario.load(_scenario(tmp_path, [(LIST_ARGS, b"[]", b"", 0)])))
    with pytest.raises(
        ReplayMiss,
        match=r"wslc replay .*not recorded: wslc.exe container stats.*offers: wslc.exe container list",
    ):
        await twin.run(STATS_ARGS)


async def test_absent_wslc_raises_file_not_found() -> None:
    with pytest.raises(FileNotFoundError, match=r"wslc\.exe is not installed"):
        await WslcCli(None).run(LIST_ARGS)


def test_wslc_is_found_on_path_then_in_program_files_then_through_mnt_c(tmp_path: Path) -> None:
    on_path = tmp_path / "path"
    make_wslc_standin(tmp_path, on_path)
    program_files = tmp_path / "pf"
    (program_files / "WSL").mkdir(parents=True)
    (program_files / "WSL" / "wslc.exe").write_bytes(b"MZ")
    mnt = tmp_path / "mnt-c-wslc.exe"
    env: Mapping[str, str] = {"PATH": str(on_path), "ProgramFiles": str(program_files)}
    assert find_wslc(env, windows=True) == str(on_path / "wslc.exe")
    assert find_wslc({"ProgramFiles": str(program_files)}, windows=True) == str(
        program_files / "WSL" / "wslc.exe"
    )
    assert find_wslc({}, windows=False, wsl_path=str(mnt)) is None
    mnt.write_bytes(b"MZ")
    assert find_wslc({"PATH": str(tmp_path / "none")}, windows=False, wsl_path=str(mnt)) == str(mnt)


async def test_recording_writes_exchanges_the_twin_replays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from wslmcp.fakes.clock import FakeClock
    from wslmcp.scenario.recorder import ScenarioWriter

    (tmp_path / "src").mkdir()
    source = _scenario(tmp_path / "src", [(STATS_ARGS, _utf16(json.dumps(STATS)), b"", 0)])
    monkeypatch.setenv("WSLC_STANDIN_SCENARIO", str(source))
    exe = make_wslc_standin(source, tmp_path / "bin")
    writer = ScenarioWriter(tmp_path / "rec", "rec", "", FakeClock())
    live = await RecordingWslc(WslcCli(str(exe)), writer).run(STATS_ARGS, timeout_s=10)
    recorded = Scenario.load(writer.commit())
    item = recorded.manifest["exchanges"]["wslc"][0]
    assert (item["args"], item["stdout_encoding"], item["exit_code"]) == (list(STATS_ARGS), "utf-16le", 0)
    replayed = await FakeWslc(recorded).run(STATS_ARGS)
    assert (replayed.stdout, replayed.exit_code) == (live.stdout, 0)
    assert decode_wslc_json(replayed) == STATS


@pytest.mark.parametrize(
    ("text", "size"),
    [("0 B", 0), ("512B", 512), ("1.5 KiB", 1536), ("2 MiB", 2 << 20), ("1.95 GiB", 2093796557),
     ("1 TiB", 1 << 40), ("1.2 kB", 1200), ("3 MB", 3_000_000), ("1 GB", 10**9), ("2 TB", 2 * 10**12)],
)  # fmt: skip
def test_sizes_in_every_unit_wslc_prints(text: str, size: int) -> None:
    assert parse_size(text) == size


@pytest.mark.parametrize("bad", ["", "12", "12 XB", "-1 MiB", "MiB", "1,5 MiB"])
def test_sizes_that_are_not_wslcs_are_refused(bad: str) -> None:
    with pytest.raises(WslcGarbage):
        parse_size(bad)


@pytest.mark.parametrize("bad", ["", "12", "%", "nan%", "-1%", "abc%"])
def test_percentages_that_are_not_wslcs_are_refused(bad: str) -> None:
    with pytest.raises(WslcGarbage):
        parse_percent(bad)


async def test_a_host_without_wslc_is_recorded_and_replayed_as_absent(tmp_path: Path) -> None:
    from wslmcp.fakes.clock import FakeClock
    from wslmcp.scenario.recorder import ScenarioWriter

    writer = ScenarioWriter(tmp_path / "rec", "rec", "", FakeClock())
    with pytest.raises(FileNotFoundError):
        await RecordingWslc(WslcCli(None), writer).run(LIST_ARGS, timeout_s=10)
    twin = FakeWslc(Scenario.load(writer.commit()))
    with pytest.raises(FileNotFoundError, match="not installed"):
        await twin.run(LIST_ARGS)
    assert sorted(p.name for p in (tmp_path / "rec").iterdir()) == ["scenario.json"]
    (tmp_path / "none").mkdir()
    nothing = FakeWslc(Scenario.load(_scenario(tmp_path / "none", [])))
    with pytest.raises(FileNotFoundError, match="not installed"):
        await nothing.run(STATS_ARGS)
