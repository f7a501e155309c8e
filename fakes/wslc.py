"""wslc.exe replayed from a scenario's recorded exchanges (``exchanges.wslc``), and its recorder.

The format is wsl.exe's (``fakes.wsl_exe``): ``args``, raw ``stdout``/``stderr`` files with their
declared encodings (``utf-8`` or ``utf-16le``: wslc prints like wsl.exe), ``exit_code``,
``duration_ms``, ``timed_out``; plus ``{"args": [...], "absent": true}`` for a host where wslc.exe
is not installed (replayed as the real adapter's ``FileNotFoundError``). A scenario with no
``exchanges.wslc`` at all was recorded on a host without wslc.exe: every run is that same error.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fakes.wsl_exe import FakeWslExe
from wslmcp.boundaries.process import Exchange
from wslmcp.boundaries.wslc_cli import WslcCli
from wslmcp.scenario.recorder import RecordingWslExe

ABSENT = "wslc.exe is not installed (as recorded)"


class FakeWslc(FakeWslExe):
    """Answers args that match a recorded exchange, in recorded order (the last repeats); a
    scenario without wslc exchanges has no wslc.exe; anything else is a ``ReplayMiss``."""

    boundary = "wslc"
    executable = "wslc.exe"

    async def run(self, args: Sequence[str], *, timeout_s: float | None = None, **kwargs: Any) -> Exchange:
        if not self._items or any(item["args"] == list(args) and item.get("absent") for item in self._items):
            raise FileNotFoundError(ABSENT)
        return await super().run(args, timeout_s=timeout_s, **kwargs)


class RecordingWslc(RecordingWslExe):
    """Record mode: every wslc.exe exchange of the wrapped ``WslcCli`` goes into ``exchanges.wslc``;
    a host without wslc.exe is recorded as such."""

    boundary = "wslc"

    async def run(self, args: Sequence[str], *, timeout_s: float | None = None, **kwargs: Any) -> Exchange:
        if isinstance(self.inner, WslcCli) and not self.inner.found:
            self.writer.add_exchange(self.boundary, {"args": list(args), "absent": True})
            raise FileNotFoundError(ABSENT)
        return await super().run(args, timeout_s=timeout_s, **kwargs)
