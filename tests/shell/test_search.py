"""wsl_search on a real bash: ripgrep and grep (a PATH without rg) give the same matches; paging,
hidden operator paths, allowed paths and bad patterns."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.shell.conftest import build
from wslmcp.scenario.script_versions import EARLIER_SCRIPT_PARTS, as_today
from wslmcp.shell import results
from wslmcp.shell.search import Matches, Query, search_script, walk_exclusions

needs_rg = pytest.mark.skipif(
    shutil.which("rg") is None, reason="ripgrep is not installed here (.ci/run installs it)"
)


def hide_rg(bin_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """PATH becomes ``bin_dir``, holding every program of this machine's PATH but ripgrep."""
    bin_dir.mkdir()
    for directory in os.environ["PATH"].split(os.pathsep):
        if os.path.isdir(directory):
            for name in os.listdir(directory):
                if name != "rg" and not (bin_dir / name).exists():
                    (bin_dir / name).symlink_to(os.path.join(directory, name))
    monkeypatch.setenv("PATH", str(bin_dir))
    assert shutil.which("rg") is None


def tree(root: Path) -> Path:
    files = {
        "a.txt": "alpha\nneedle one\nbeta\ngamma\nNeedle two\r\n",
        "a-b/x.py": "def needle():\n    return 1\n",
        "a/x.py": "x = 'needle.*'\n",
        "b c/z.txt": "zz\nneedle in a spaced dir\n",
        "sub/deep/e.py": "".join(f"line {i}\n" for i in range(1, 8)) + "needle at 8\n",
        ".hidden": "needle hidden\n",
        ".git/HEAD": "needle in git\n",
        ".ssh/config": "needle secret\n",
        "proj/.claude.json": '{"needle": "secret"}\n',
        "proj/.config/gh/hosts.yml": "needle token\n",
        "caf\u00e9.txt": "needle caf\u00e9\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(text.encode())
    (root / "bin.dat").write_bytes(b"x\0y needle\n")
    (root / "link.txt").symlink_to(root / "a.txt")
    return root


async def _search(env: dict[str, str] | None = None, /, **kwargs: object) -> results.Searched:
    found = await build(env).raw.search(**kwargs)
    assert isinstance(found, results.Searched), found
    return found


def _plain(found: results.Searched) -> list[tuple[str, int, str, tuple[str, ...], tuple[str, ...]]]:
    return [(m.path, m.line, m.text, m.before, m.after) for m in found.matches]


CASES = [
    {"pattern": "needle"},
    {"pattern": "NEEDLE", "ignore_case": True, "context_lines": 2},
    {"pattern": "needle.*", "literal": True},
    {"pattern": r"ne+dle\s+\w+", "glob": "*.txt"},
    {"pattern": "needle", "max_results": 3, "offset": 2},
]


async def _all_cases(root: Path) -> list[tuple[list[object], str]]:
    out = []
    for case in CASES:
        found = await _search(
            pattern=case["pattern"], path=str(root), **{k: v for k, v in case.items() if k != "pattern"}
        )
        out.append((_plain(found), await _text(root, case)))
    return out


async def _text(root: Path, case: dict[str, object]) -> str:
    return (await build().service.search(path=str(root), **case)).text


@needs_rg
async def test_ripgrep_and_grep_give_the_same_matches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tree(tmp_path / "t")
    with_rg = await _all_cases(root)
    hide_rg(tmp_path / "bin", monkeypatch)
    with_grep = await _all_cases(root)
    assert with_grep == with_rg
    first = with_rg[0][0]
    assert [(p.removeprefix(f"{root}/"), line) for p, line, *_ in first] == [
        (".hidden", 1),
        ("a/x.py", 1),
        ("a-b/x.py", 1),
        ("a.txt", 2),
        ("b c/z.txt", 2),
        ("caf\u00e9.txt", 1),
        ("sub/deep/e.py", 8),
    ]  # walk order; no .git, no operator files, no binary file, no symlink followed


async def test_context_paging_and_the_reply(tmp_path: Path) -> None:
    root = tree(tmp_path / "t")
    found = await _search(pattern="needle", path=str(root), context_lines=2, max_results=2, offset=5)
    assert [(m.path.removeprefix(f"{root}/"), m.line) for m in found.matches] == [
        ("caf\u00e9.txt", 1),
        ("sub/deep/e.py", 8),
    ]
    assert found.matches[1].before == ("line 6", "line 7") and found.matches[1].after == ()
    assert (found.offset, found.next_offset, found.found, found.truncated) == (5, None, 7, False)
    page = await _search(pattern="needle", path=str(root), max_results=2)
    assert (page.next_offset, page.truncated) == (2, True)
    text = (await build().service.search(pattern="needle", path=str(root / "sub"), context_lines=1)).text
    assert text == f"Matches 1-1 of 1 under {root}/sub:\n{root}/sub/deep/e.py\n  7- line 7\n  8: needle at 8"


async def test_operator_paths_and_paths_outside_the_allowed_ones_are_never_searched(tmp_path: Path) -> None:
    root = tree(tmp_path / "t")
    secret = await build().service.search(pattern="secret|token", path=str(root))
    assert secret.text.startswith("No matches under")
    refused = await build().service.search(pattern="needle", path=str(root / ".ssh"))
    assert refused.is_error and "Refused by this profile's guard policy" in refused.text
    outside = await build({"WSL_ALLOWED_PATHS": str(root / "sub")}).service.search(
        pattern="needle", path=str(root)
    )
    assert outside.is_error and "allowed paths" in outside.text
    inside = await _search({"WSL_ALLOWED_PATHS": str(root / "sub")}, pattern="needle", path=str(root / "sub"))
    assert len(inside.matches) == 1


async def test_bad_patterns_globs_and_paths_are_clear_errors(tmp_path: Path) -> None:
    root = tree(tmp_path / "t")
    bad = await build().service.search(pattern="(unclosed", path=str(root))
    assert bad.is_error and "the search failed" in bad.text
    glob = await build().service.search(pattern="x", path=str(root), glob="src/{a,b")
    assert glob.is_error and "the glob 'src/{a,b' cannot be read: an unclosed '{'" in glob.text
    bracket = await build().service.search(pattern=None, path=str(root), glob="[ab")
    assert bracket.is_error and "an unclosed '['" in bracket.text
    missing = await build().service.search(pattern="x", path=str(root / "nope"))
    assert missing.is_error and "no such file or directory" in missing.text


async def test_grep_alone_pages_the_same_way(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hide_rg(tmp_path / "bin", monkeypatch)
    root = tree(tmp_path / "t")
    found = await _search(pattern="needle", path=str(root), max_results=2, offset=5)
    assert [m.line for m in found.matches] == [1, 8] and found.next_offset is None


async def test_a_root_reached_through_a_symlink_is_judged_where_it_leads(tmp_path: Path) -> None:
    root = tree(tmp_path / "t")
    (tmp_path / "link").symlink_to(root / "sub")
    found = await _search(pattern="needle", path=str(tmp_path / "link"))
    assert found.resolved == str(root / "sub") and [m.line for m in found.matches] == [8]
    (tmp_path / "keys").symlink_to(root / ".ssh")
    refused = await build().service.search(pattern="needle", path=str(tmp_path / "keys"))
    assert refused.is_error and "Refused by this profile's guard policy" in refused.text
    outside = await build({"WSL_ALLOWED_PATHS": str(tmp_path / "link")}).service.search(
        pattern="needle", path=str(tmp_path / "link")
    )
    assert outside.is_error and "allowed paths" in outside.text


@pytest.mark.parametrize("context", [0, 1])
def test_matches_come_in_walk_order_whatever_order_the_engine_printed_the_files_in(context: int) -> None:
    """ripgrep searches files on several threads and prints each file's records together, files in
    the order they finish: the parser puts files in walk order (each directory's names in byte
    order), each file's records staying as printed."""
    files = {
        b"/r/b/x.py": [b"1:needle", b"2-after"],
        b"/r/a.b/y.py": [b"4:needle"],
        b"/r/a/z.py": [b"1-before", b"2:needle", b"3:needle"],
        b"/r/a/b.py": [b"9:needle"],
    }
    out = b"".join(path + b"\0" + record + b"\n" for path, recs in files.items() for record in recs)
    found = Matches(out, context)
    assert found.total == 5
    assert [(m.path, m.line, m.before, m.after) for m in found.page(0, 10)] == [
        ("/r/a/b.py", 9, (), ()),
        ("/r/a/z.py", 2, ("before",) * context, ("needle",) * context),  # a match is context too
        ("/r/a/z.py", 3, ("needle",) * context, ()),
        ("/r/a.b/y.py", 4, (), ()),
        ("/r/b/x.py", 1, (), ("after",) * context),
    ]
    assert [m.line for m in found.page(3, 10)] == [4, 1]


def test_recorded_search_scripts_of_earlier_versions_read_as_todays() -> None:
    """The twin reads recorded scripts through ``script_versions``: each of its today parts must be
    in today's script (else a recording of an earlier one would stop answering), and the walk's
    exclusions must fit in one ripgrep glob."""
    script = search_script("/home/dev/app", Query("needle"))
    assert all(today in script for _, today in EARLIER_SCRIPT_PARTS)
    assert all(earlier not in as_today(script) for earlier, _ in EARLIER_SCRIPT_PARTS)
    assert not any(c in name for name in walk_exclusions() for c in ",{}")


GLOBS = [
    "*.py", "*.{py,txt}", "sub/**/*.py", "**/x.py", "a/*", "a*/x.py", "*/x.py", "/a/*.py", "sub/**",
    "**/deep/*", "!*.py", "!sub/**", "[ab]/x.py", "[!a]*.txt", "?.txt", "caf\u00e9.*", "b c/*", "{a,a-b}/x.py",
]  # fmt: skip


@needs_rg
async def test_ripgrep_and_grep_find_the_same_files_for_every_glob(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One glob, two engines: ripgrep reads it itself, the grep side through ``glob_regex``."""
    root = tree(tmp_path / "t")

    async def found() -> list[tuple[str, ...] | None]:
        return [
            (await _search(pattern=None, path=str(root), glob=glob, max_results=1000)).files for glob in GLOBS
        ]

    with_rg = await found()
    hide_rg(tmp_path / "bin", monkeypatch)
    with_grep = await found()
    assert with_grep == with_rg
    named = dict(zip(GLOBS, with_rg, strict=True))
    rel = {g: [p.removeprefix(f"{root}/") for p in files or ()] for g, files in named.items()}
    assert rel["sub/**/*.py"] == ["sub/deep/e.py"] and rel["{a,a-b}/x.py"] == ["a/x.py", "a-b/x.py"]
    assert rel["*.{py,txt}"] and all(p.endswith((".py", ".txt")) for p in rel["*.{py,txt}"])
    assert "a.txt" in rel["!*.py"] and not any(p.endswith(".py") for p in rel["!*.py"])
