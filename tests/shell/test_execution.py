"""The wrapper's pure parts: quoting survives bash byte for byte, the cwd marker is split exactly,
streams are cut with honest counts."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import examples
from wslmcp.boundaries.shell_transport import LocalTransport, ScriptCall
from wslmcp.shell.execution import build_script, split_marker
from wslmcp.shell.output import Kept, shown
from wslmcp.shell.runner import quote

_TEXT = st.text(st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00"), max_size=60)


@settings(max_examples=examples(10), deadline=None)
@given(text=_TEXT)
def test_quoted_text_reaches_bash_verbatim(text: str) -> None:
    async def go() -> bytes:
        ex = await LocalTransport().run(ScriptCall(f"printf '%s' {quote(text)}", timeout_s=30))
        return ex.stdout

    assert asyncio.run(go()) == text.encode("utf-8")


@given(output=_TEXT, cwd=st.from_regex(r"/[a-z0-9/ ._-]{0,30}", fullmatch=True))
def test_split_marker_recovers_output_and_cwd(output: str, cwd: str) -> None:
    marker = "__WSLMCP_CWD_00000000000000aa__"
    text, reported = split_marker(f"{output}\n{marker}{cwd}\n".encode(), marker)
    assert (text, reported) == (output.encode(), cwd)


def test_only_the_last_marker_counts_and_absence_is_none() -> None:
    m = "__WSLMCP_CWD_00000000000000aa__"
    assert split_marker(f"a\n{m}/one\nb\n{m}/two\n".encode(), m) == (f"a\n{m}/one\nb".encode(), "/two")
    assert split_marker(b"plain output\n", m) == (b"plain output\n", None)


_LINES = st.lists(st.text(st.characters(blacklist_categories=["Cs"], blacklist_characters="\n"), max_size=30))


@settings(max_examples=examples(60), deadline=None)
@given(lines=_LINES, limit=st.integers(min_value=4, max_value=200), piece=st.integers(1, 64))
def test_a_stream_keeps_its_head_and_tail_at_line_ends_and_counts_the_rest(
    lines: list[str], limit: int, piece: int
) -> None:
    text = "".join(f"{line}\n" for line in lines)
    data = text.encode()
    kept = Kept.for_chars(limit)
    for i in range(0, len(data), piece):  # handed over in pieces, as a pipe does
        kept(data[i : i + piece])
    s = shown(kept, limit)
    assert (s.total_bytes, s.total_chars) == (len(data), len(text))
    assert len(kept.head) + len(kept._tail) <= kept.head_limit + 2 * kept.tail_limit  # bounded
    if len(text) <= limit:
        assert (s.text, s.dropped_chars, s.dropped_lines) == (text, 0, 0)
        return
    head, gap, tail = s.text.partition("… ")
    tail = tail.split("\n", 1)[1]
    if not text.startswith(head):  # a head with no line end: the gap's line starts on a line of its own
        head = head.removesuffix("\n")
    assert gap and text.startswith(head) and text.endswith(tail)
    assert len(head) + len(tail) <= limit
    assert len(head) + len(tail) + s.dropped_chars == len(text)  # every character counted
    assert head.count("\n") + tail.count("\n") + s.dropped_lines == text.count("\n")
    if "\n" in text[: limit // 4]:
        assert head.endswith("\n")  # cut at a line end


def test_a_stream_past_what_it_keeps_counts_what_it_dropped_in_the_middle() -> None:
    kept = Kept.for_chars(40)  # 40 bytes of head, 120 of tail
    for n in range(1, 10001):
        kept(f"{n}\n".encode())
    s = shown(kept, 40)
    head, _, rest = s.text.partition("… ")
    tail = rest.split("\n", 1)[1]
    numbers = [int(n) for n in (head + tail).split()]
    assert numbers[:3] == [1, 2, 3] and numbers[-1] == 10000
    assert len(numbers) + s.dropped_lines == 10000
    assert s.total_bytes == sum(len(f"{n}\n") for n in range(1, 10001))
    assert rest.startswith(f"{s.dropped_lines} lines ({s.dropped_chars} characters) left out here …\n")


def test_the_script_quotes_the_cwd_and_evals_the_command_once() -> None:
    script = build_script("echo 'hi'", cwd="/tmp/it's here", marker=None)
    assert script.splitlines()[0].startswith("cd -- '/tmp/it'\\''s here' 2>/dev/null || {")
    assert script.splitlines()[-1] == "eval 'echo '\\''hi'\\'''"
    assert "trap" not in script


@pytest.mark.parametrize("grep_z", [True, False], ids=["grep-z", "fallback-without-grep-z"])
async def test_the_sweep_finds_token_carriers_and_the_scripts_own_shell(grep_z: bool) -> None:
    import subprocess

    from wslmcp.shell.runner import sweep_script

    token = "abcdef0123456789"
    script = sweep_script(token)
    if not grep_z:
        script = script.replace("printf 'a\\0' | grep -qzx a", "false")
        assert script != sweep_script(token)
    path = {"PATH": "/usr/bin:/bin"}
    # a child that inherited the token, and a top-level script shell that only exported it
    carrier = subprocess.Popen(["bash", "-c", "exec sleep 12.3456"], env={"WSLMCP_RUN": token, **path})
    shell = subprocess.Popen(["bash", "-c", f"export WSLMCP_RUN={token}\nsleep 12.3457\n:"], env=path)
    try:
        while Path(f"/proc/{carrier.pid}/comm").read_text().strip() != "sleep":  # bash has yet to exec
            await asyncio.sleep(0.01)
        ex = await LocalTransport().run(ScriptCall(script, timeout_s=30, login=False))
        named = sorted(ex.stdout.decode().splitlines())
        assert f"{carrier.pid} sleep" in named and f"{shell.pid} bash" in named, named
        assert ex.stderr == b""
        assert carrier.wait(timeout=10) == -9 and shell.wait(timeout=10) == -9
    finally:
        carrier.kill()
        shell.kill()


async def test_a_sweep_takes_several_tokens_and_sends_term_without_stopping() -> None:
    import subprocess

    from wslmcp.shell.runner import sweep_script

    tokens = ["abcdef0123456780", "abcdef0123456781"]
    path = {"PATH": "/usr/bin:/bin"}
    script = "trap 'echo got-term; exit 7' TERM; echo ready; while :; do sleep 0.05; done"
    procs = [
        subprocess.Popen(["bash", "-c", script], env={"WSLMCP_RUN": t, **path}, stdout=subprocess.PIPE)
        for t in tokens
    ]
    bystander = subprocess.Popen(
        ["bash", "-c", "sleep 12.3458"], env={"WSLMCP_RUN": "abcdef0123456782", **path}
    )
    try:
        for proc in procs:
            assert proc.stdout is not None and proc.stdout.readline() == b"ready\n"  # the trap is set
        ex = await LocalTransport().run(
            ScriptCall(sweep_script(*tokens, signal="TERM"), timeout_s=30, login=False)
        )
        named = ex.stdout.decode().splitlines()
        assert {f"{p.pid} bash" for p in procs} <= set(named), named
        for proc in procs:  # each caught TERM and exited on its own: it was not stopped first
            out, _ = proc.communicate(timeout=10)
            assert (proc.returncode, out) == (7, b"got-term\n")
        assert bystander.poll() is None
    finally:
        for proc in [*procs, bystander]:
            proc.kill()
