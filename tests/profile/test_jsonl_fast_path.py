"""The profiler's orjson reading gives the verdicts json.loads gives, line for line.

``records(..., exact_numbers=False)`` hands lines to orjson first. Each case below is a line where
the two parsers could part: JSON that only Python accepts (NaN, lone surrogate escapes, huge
numbers), a CR that is JSON whitespace but a line break here, nesting near json.loads' recursion
limit, whitespace only Python strips, duplicate keys, non-objects and undecodable bytes. Both
readings of the same file must agree on every record, the line counts and the error.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from wslmcp.boundaries.client_files import LocalClientFiles
from wslmcp.profile.transcripts.jsonl import LineStats, records

LINES = {
    "plain": b'{"type": "user", "n": 1}\n',
    "nan": b'{"a": NaN, "b": -Infinity}\n',
    "lone surrogate escape": b'{"a": "\\ud800"}\n',
    "int of 25 digits": b'{"a": 1234567890123456789012345}\n',
    "int of 400 digits": b'{"a": ' + b"9" * 400 + b"}\n",
    "int of 5000 digits": b'{"a": ' + b"9" * 5000 + b"}\n",
    "float beyond double": b'{"a": 1e400}\n',
    "cr as whitespace": b'{"a":\r1}\n',
    "crlf": b'{"a": 1}\r\n',
    "cr as whitespace, then crlf": b'{"a":\r1}\r\n',
    "crlf, not at the end": b'{"a": 1}\r\n{"b": 2}\n',
    "nested 899": b'{"a": ' + b"[" * 898 + b"]" * 898 + b"}\n",
    "nested 1010": b'{"a": ' + b"[" * 1009 + b"]" * 1009 + b"}\n",
    "brackets in a string": b'{"a": "' + b"[" * 2000 + b'"}\n',
    "form feed only": b"\x0c\n",
    "trailing form feed": b"{}\x0c\n",
    "spaces around": b"   {}   \n",
    "duplicate keys": b'{"a": 1, "a": 2}\n',
    "array": b"[1, 2]\n",
    "string": b'"text"\n',
    "bom": b'\xef\xbb\xbf{"a": 1}\n',
    "control char in string": b'{"a": "x\x01y"}\n',
    "truncated": b'{"a": [1, 2\n',
    "blank": b"\n",
    "no final newline": b'{"last": true}',
}


def read(path: Path, *, exact_numbers: bool) -> tuple[list[Any], tuple[int, int, str | None]]:
    stats = LineStats()
    got = list(records(LocalClientFiles(), str(path), stats, exact_numbers=exact_numbers))
    return got, (stats.non_empty, stats.bad, stats.error)


@pytest.mark.parametrize("name", sorted(LINES))
def test_each_line_reads_the_same_both_ways(tmp_path: Path, name: str) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"first": 1}\n' + LINES[name] + b'{"after": 2}\n')
    exact, fast = read(path, exact_numbers=True), read(path, exact_numbers=False)
    assert fast[1] == exact[1]
    if name == "int of 25 digits":  # the one difference: 20 to 308 digits come back as a float
        assert fast[0][1]["a"] == pytest.approx(exact[0][1]["a"]) and isinstance(fast[0][1]["a"], float)
    else:
        assert repr(fast[0]) == repr(exact[0])  # text, not ==: NaN is not equal to itself


def test_an_undecodable_byte_makes_the_file_unreadable_both_ways(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"a": 1}\n{"b": "\xff"}\n{"c": 3}\n')
    exact, fast = read(path, exact_numbers=True), read(path, exact_numbers=False)
    assert fast == exact
    assert exact[1][2] is not None and exact[1][2].startswith("unreadable: 'utf-8' codec can't decode")


def test_all_lines_together_read_the_same_both_ways(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"".join(line for name, line in sorted(LINES.items()) if name != "no final newline"))
    exact, fast = read(path, exact_numbers=True), read(path, exact_numbers=False)
    assert fast[1] == exact[1] and len(fast[0]) == len(exact[0])
