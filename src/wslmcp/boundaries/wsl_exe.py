"""wsl.exe as a boundary.

Contract
--------
``run(WslCall(args, stdin=None, timeout_s=None, max_output=..., stdout_sink=None)) -> Exchange``
    Runs ``wsl.exe`` with ``args`` (everything after the executable name, e.g.
    ``["-d", "Ubuntu", "-u", "dev", "--exec", "bash", "-lc", SCRIPT]``). stdin is closed unless
    bytes, a ``ByteSource`` streamed a piece at a time, or a ``ByteStream`` fed as it comes, are
    given (``merge_stderr`` and ``looks``: see ``process.Streams``); ``stdout_sink`` receives
    stdout as it arrives instead of the exchange keeping it (bounded memory for transfers).
    ``WslCall`` is the one request value: the real adapter, the twin and the recorder all take it.
    ``WSL_UTF8=1`` is set, so wsl.exe's own messages are UTF-8 where the build honours it;
    older builds write UTF-16LE, so callers decode wsl.exe's *own* output with
    ``decode_wsl_output``. Output of the Linux command itself passes through untouched (bytes).
    A non-zero exit is a normal result. On the deadline the process is killed and
    ``timed_out`` is set (killing what runs *inside* the distro is the caller's job).
Errors
    ``FileNotFoundError`` when wsl.exe is not on PATH.

Fakes replay recorded exchanges keyed by the exact args and a digest of stdin
(``wslmcp.fakes.wsl_exe.FakeWslExe``). On Linux CI the real adapter runs against a ``wsl.exe`` stand-in
script placed on PATH.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Protocol

from wslmcp.boundaries.process import Exchange, Streams, run_process
from wslmcp.boundaries.wsl_output import decode_wsl_output, wsl_output_encoding

__all__ = ["WSL_OWN_FAILURE", "WslCall", "WslExe", "WslExeCli", "decode_wsl_output", "wsl_output_encoding"]

# The exit status wsl.exe reports for a failure of its own (unknown distro, WSL service down), as
# an unsigned or a signed 32-bit value.
WSL_OWN_FAILURE = (4294967295, -1)


@dataclass(frozen=True)
class WslCall(Streams):
    """One wsl.exe invocation: ``args`` after the executable name (kept as a tuple), and how its
    streams are handled (``Streams``)."""

    args: Sequence[str]

    def __post_init__(self) -> None:
        object.__setattr__(self, "args", tuple(self.args))

    @classmethod
    def of(cls, args: Sequence[str], streams: Streams) -> WslCall:
        """``args`` run with the streams of another request (a transport's script call)."""
        return cls(args, **{f.name: getattr(streams, f.name) for f in fields(Streams)})


class WslExe(Protocol):
    async def run(self, call: WslCall) -> Exchange: ...


class WslExeCli:
    """The real wsl.exe, found on PATH (or at an explicit path).

    ``kill_on_overflow``: kill wsl.exe as soon as a stream passes ``max_output`` (the exchange's
    ``overflowed`` is set), instead of draining a runaway writer until the deadline.
    """

    def __init__(self, executable: str = "wsl.exe", *, kill_on_overflow: bool = False) -> None:
        self.executable = executable
        self.kill_on_overflow = kill_on_overflow

    async def run(self, call: WslCall) -> Exchange:
        return await run_process(
            [self.executable, *call.args], call, env={"WSL_UTF8": "1"}, kill_on_overflow=self.kill_on_overflow
        )
