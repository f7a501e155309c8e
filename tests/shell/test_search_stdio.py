"""wsl_search and wsl_edit_file's hints over real stdio with the SDK client: files found by name
(no content pattern), globs with '/' and braces, the same answers from ripgrep and from grep (a
PATH without rg); an edit that matches nothing is hinted from the file on disk, and only when
something in it is alike."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from tests.faults.rig import shell_env
from tests.shell.test_search import hide_rg

ENGINES = ["rg", "grep"]
FILES = {
    "src/x.py": "needle = 1\n",
    "src/a/y.py": "no match here\n",
    "src/a/b/z.py": "a needle\n",
    "src/a/n.md": "needle in markdown\n",
    "src/a/b/q.txt": "needle in text\n",
    "other/src/w.py": "needle elsewhere\n",
    "top.py": "needle at the top\n",
    "README.md": "readme needle\n",
    ".hid/h.py": "hidden needle\n",
    ".git/config.py": "never listed\n",
}


def _tree(root: Path) -> Path:
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def _params(tmp_path: Path, engine: str, monkeypatch: pytest.MonkeyPatch) -> StdioServerParameters:
    if engine == "rg" and shutil.which("rg") is None:
        pytest.skip("ripgrep is not installed here (.ci/run installs it)")
    env = shell_env(tmp_path)
    if engine == "grep":
        hide_rg(tmp_path / "bin", monkeypatch)
        env["PATH"] = os.environ["PATH"]
    return StdioServerParameters(
        command=sys.executable, args=["-m", "wslmcp", "shell"], env=env, cwd=tmp_path
    )


async def _call(client: Client, tool: str, **arguments: Any) -> tuple[str, dict[str, Any], bool]:
    result = await client.call_tool(tool, arguments)
    return str(result.content[0].text), dict(result.structured_content or {}), bool(result.is_error)


def _rel(root: Path, paths: list[str]) -> list[str]:
    return [p.removeprefix(f"{root}/") for p in paths]


@pytest.mark.parametrize("engine", ENGINES)
async def test_files_are_found_by_name_with_globs_that_hold_slashes_and_braces(
    tmp_path: Path, engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _tree(tmp_path / "t")
    async with Client(_params(tmp_path, engine, monkeypatch)) as client:
        _, deep, error = await _call(client, "wsl_search", path=str(root), glob="src/**/*.py")
        assert not error, deep
        _, both, _ = await _call(client, "wsl_search", path=str(root), glob="*.{py,md}")
        _, some, _ = await _call(client, "wsl_search", path=str(root), glob="**/src/*.py", maxResults=1)
        _, every, _ = await _call(client, "wsl_search", path=str(root))
        text, needles, _ = await _call(
            client, "wsl_search", pattern="needle", path=str(root), glob="src/**/*.py"
        )
    assert _rel(root, deep["files"]) == ["src/a/b/z.py", "src/a/y.py", "src/x.py"]  # walk order
    assert deep["matches"] == [] and deep["found"] == 3
    assert _rel(root, both["files"]) == [
        ".hid/h.py", "README.md", "other/src/w.py", "src/a/b/z.py", "src/a/n.md", "src/a/y.py", "src/x.py",
        "top.py",
    ]  # fmt: skip
    assert _rel(root, some["files"]) == ["other/src/w.py"] and some["nextOffset"] == 1 and some["found"] == 2
    assert ".git/config.py" not in _rel(root, every["files"]) and len(every["files"]) == len(FILES) - 1
    assert [(m["path"].removeprefix(f"{root}/"), m["line"]) for m in needles["matches"]] == [
        ("src/a/b/z.py", 1),
        ("src/x.py", 1),
    ]
    assert text.startswith(f"Matches 1-2 of 2 under {root}")


@pytest.mark.parametrize("engine", ENGINES)
async def test_a_glob_that_names_no_file_and_a_bad_glob_are_answers(
    tmp_path: Path, engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _tree(tmp_path / "t")
    async with Client(_params(tmp_path, engine, monkeypatch)) as client:
        none, data, error = await _call(client, "wsl_search", path=str(root), glob="src/**/*.rs")
        bad, _, bad_error = await _call(client, "wsl_search", path=str(root), glob="src/{a,b")
    assert not error and data["files"] == [] and none == f"No files match 'src/**/*.rs' under {root}."
    assert bad_error and "glob" in bad and "{" in bad


async def test_an_edit_that_matches_nothing_is_hinted_from_the_file_on_disk(tmp_path: Path) -> None:
    target = tmp_path / "f.py"
    target.write_text("def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n")
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "wslmcp", "shell"], env=shell_env(tmp_path), cwd=tmp_path
    )
    async with Client(params) as client:
        # edit 1 applies; edit 2 quotes what only edit 1 wrote, with a typo: that text was never on disk
        half, half_data, half_error = await _call(
            client,
            "wsl_edit_file",
            path=str(target),
            edits=[
                {"oldText": "def add(a, b):", "newText": "def add_numbers(first, second):"},
                {"oldText": "def add_numbers(first, secnd):", "newText": "x"},
            ],
        )
        unlike, unlike_data, _ = await _call(
            client, "wsl_edit_file", path=str(target), edits=[{"oldText": "zzzz qqqq", "newText": "x"}]
        )
        typo, typo_data, _ = await _call(
            client, "wsl_edit_file", path=str(target), edits=[{"oldText": "def sub(a,b):", "newText": "x"}]
        )
    assert half_error and half_data["error"]["code"] == "no_match"
    assert "add_numbers(first, second)" not in half  # nothing quoted from the half-applied batch
    assert half_data["nearMiss"] is None or "add_numbers" not in half_data["nearMiss"]["text"]
    assert unlike_data["nearMiss"] is None and "Closest text" not in unlike and "similarity 0.0" not in unlike
    assert typo_data["nearMiss"]["line"] == 5 and "Closest text: line 5" in typo
    assert target.read_text().startswith("def add(a, b):")  # all or nothing
