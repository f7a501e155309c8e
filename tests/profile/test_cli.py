"""The `wslmcp profile` command line: options, subcommands, exit codes 0 and 2."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.profile.homes import SCENARIOS
from wslmcp.profile.cli import main

USAGE = str(SCENARIOS / "profile-usage")


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    capsys.readouterr()
    try:
        code = main(args)
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--sessions", "0"], "must be at least 1"),
        (["--days", "abc"], "invalid _positive_int value: 'abc'"),
        (["--timeout", "nan"], "must be greater than 0"),
        (["--timeout", "-1"], "must be greater than 0"),
        (["--cli", "vscode"], "invalid choice: 'vscode'"),
        (["diff", "only-one"], "the following arguments are required: NEW"),
        (["--home", "/nonexistent-wslmcp-home"], "/nonexistent-wslmcp-home: no such directory"),
        (["--also-home", "/nonexistent-wslmcp-home"], "/nonexistent-wslmcp-home: no such directory"),
        (["snapshot", "--json"], "unrecognized arguments: --json"),
        (["snapshot", "--tokens"], "unrecognized arguments: --tokens"),
        (["--tokens", "--prune", "snapshot"], "--prune, --tokens shape the printed report"),
        (["diff", "--timeout", "3", "a", "b"], "unrecognized arguments: --timeout"),
        (["diff", "--home", "/x", "a", "b"], "unrecognized arguments: --home"),
    ],
)
def test_usage_errors_exit_2_with_one_line(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code, out, err = run(args, capsys)
    assert code == 2 and out == ""
    assert message in err and err.count("\n") == 1


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["--version"], capsys)
    assert code == 0 and "mcp-top 0.5.0" in out


def test_internal_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["--replay", USAGE, "--days", "1000000"], capsys)
    assert (code, out) == (2, "")
    assert err == "wslmcp profile: internal error: date value out of range\n"


def test_options_after_a_subcommand_win(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["--replay", USAGE, "--sessions", "5", "snapshot", "--sessions", "1"], capsys)
    assert code == 0
    assert {c["window"]["sessions"] for c in json.loads(out)["clis"]} == {1}


def test_snapshot_out_writes_the_file_and_nothing_on_stdout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "snap.json"
    target.write_text("old content", encoding="utf-8")
    code, out, _ = run(["--replay", USAGE, "snapshot", "--out", str(target)], capsys)
    assert (code, out) == (0, "")
    text = target.read_text(encoding="utf-8")
    assert text.endswith("}\n") and json.loads(text)["schema"] == "mcp-top-snapshot/v1"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["snap.json"]


def test_snapshot_out_to_a_missing_directory_exits_2_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(["--replay", USAGE, "snapshot", "--out", str(tmp_path / "nope" / "s.json")], capsys)
    assert (code, out) == (2, "")
    assert err == "wslmcp profile snapshot: cannot write output: No such file or directory\n"


def test_diff_accepts_json_before_the_subcommand(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "s.json"
    code, _, _ = run(["--replay", USAGE, "snapshot", "--out", str(path)], capsys)
    code, out, _ = run(["--json", "diff", str(path), str(path)], capsys)
    doc = json.loads(out)
    assert code == 0 and doc["schema"] == "mcp-top-diff/v1"
    assert all(c["changed"] == [] and c["added"] == [] for c in doc["clis"])
    code, out, _ = run(["diff", str(path), str(path)], capsys)
    assert out.startswith("Snapshot diff\nold generated_at: 2026-01-15T00:00:00+00:00\n")
    code, out, _ = run(["diff", "--json", str(path), str(path)], capsys)
    assert code == 0 and json.loads(out)["schema"] == "mcp-top-diff/v1"


def test_missing_diff_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = str(tmp_path / "missing.json")
    code, _, err = run(["diff", missing, missing], capsys)
    assert code == 2 and err == f"wslmcp profile diff: {missing}: file not found\n"


def test_json_output_is_one_ascii_line_with_our_additions_under_one_key(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(["--replay", USAGE, "--json"], capsys)
    assert code == 0 and out.count("\n") == 1 and out.isascii()
    doc = json.loads(out)
    assert set(doc) == {"schema", "generated_note", "clis", "wslmcp"}
    assert "secret-value" not in out


def test_real_process_end_to_end_over_the_console_entry(tmp_path: Path) -> None:
    """`python -m wslmcp profile` as a user runs it: a real home with a real stdio server."""
    home = tmp_path / "home"
    server = SCENARIOS / "profile-usage" / "home" / ".servers"
    home.mkdir()
    (home / ".claude.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "s": {
                        "command": sys.executable,
                        "args": [str(server / "serve.py"), str(server / "used.json")],
                    }
                }
            }
        ),
        encoding="utf-8",
    )
    env = {k: v for k, v in os.environ.items() if k != "WSLMCP_REPLAY"}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "wslmcp",
            "profile",
            "--home",
            str(home),
            "--project",
            str(tmp_path),
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    (cli,) = json.loads(done.stdout)["clis"]
    (row,) = cli["servers"]
    assert (row["server"], row["def_status"], row["tool_count"]) == ("s", "ok", 2)
    spec = json.loads((server / "used.json").read_text(encoding="utf-8"))
    expected = math.ceil(len(spec["instructions"]) / 4) + sum(
        math.ceil(
            len(json.dumps({**t, "name": f"mcp__s__{t['name']}"}, separators=(",", ":"), ensure_ascii=False))
            / 4
        )
        for t in spec["tools"]
    )
    assert row["advertised_max_tokens"] == {"value": expected, "exact": False}


def test_the_human_diff_shows_how_much_each_clients_definitions_grew(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    run(["--replay", str(SCENARIOS / "profile-usage"), "snapshot", "--out", str(old)], capsys)
    run(["--replay", str(SCENARIOS / "profile-special-files"), "snapshot", "--out", str(new)], capsys)
    code, out, _ = run(["diff", str(old), str(new)], capsys)
    assert code == 0
    before = json.loads(old.read_text())
    after = json.loads(new.read_text())

    def total(doc: dict[str, object], cli: str) -> int:
        clis = doc["clis"]
        assert isinstance(clis, list)
        servers = next(c for c in clis if c["cli"] == cli)["servers"]
        return sum(s["advertised_max_tokens"]["value"] for s in servers if s.get("advertised_max_tokens"))

    a, b = total(before, "claude-code"), total(after, "claude-code")
    assert f"  claude-code: ~{a:,} -> ~{b:,} ({b - a:+,}, {(b - a) * 100 / a:+.1f}%)" in out
    assert out.index("Advertised tokens") > out.index("=== cursor ===")  # after mcp-top's part
