"""The wrapper's pure parts: quoting survives bash byte for byte, the cwd marker is split exactly,
streams are cut with honest counts."""

from __future__ import annotations

import asyncio

from hypothesis import given, settings
from hypothesis import strategies as st

from wslmcp.boundaries.shell_transport import LocalTransport
from wslmcp.shell.execution import build_script, shape_stream, split_marker
from wslmcp.shell.runner import quote

_TEXT = st.text(st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00"), max_size=60)


@settings(max_examples=10, deadline=None)
@given(text=_TEXT)
def test_quoted_text_reaches_bash_verbatim(text: str) -> None:
    async def go() -> bytes:
        ex = await LocalTransport().run(f"printf '%s' {quote(text)}", timeout_s=30)
        return ex.stdout

    assert asyncio.run(go()) == text.encode("utf-8")


@given(output=_TEXT, cwd=st.from_regex(r"/[a-z0-9/ ._-]{0,30}", fullmatch=True))
def test_split_marker_recovers_output_and_cwd(output: str, cwd: str) -> None:
    marker = "__WSLMCP_CWD_00000000000000aa__"
    text, reported = split_marker(f"{output}\n{marker}{cwd}\n", marker)
    assert (text, reported) == (output, cwd)


def test_only_the_last_marker_counts_and_absence_is_none() -> None:
    m = "__WSLMCP_CWD_00000000000000aa__"
    assert split_marker(f"a\n{m}/one\nb\n{m}/two\n", m) == (f"a\n{m}/one\nb", "/two")
    assert split_marker("plain output\n", m) == ("plain output\n", None)


@given(text=st.text(max_size=300), limit=st.integers(min_value=1, max_value=200))
def test_shape_stream_cuts_to_the_limit_and_counts_what_it_dropped(text: str, limit: int) -> None:
    s = shape_stream(text, len(text.encode("utf-8", "surrogatepass")), False, limit)
    assert s.text == text[:limit]
    assert s.dropped_chars == max(0, len(text) - limit) and s.total_chars == len(text)


def test_the_script_quotes_the_cwd_and_evals_the_command_once() -> None:
    script = build_script("echo 'hi'", cwd="/tmp/it's here", marker=None)
    assert script.splitlines()[0].startswith("cd -- '/tmp/it'\\''s here' 2>/dev/null || {")
    assert script.splitlines()[-1] == "eval 'echo '\\''hi'\\'''"
    assert "trap" not in script


async def test_the_sweep_fallback_without_grep_z_finds_token_carriers() -> None:
    import subprocess

    from wslmcp.shell.runner import _SWEEP

    token = "abcdef0123456789"
    script = _SWEEP.format(token=token).replace("printf 'a\\0' | grep -qzx a", "false")
    assert script != _SWEEP.format(token=token)
    carrier = subprocess.Popen(
        ["bash", "-c", "exec sleep 12.3456"], env={"WSLMCP_RUN": token, "PATH": "/usr/bin:/bin"}
    )
    try:
        await asyncio.sleep(0.2)
        ex = await LocalTransport().run(script, timeout_s=30)
        assert ex.stdout.decode() == f"{carrier.pid} sleep\n" and ex.stderr == b""
        assert carrier.wait(timeout=10) == -9
    finally:
        carrier.kill()
