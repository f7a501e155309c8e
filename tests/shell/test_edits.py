"""wsl_edit_file's text work: order, all or nothing, counts and where, near misses, line endings."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import examples
from wslmcp.shell.edits import Applied, Edit, Mismatch, apply_edits, char_diff, near_miss, unified_diff

SOURCE = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"


def test_edits_apply_in_order_each_to_the_result_of_those_before() -> None:
    done = apply_edits(
        SOURCE, [Edit("a + b", "a + b + 0"), Edit("b + 0", "b + 1"), Edit("(a, b)", "(x, y)", 2)]
    )
    assert isinstance(done, Applied) and done.counts == (1, 1, 2)
    assert done.text == "def add(x, y):\n    return a + b + 1\n\n\ndef sub(x, y):\n    return a - b\n"


def test_a_count_mismatch_changes_nothing_and_says_where() -> None:
    done = apply_edits(SOURCE, [Edit("return a", "return b"), Edit("(a, b)", "(x, y)")])
    assert isinstance(done, Mismatch)
    assert (done.index, done.expected, done.found, done.lines, done.near) == (0, 1, 2, (2, 6), None)


def test_no_match_names_the_closest_near_miss_with_a_character_diff() -> None:
    done = apply_edits(SOURCE, [Edit("def sub(a,b):\n    return a-b\n", "x")])
    assert isinstance(done, Mismatch) and done.found == 0 and done.near is not None
    near = done.near
    assert near.line == 5 and near.text == "def sub(a, b):\n    return a - b\n" and 0.8 < near.similarity < 1
    assert "[-" not in near.diff and "{+ +}" in near.diff
    assert char_diff("return a-b", "return a - b") == "return a{+ +}-{+ +}b"
    assert char_diff("x = compute(total)", "x = compute(totals)") == "x = compute(total{+s+})"


def test_crlf_files_match_edits_written_with_lf_and_keep_their_endings() -> None:
    crlf = SOURCE.replace("\n", "\r\n")
    done = apply_edits(
        crlf, [Edit("def add(a, b):\n    return a + b\n", "def add(a, b):\n    return b + a\n")]
    )
    assert isinstance(done, Applied) and done.crlf
    assert done.text == crlf.replace("return a + b", "return b + a")
    mixed = "one\r\ntwo\nthree\n"  # not all CRLF: matched exactly as sent
    assert isinstance(apply_edits(mixed, [Edit("one\ntwo", "x")]), Mismatch)
    assert isinstance(apply_edits(mixed, [Edit("one\r\ntwo", "x")]), Applied)


def test_the_unified_diff_shows_lf_and_is_bounded() -> None:
    diff, left_out = unified_diff("/p/f.py", "a\r\nb\r\n", "a\r\nc\r\n")
    assert diff == "--- /p/f.py\n+++ /p/f.py\n@@ -1,2 +1,2 @@\n a\n-b\n+c" and left_out == 0
    big = "".join(f"{i}\n" for i in range(1000))
    diff, left_out = unified_diff("f", big, big.replace("\n", "x\n"))
    assert diff.count("\n") == 399 and left_out > 0


@settings(max_examples=examples(100), deadline=None)
@given(st.text(alphabet="ab\n", max_size=60), st.text(alphabet="ab\n", min_size=1, max_size=6))
def test_an_edit_applies_only_with_exactly_its_expected_count(text: str, old: str) -> None:
    count = text.count(old)  # str.count counts non-overlapping matches
    done = apply_edits(text, [Edit(old, "Z", expected=1)])
    if count == 1:
        assert isinstance(done, Applied) and done.text == text.replace(old, "Z")
    else:
        assert isinstance(done, Mismatch) and done.found == count
    assert near_miss(text, old) is None or text


def _patched(before: list[str], diff: str) -> list[str]:
    """``before`` with a unified diff applied (its hunk headers trusted for where each hunk starts)."""
    import re

    out, at = [], 0
    for line in diff.splitlines()[2:]:
        if m := re.match(r"@@ -(\d+)(?:,(\d+))? ", line):
            start = int(m[1]) - (0 if m[2] == "0" else 1)
            out += before[at:start]
            at = start
        elif line.startswith("+"):
            out.append(line[1:])
        else:
            assert before[at] == line[1:], (at, line)
            out += [line[1:]] if line.startswith(" ") else []
            at += 1
    return out + before[at:]


@settings(max_examples=examples(100), deadline=None)
@given(
    st.lists(st.sampled_from(["a", "b", "c", ""]), max_size=40),
    st.lists(st.tuples(st.integers(0, 40), st.sampled_from(["x", "", None])), max_size=4),
)
def test_the_diff_of_a_long_file_turns_the_old_text_into_the_new(
    lines: list[str], changes: list[tuple[int, str | None]]
) -> None:
    after = list(lines)
    for at, new in changes:
        if at < len(after):
            if new is None:
                del after[at]
            else:
                after[at] = new
        else:
            after.append(new or "z")
    diff, left_out = unified_diff("f", "".join(f"{x}\n" for x in lines), "".join(f"{x}\n" for x in after))
    assert left_out == 0
    assert _patched(lines, diff) == after
    for hunk in diff.split("\n@@")[1:]:  # three lines of context at most around each change
        body = hunk.splitlines()[1:]
        lead = next((i for i, line in enumerate(body) if not line.startswith(" ")), len(body))
        assert lead <= 3


def test_a_near_miss_comes_from_the_file_on_disk_and_only_when_it_is_alike() -> None:
    text = "def add(a, b):\n    return a + b\n"
    # edit 2 quotes, with a typo, what only edit 1 wrote: the half-applied text is never quoted
    done = apply_edits(
        text,
        [
            Edit("def add(a, b):", "def add_numbers(first, second):"),
            Edit("def add_numbers(first, secnd):", ""),
        ],
    )
    assert isinstance(done, Mismatch) and done.index == 1 and not done.changed_by_earlier
    assert done.near is None or "add_numbers" not in done.near.text
    # unrelated text: no hint at all (it used to be "line 1, similarity 0.00")
    far = apply_edits(text, [Edit("zzzz qqqq", "x")])
    assert isinstance(far, Mismatch) and far.near is None and not far.empty
    assert near_miss(text, "zzzz qqqq") is None
    # a text on disk that an earlier edit of the batch changed is said to be so
    gone = apply_edits(text, [Edit("return a + b", "return b + a"), Edit("return a + b", "x")])
    assert isinstance(gone, Mismatch) and gone.changed_by_earlier and gone.near is None
    empty = apply_edits("", [Edit("x", "y")])
    assert isinstance(empty, Mismatch) and empty.empty
