"""How wsl.exe (and wslc.exe, which prints through the same code) encodes its own messages.

Pure functions on bytes, importable by the domain without the process-spawning adapters.
"""

from __future__ import annotations

import codecs


def decode_wsl_output(data: bytes) -> str:
    """Decode wsl.exe's own output, which is UTF-16LE on most builds and UTF-8 with ``WSL_UTF8=1``.

    Whole-buffer detection: a BOM decides; otherwise a buffer whose odd bytes are mostly NUL is
    UTF-16LE (ASCII-heavy text, the common case), as is one whose length is even and that decodes as
    UTF-16LE while failing as UTF-8. Undecodable bytes are replaced, never raised. Windows line
    endings (including the ``\\r\\r\\n`` some builds write) become ``\\n``.
    """
    if wsl_output_encoding(data) == "utf-16le":
        data = data.removeprefix(codecs.BOM_UTF16_LE)
        text = data[: len(data) - len(data) % 2].decode("utf-16-le", errors="replace")
    else:
        text = data.removeprefix(codecs.BOM_UTF8).decode("utf-8", errors="replace")
    return text.replace("\r\r\n", "\n").replace("\r\n", "\n").replace("\x00", "")


def wsl_output_encoding(data: bytes) -> str:
    """``"utf-16le"`` or ``"utf-8"``: how wsl.exe wrote ``data`` (its own messages), by the rules of
    ``decode_wsl_output``."""
    if data.startswith(codecs.BOM_UTF16_LE):
        return "utf-16le"
    if data.startswith(codecs.BOM_UTF8):
        return "utf-8"
    return "utf-16le" if _looks_utf16le(data) else "utf-8"


def _looks_utf16le(data: bytes) -> bool:
    if len(data) < 2:
        return False
    odd = data[1::2]
    if odd.count(0) * 2 >= len(odd):
        return True
    if len(data) % 2:
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        try:
            data.decode("utf-16-le")
        except UnicodeDecodeError:
            return False
        return True
    return False
