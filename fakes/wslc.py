"""wslc.exe replayed from a scenario's recorded exchanges (``exchanges.wslc``), and its recorder.

The format is wsl.exe's (``wslmcp.fakes.wsl_exe``): ``args``, raw ``stdout``/``stderr`` files with their
declared encodings (``utf-8`` or ``utf-16le``: wslc prints like wsl.exe), ``exit_code``,
``duration_ms``, ``timed_out``; plus ``{"args": [...], "absent": true}`` for a host where wslc.exe
is not installed (replayed as the real adapter's ``FileNotFoundError``). A scenario with no
``exchanges.wslc`` at all was recorded on a host without wslc.exe: every run is that same error.
"""

from __future__ import annotations

from collections.abc import Sequence

from wslmcp.boundaries.process import Exchange
from wslmcp.boundaries.wsl_exe import WslCall
from wslmcp.boundaries.wslc_cli import WslcCli
from wslmcp.fakes.wsl_exe import FakeWslExe, RecordingWslExe
from wslmcp.scenario.exchanges import ProcessExchange
from wslmcp.scenario.loader import Scenario
from wslmcp.scenario.recorder import ScenarioWriter

ABSENT = "wslc.exe is not installed (as recorded)"


class _WslcExchanges(FakeWslExe):
    boundary = "wslc"
    executable = "wslc.exe"


class _WslcRecorder(RecordingWslExe):
    boundary = "wslc"


class FakeWslc:
    """Answers args that match a recorded exchange, in recorded order (the last repeats); a
    scenario without wslc exchanges has no wslc.exe; anything else is a ``ReplayMiss``."""

    def __init__(self, scenario: Scenario) -> None:
        self._items = scenario.process_exchanges(_WslcExchanges.boundary)
        self._exchanges = _WslcExchanges(scenario)

    async def run(self, args: Sequence[str], *, timeout_s: float | None = None) -> Exchange:
        if not self._items or any(item.args == tuple(args) and item.absent for item in self._items):
            raise FileNotFoundError(ABSENT)
        return await self._exchanges.run(WslCall(args, timeout_s=timeout_s))


class RecordingWslc:
    """Record mode: every wslc.exe exchange of the wrapped ``WslcCli`` goes into ``exchanges.wslc``;
    a host without wslc.exe is recorded as such."""

    def __init__(self, inner: WslcCli, writer: ScenarioWriter) -> None:
        self.inner, self.writer = inner, writer
        self._recorder = _WslcRecorder(inner.exe, writer)

    async def run(self, args: Sequence[str], *, timeout_s: float | None = None) -> Exchange:
        if not self.inner.found:
            self.writer.add_exchange(_WslcRecorder.boundary, ProcessExchange(tuple(args), absent=True))
            raise FileNotFoundError(ABSENT)
        return await self._recorder.run(WslCall(args, timeout_s=timeout_s))
