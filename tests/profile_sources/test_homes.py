"""More homes in one run: ``--also-home`` and the Windows side of a WSL distro, with real stdio servers."""

from __future__ import annotations

import io
import json
import sys
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.servers import STDIO_SERVER
from wslmcp import wiring
from wslmcp.fakes.distro_homes import StatedDistroHomes
from wslmcp.fakes.windows_home import StatedWindowsHome
from wslmcp.profile.assembly import build, other_homes
from wslmcp.profile.cli import execute, parse_options

SERVER = {"command": sys.executable, "args": [str(STDIO_SERVER), "--tools", "2"]}


def _call(server: str) -> str:
    use = {"type": "tool_use", "id": "t1", "name": f"mcp__{server}__tool_00000", "input": {}}
    when = (datetime.now(UTC) - timedelta(days=1)).isoformat()
    line = {"type": "assistant", "version": "2.1.0", "timestamp": when, "message": {"content": [use]}}
    return json.dumps(line) + "\n"


@pytest.fixture
def homes(tmp_path: Path) -> tuple[Path, Path, Path]:
    primary, other, project = tmp_path / "linux", tmp_path / "windows", tmp_path / "proj"
    for home, only in ((primary, "linux-only"), (other, "windows-only")):
        home.mkdir()
        (home / ".claude.json").write_text(json.dumps({"mcpServers": {"shared": SERVER, only: SERVER}}))
        session = home / ".claude" / "projects" / "-p" / "s.jsonl"
        session.parent.mkdir(parents=True)
        session.write_text(_call("shared"))
    project.mkdir()
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"proj": SERVER}}))
    return primary, other, project


def _run(args: list[str], *, distro: str | None = None, windows: Path | None = None) -> str:
    parsed = parse_options([*args, "--timeout", "20", "--query-project"])
    boundaries = replace(
        wiring.real(), windows_home=StatedWindowsHome(None if windows is None else str(windows))
    )
    host = replace(wiring.real_host(), distro=distro)
    out = io.StringIO()
    assert execute(parsed, build(boundaries, host, parsed), out) == 0
    return out.getvalue()


def _rows(doc: dict[str, Any]) -> list[tuple[str, str, str, int | None]]:
    return sorted((r["home"], r["cli"], r["server"], r["returned_tools"]) for r in doc["wslmcp"]["servers"])


def _v3(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k != "wslmcp"}


def test_also_home_adds_its_own_rows_and_leaves_the_v3_document_alone(homes: tuple[Path, Path, Path]) -> None:
    primary, other, project = homes
    base = ["--home", str(primary), "--project", str(project), "--json"]
    alone = json.loads(_run(base))
    both = json.loads(_run([*base, "--also-home", str(other), "--also-home", str(primary)]))
    assert _v3(both) == _v3(alone)  # mcp-top's part describes the primary home only
    assert both["wslmcp"]["homes"] == [
        {"home": str(primary), "side": "primary"},
        {"home": str(other), "side": "also"},
    ]
    p, o = str(primary), str(other)
    assert _rows(both) == sorted(
        [
            (p, "claude-code", "shared", 2),
            (p, "claude-code", "linux-only", 2),
            (p, "claude-code", "proj", 2),
            (o, "claude-code", "shared", 2),  # defined on both sides: one row per side
            (o, "claude-code", "windows-only", 2),  # the project's server is the primary's alone
        ]
    )
    (cli,) = alone["clis"]
    assert next(s for s in cli["servers"] if s["server"] == "shared")["calls"] == 1  # not 2


def test_the_human_report_keeps_its_text_and_adds_a_block_per_home(homes: tuple[Path, Path, Path]) -> None:
    primary, other, project = homes
    base = ["--home", str(primary), "--project", str(project)]
    alone = _run(base)
    both = _run([*base, "--also-home", str(other)])
    assert both.startswith(alone)
    extra = both[len(alone) :]
    assert extra.startswith(f"\n== also profiled (wslmcp): {other} (also side) ==\n")
    assert "windows-only" in extra and "linux-only" not in extra and "proj" not in extra


def test_tokens_add_the_wire_column_to_every_home_block(homes: tuple[Path, Path, Path]) -> None:
    primary, other, project = homes
    both = _run(["--home", str(primary), "--project", str(project), "--also-home", str(other), "--tokens"])
    doc = json.loads(
        _run(["--home", str(primary), "--project", str(project), "--also-home", str(other), "--json"])
    )
    (row,) = [
        r for r in doc["wslmcp"]["servers"] if r["home"] == str(other) and r["server"] == "windows-only"
    ]
    (anthropic,) = [t for t in row["tokens"] if t["wire"] == "anthropic"]
    extra = both[both.index("== also profiled (wslmcp)") :]
    (header,) = [ln for ln in extra.splitlines() if ln.startswith("SERVER ")]
    assert "WIRE TOKENS" in header
    (line,) = [ln for ln in extra.splitlines() if ln.startswith("windows-only ")]
    assert f"{anthropic['advertised_max']:,} o200k_base" in line


def test_gates_judge_the_primary_home_only(homes: tuple[Path, Path, Path]) -> None:
    primary, other, project = homes
    base = ["--home", str(primary), "--project", str(project), "--also-home", str(other)]
    doc = json.loads(_run([*base, "--json"]))
    mine = [r for r in doc["wslmcp"]["servers"] if r["home"] == str(primary)]
    total = sum(t["advertised_max"] for r in mine for t in r["tokens"] if t["wire"] == "anthropic")
    _run([*base, "--fail-over", f"total={total}"])  # exit 0: the other home's rows are not added in


def test_inside_wsl_the_windows_side_is_added_unless_turned_off(homes: tuple[Path, Path, Path]) -> None:
    primary, other, project = homes
    base = ["--home", str(primary), "--project", str(project), "--json"]
    inside = json.loads(_run(base, distro="Ubuntu", windows=other))
    assert inside["wslmcp"]["homes"][1] == {"home": str(other), "side": "windows"}
    off = json.loads(_run([*base, "--no-other-side"], distro="Ubuntu", windows=other))
    outside = json.loads(_run(base, distro=None, windows=other))
    missing = json.loads(_run(base, distro="Ubuntu", windows=other / "gone"))
    for doc in (off, outside, missing):
        assert [h["side"] for h in doc["wslmcp"]["homes"]] == ["primary"]


def test_on_windows_the_running_distros_homes_are_added(homes: tuple[Path, Path, Path]) -> None:
    primary, other, project = homes
    parsed = parse_options(["--home", str(primary), "--project", str(project), "--json"])
    stated = StatedDistroHomes([str(other), str(other / "not-there")])
    boundaries = replace(wiring.real(), windows_home=StatedWindowsHome(None), distro_homes=stated)
    windows = replace(wiring.real_host(), platform="windows", distro=None)
    assert other_homes(boundaries, windows, str(primary), parsed) == ((str(other), "wsl"),)
    off = parse_options(["--home", str(primary), "--no-other-side"])
    assert other_homes(boundaries, windows, str(primary), off) == ()
    assert other_homes(boundaries, wiring.real_host(), str(primary), parsed) == ()  # Linux: not asked
