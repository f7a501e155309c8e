"""wslc.exe replayed from a scenario's recorded exchanges (``exchanges.wslc``), and its recorder.

The format is wsl.exe's (``fakes.wsl_exe``): ``args``, raw ``stdout``/``stderr`` files with their
declared encodings (``utf-8`` or ``utf-16le``: wslc prints like wsl.exe), ``exit_code``,
``duration_ms``, ``timed_out``.
"""

from __future__ import annotations

from fakes.wsl_exe import FakeWslExe
from wslmcp.scenario.recorder import RecordingWslExe


class FakeWslc(FakeWslExe):
    """Answers args that match a recorded exchange, in recorded order (the last repeats);
    anything else is a ``ReplayMiss`` naming the wslc boundary."""

    boundary = "wslc"
    executable = "wslc.exe"


class RecordingWslc(RecordingWslExe):
    """Record mode: every wslc.exe exchange of the wrapped ``WslcCli`` goes into ``exchanges.wslc``."""

    boundary = "wslc"
