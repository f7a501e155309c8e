"""wsl.exe as a boundary.

Contract
--------
``run(args, stdin=None, timeout_s=None, max_output=...) -> Exchange``
    Runs ``wsl.exe`` with ``args`` (everything after the executable name, e.g.
    ``["-d", "Ubuntu", "-u", "dev", "--exec", "bash", "-lc", SCRIPT]``). stdin is closed unless
    bytes are given. ``WSL_UTF8=1`` is set, so wsl.exe's own messages are UTF-8 where the build
    honours it; older builds write UTF-16LE, so callers decode wsl.exe's *own* output with
    ``decode_wsl_output``. Output of the Linux command itself passes through untouched (bytes).
    A non-zero exit is a normal result. On the deadline the process is killed and
    ``timed_out`` is set (killing what runs *inside* the distro is the caller's job).
Errors
    ``FileNotFoundError`` when wsl.exe is not on PATH.

Fakes replay recorded exchanges keyed by the exact args and a digest of stdin
(``fakes.wsl_exe.FakeWslExe``). On Linux CI the real adapter runs against a ``wsl.exe`` stand-in
script placed on PATH.
"""

from __future__ import annotations

import codecs
import shutil
from collections.abc import Sequence
from typing import Protocol

from wslmcp.boundaries.process import Exchange, run_process


class WslExe(Protocol):
    async def run(
        self,
        args: Sequence[str],
        *,
        stdin: bytes | None = None,
        timeout_s: float | None = None,
        max_output: int = 16 * 1024 * 1024,
    ) -> Exchange: ...


class WslExeCli:
    """The real wsl.exe, found on PATH (or at an explicit path).

    ``kill_on_overflow``: kill wsl.exe as soon as a stream passes ``max_output`` (the exchange's
    ``overflowed`` is set), instead of draining a runaway writer until the deadline.
    """

    def __init__(self, executable: str = "wsl.exe", *, kill_on_overflow: bool = False) -> None:
        self.executable = executable
        self.kill_on_overflow = kill_on_overflow

    def available(self) -> bool:
        return shutil.which(self.executable) is not None

    async def run(
        self,
        args: Sequence[str],
        *,
        stdin: bytes | None = None,
        timeout_s: float | None = None,
        max_output: int = 16 * 1024 * 1024,
    ) -> Exchange:
        return await run_process(
            [self.executable, *args],
            stdin=stdin,
            timeout_s=timeout_s,
            max_output=max_output,
            env={"WSL_UTF8": "1"},
            kill_on_overflow=self.kill_on_overflow,
        )


def decode_wsl_output(data: bytes) -> str:
    """Decode wsl.exe's own output, which is UTF-16LE on most builds and UTF-8 with ``WSL_UTF8=1``.

    Whole-buffer detection: a BOM decides; otherwise a buffer whose odd bytes are mostly NUL is
    UTF-16LE (ASCII-heavy text, the common case), as is one whose length is even and that decodes as
    UTF-16LE while failing as UTF-8. Undecodable bytes are replaced, never raised. Windows line
    endings (including the ``\\r\\r\\n`` some builds write) become ``\\n``.
    """
    if data.startswith(codecs.BOM_UTF16_LE):
        text = data[2:].decode("utf-16-le", errors="replace")
    elif data.startswith(codecs.BOM_UTF8):
        text = data[3:].decode("utf-8", errors="replace")
    elif _looks_utf16le(data):
        text = data[: len(data) - len(data) % 2].decode("utf-16-le", errors="replace")
    else:
        text = data.decode("utf-8", errors="replace")
    return text.replace("\r\r\n", "\n").replace("\r\n", "\n").replace("\x00", "")


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
