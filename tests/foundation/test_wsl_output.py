"""wsl.exe's own output: UTF-16LE (with or without BOM) or UTF-8, whole-buffer detection."""

from __future__ import annotations

import codecs

from hypothesis import given
from hypothesis import strategies as st

from wslmcp.boundaries.wsl_exe import decode_wsl_output

LISTING = "  NAME            STATE           VERSION\r\n* Ubuntu-24.04    Running         2\r\n  docker-desktop  Stopped         2\r\n"


def test_utf16le_listing_as_wsl_writes_it() -> None:
    text = decode_wsl_output(LISTING.encode("utf-16-le"))
    assert text.splitlines()[1] == "* Ubuntu-24.04    Running         2"
    assert "\r" not in text and "\x00" not in text


def test_crcrlf_failure_output() -> None:
    raw = "Error: 0x8007019e\r\r\nWSL is not enabled.\r\r\n".encode("utf-16-le")
    assert decode_wsl_output(raw) == "Error: 0x8007019e\nWSL is not enabled.\n"


def test_localized_utf16_without_ascii_majority() -> None:
    assert decode_wsl_output("默认分发: Ubuntu\r\n".encode("utf-16-le")) == "默认分发: Ubuntu\n"


def test_utf8_with_wsl_utf8() -> None:
    assert decode_wsl_output("Ubuntu\nDébian\n".encode()) == "Ubuntu\nDébian\n"


def test_boms() -> None:
    assert decode_wsl_output(codecs.BOM_UTF16_LE + "x\r\n".encode("utf-16-le")) == "x\n"
    assert decode_wsl_output(codecs.BOM_UTF8 + b"y\n") == "y\n"


def test_garbage_never_raises() -> None:
    assert isinstance(decode_wsl_output(b"\xff\xfe\xff"), str)
    assert decode_wsl_output(b"") == ""


text_no_nul = st.text(alphabet=st.characters(blacklist_characters="\x00\r", blacklist_categories=("Cs",)))


@given(text_no_nul)
def test_any_utf8_text_round_trips(text: str) -> None:
    assert decode_wsl_output(text.encode("utf-8")) == text


@given(text_no_nul)
def test_any_utf16_text_with_bom_round_trips(text: str) -> None:
    assert decode_wsl_output(codecs.BOM_UTF16_LE + text.encode("utf-16-le")) == text


@given(st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), min_size=1))
def test_ascii_utf16_without_bom_round_trips(text: str) -> None:
    assert decode_wsl_output(text.encode("utf-16-le")) == text
