"""/proc replayed from a scenario's timeline, following a clock; and recorded into one
(``RecordingProcSource``, with its redaction of command lines)."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from wslmcp.boundaries.clock import Clock
from wslmcp.boundaries.procfs import Mount, ProcSample, ProcSource, mount_of, parse_mounts
from wslmcp.fakes.replay import ReplayMiss
from wslmcp.scenario.loader import Scenario, TimelineEntry
from wslmcp.scenario.recorder import ScenarioWriter


class FakeProcSource:
    """Serves the sample whose time window holds the clock's time.

    Sample *i* is current from its ``t_ms`` until the next sample's; the last one only until
    ``t_ms + hold_last_ms``. Time is the clock's monotonic time in ms since the scenario's start
    (the clock starts at 0 in replay wiring). A read outside every window is a ``ReplayMiss``.
    """

    def __init__(self, scenario: Scenario, clock: Clock) -> None:
        self._scenario = scenario
        self._clock = clock
        self._entries = [e for e in scenario.timeline if "procfs" in e.data]
        self._cache: dict[int, ProcSample] = {}

    def read_sample(self, light_for: Collection[int] = ()) -> ProcSample:
        """The recorded sample (whole: ``light_for`` leaves nothing out of a recording)."""
        now_ms = round(self._clock.monotonic() * 1000.0, 6)  # ms, free of float noise
        entry = self._entry_at(now_ms)
        if entry.index not in self._cache:
            self._cache[entry.index] = self._scenario.procfs_sample(entry)
        return self._cache[entry.index]

    def _entry_at(self, now_ms: float) -> TimelineEntry:
        for i, entry in enumerate(self._entries):
            end = (
                self._entries[i + 1].t_ms
                if i + 1 < len(self._entries)
                else entry.t_ms + self._scenario.hold_last_ms + 0.001
            )
            if entry.t_ms <= now_ms < end:
                return entry
        last = self._entries[-1].t_ms if self._entries else None
        offered = [f"t={e.t_ms} ms" for e in self._entries]
        if last is not None:
            offered.append(f"(the last sample is held until t={last + self._scenario.hold_last_ms} ms)")
        raise ReplayMiss("procfs", self._scenario.name, f"a /proc sample at t={now_ms:.0f} ms", offered)


def redact_cmdlines(sample: ProcSample) -> ProcSample:
    """Keep only argv[0] of every command line (arguments and inline environments can hold
    secrets), and of every working directory only the mount point it lies on (a project's path
    says more than the sample needs; whether it is on a Windows drive survives)."""
    mounts = parse_mounts(sample.files.get("mounts"))
    files = {path: _redacted(path, data, mounts) for path, data in sample.files.items()}
    return ProcSample.build(files, clk_tck=sample.clk_tck, page_size=sample.page_size)


def _redacted(path: str, data: bytes, mounts: Sequence[Mount]) -> bytes:
    if path.endswith("/cmdline") and data:
        return data.split(b"\0", 1)[0] + b"\0"
    if path.endswith("/cwd"):
        found = mount_of(data, mounts)
        return found.point if found is not None else b"/"
    return data


class RecordingProcSource:
    """A ``ProcSource`` that writes every sample it hands out into a scenario, and hands it out as its
    twin will: whole (a replay answers every read with the whole sample), redacted as written, and
    one sample per instant (a second read at the time of the last one gets that sample again)."""

    def __init__(self, inner: ProcSource, writer: ScenarioWriter) -> None:
        self._inner = inner
        self._writer = writer
        self._last: tuple[int, ProcSample] | None = None

    def read_sample(self, light_for: Collection[int] = ()) -> ProcSample:
        return self.read_at(self._writer.now_ms(), light_for)

    def read_at(self, t_ms: int, light_for: Collection[int] = ()) -> ProcSample:
        """A sample recorded as taken at ``t_ms`` (a schedule's time: the read begins then)."""
        if self._last is not None and self._last[0] == t_ms:
            return self._last[1]
        sample = self._inner.read_sample()
        if not self._writer.keep_cmdlines:
            sample = redact_cmdlines(sample)  # what the replay will read, so what the caller reads now
        self._writer.add_procfs(sample, t_ms)
        self._last = (t_ms, sample)
        return sample
