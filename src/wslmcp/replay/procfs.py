"""Replay check for recorded /proc timelines: every sample replays byte-identically and parses."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from wslmcp.scenario.checks import CheckResult
from wslmcp.scenario.loader import Scenario, sample_digest
from wslmcp.wiring.replay import replaying


def check(scenario: Scenario, spec: Mapping[str, Any]) -> CheckResult:
    run = replaying(scenario)
    clock, source = run.clock, run.boundaries.procfs
    entries = [e for e in scenario.timeline if "procfs" in e.data]
    if not entries:
        return CheckResult("procfs-replay", False, "the timeline holds no /proc sample")
    processes = 0
    for entry in entries:
        clock.advance(entry.t_ms / 1000 - clock.monotonic())
        sample = source.read_sample()
        recorded = entry.data["procfs"].get("sha256")
        if recorded is not None and sample_digest(sample) != recorded:
            return CheckResult(
                "procfs-replay", False, f"sample t={entry.t_ms} ms differs from its recorded digest"
            )
        if not sample.files.get("stat", b"").startswith(b"cpu "):
            return CheckResult("procfs-replay", False, f"sample t={entry.t_ms} ms has no aggregate cpu line")
        for pid in sample.pids:
            stat = sample.files.get(f"{pid}/stat")
            if stat is not None and not stat.startswith(f"{pid} (".encode()):
                return CheckResult(
                    "procfs-replay", False, f"sample t={entry.t_ms} ms: {pid}/stat is malformed"
                )
        processes = max(processes, len(sample.pids))
    return CheckResult(
        "procfs-replay", True, f"{len(entries)} samples, up to {processes} processes, digests match"
    )
