"""CI gates, end to end: the real CLI over homes whose configs launch real stdio test servers.

``--fail-over [total=|server=]TOKENS`` (exit 4), ``--fail-on prune`` (exit 8), both ORed (12);
``diff OLD NEW --fail-on-growth PCT`` (exit 16); 2 stays a usage error.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.profile.homes import TEST_SERVER
from tests.profile.server_homes import home_with
from wslmcp.profile.cli import main


def run(home: Path, *extra: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    capsys.readouterr()
    try:
        code = main(["--home", str(home), "--project", str(home), *extra])
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


def wire_max(doc: dict[str, object], server: str) -> int:
    servers = doc["wslmcp"]["servers"]  # type: ignore[index]
    entry = next(s for s in servers if s["server"] == server)  # type: ignore[attr-defined]
    return int(next(t for t in entry["tokens"] if t["wire"] == "anthropic")["advertised_max"])


@pytest.fixture(scope="module")
def two(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return home_with(tmp_path_factory.mktemp("two"), {"small": 1, "big": 40})


@pytest.fixture(scope="module")
def counts(two: Path) -> dict[str, int]:
    out = subprocess.run(
        [sys.executable, "-m", "wslmcp", "profile", "--home", str(two), "--project", str(two), "--json"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    doc = json.loads(out)
    return {name: wire_max(doc, name) for name in ("small", "big")}


def test_budgets_pass_at_the_limit_and_fail_one_below(
    two: Path, counts: dict[str, int], capsys: pytest.CaptureFixture[str]
) -> None:
    total = counts["small"] + counts["big"]
    assert run(two, "--fail-over", str(total), capsys=capsys)[0] == 0
    code, out, err = run(two, "--fail-over", str(total - 1), capsys=capsys)
    assert code == 4
    assert "SERVER" in out  # the report is still written
    assert f"claude-code total {total:,} > {total - 1:,}" in err
    assert run(two, "--fail-over", f"server={counts['big']}", capsys=capsys)[0] == 0
    code, _, err = run(two, "--fail-over", f"server={counts['big'] - 1}", capsys=capsys)
    assert code == 4
    assert "big" in err and "small" not in err


def test_the_json_says_which_gate_failed_and_why(
    two: Path, counts: dict[str, int], capsys: pytest.CaptureFixture[str]
) -> None:
    limit = counts["small"]
    code, out, _ = run(
        two, "--json", "--fail-over", f"server={limit}", "--fail-over", "99999999", capsys=capsys
    )
    assert code == 4
    gates = json.loads(out)["wslmcp"]["gates"]
    assert gates == [
        {
            "gate": "fail-over",
            "scope": "server",
            "limit": limit,
            "failed": True,
            "over": [
                {
                    "cli": "claude-code",
                    "server": "big",
                    "tokens": counts["big"],
                    "method": "o200k_base",
                    "exact": False,  # o200k_base is an estimate of what a Claude model reads
                }
            ],
            "not_counted": [],
        },
        {
            "gate": "fail-over",
            "scope": "total",
            "limit": 99999999,
            "failed": False,
            "over": [],
            "not_counted": [],
        },
    ]


def test_prune_gate_and_both_gates_or_together(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = home_with(tmp_path, {"used": 1, "idle": 1}, calls={"used": 5})
    code, _, err = run(home, "--fail-on", "prune", capsys=capsys)
    assert code == 8
    assert "idle" in err and "used" not in err.replace("unused", "")
    assert run(home, "--fail-on", "prune", "--fail-over", "1", capsys=capsys)[0] == 12


def test_prune_gate_passes_without_a_prune_verdict(two: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # no transcripts: usage is unknown, so nothing is a prune verdict
    code, _, err = run(two, "--fail-on", "prune", capsys=capsys)
    assert (code, err) == (0, "")


def test_unobserved_definitions_are_named_not_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = home_with(tmp_path, {"ok": 1})
    doc = json.loads((home / ".claude.json").read_text())
    doc["mcpServers"]["broken"] = {"command": sys.executable, "args": [str(TEST_SERVER), "--mode", "exit"]}
    (home / ".claude.json").write_text(json.dumps(doc))
    code, out, err = run(home, "--json", "--fail-over", "1000000", capsys=capsys)
    assert code == 0
    (gate,) = json.loads(out)["wslmcp"]["gates"]
    assert gate["not_counted"] == [{"cli": "claude-code", "server": "broken"}]
    assert "not counted: claude-code broken" in err


@pytest.mark.parametrize("bad", ["abc", "-1", "server=", "server=x", "other=5", "1.5"])
def test_bad_budgets_are_usage_errors(two: Path, capsys: pytest.CaptureFixture[str], bad: str) -> None:
    code, out, err = run(two, "--fail-over", bad, capsys=capsys)
    assert (code, out) == (2, "")
    assert "--fail-over" in err and err.count("\n") == 1


def test_gates_exit_through_the_real_entry_point(two: Path, counts: dict[str, int]) -> None:
    argv = ["profile", "--home", str(two), "--project", str(two), "--fail-over", f"server={counts['small']}"]
    proc = subprocess.run(
        [sys.executable, "-m", "wslmcp", *argv],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 4, proc.stderr
    assert "WIRE TOKENS" in proc.stdout  # a gate shows the counts it compared


def snapshot(home: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(home, "snapshot", "--out", str(out), capsys=capsys)
    assert code == 0, err


def test_growth_gate_over_two_real_snapshots(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = home_with(tmp_path, {"fs": 2})
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    snapshot(home, old, capsys)
    config = json.loads((home / ".claude.json").read_text())
    config["mcpServers"]["fs"]["args"][-1] = "4"  # the server now advertises twice the tools
    (home / ".claude.json").write_text(json.dumps(config))
    snapshot(home, new, capsys)

    def total(path: Path) -> int:
        (cli,) = json.loads(path.read_text())["clis"]
        return sum(s["advertised_max_tokens"]["value"] for s in cli["servers"])

    growth = (total(new) - total(old)) * 100 / total(old)
    capsys.readouterr()
    assert main(["diff", str(old), str(new)]) == 0
    ungated = capsys.readouterr().out
    assert main(["diff", str(old), str(new), "--fail-on-growth", f"{growth:.6f}"]) == 0
    capsys.readouterr()
    assert main(["diff", str(old), str(new), "--fail-on-growth", f"{growth - 0.01:.2f}"]) == 16
    captured = capsys.readouterr()
    assert captured.out == ungated  # the diff is still printed, unchanged
    assert f"claude-code advertised {total(old):,} -> {total(new):,}" in captured.err
    # shrinking never fails, and the diff's own output is unchanged by the gate
    assert main(["diff", str(new), str(old), "--fail-on-growth", "0"]) == 0
    plain = capsys.readouterr().out
    main(["diff", str(new), str(old)])
    assert capsys.readouterr().out == plain


@pytest.mark.parametrize("bad", ["x", "-5", "nan"])
def test_bad_growth_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str], bad: str) -> None:
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_:
        main(["diff", "a.json", "b.json", "--fail-on-growth", bad])
    assert exit_.value.code == 2
    assert "--fail-on-growth" in capsys.readouterr().err


def test_the_tokens_column_shows_each_rows_own_wire_count(
    two: Path, counts: dict[str, int], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(two, "--tokens", capsys=capsys)
    assert code == 0
    rows = {line.split()[0]: line for line in out.splitlines() if line.startswith(("big ", "small "))}
    for name in ("big", "small"):
        assert f"..{counts[name]:,} o200k_base (estimate)" in rows[name]  # a Claude Code row
    assert "only an estimate for Claude" in out
    assert "WIRE TOKENS" not in run(two, capsys=capsys)[1]  # mcp-top's table unless asked
