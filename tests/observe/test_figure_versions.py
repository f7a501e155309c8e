"""Answers recorded before a figure's formula changed read as today's only within what the change
can move the figure (``scenario.figure_versions``): a larger difference still differs."""

from __future__ import annotations

from wslmcp.scenario.figure_versions import RECLOCKED_PERCENT, RECLOCKED_SECONDS, as_recorded


def test_a_reclocked_figure_reads_as_recorded_within_its_bound_only() -> None:
    recorded = {"usage": {"wsl": {"cpu_percent": {"avg": 99.3, "p95": 99.5, "max": 99.8}}}, "top": [1]}
    today = {
        "usage": {"wsl": {"cpu_percent": {"avg": 99.4, "p95": 99.5, "max": 99.8 + 2 * RECLOCKED_PERCENT}}}
    }
    today |= {"top": [2], "unattributed": {"wsl_cpu_seconds": 1.9}}
    got = as_recorded({**recorded, "unattributed": {"wsl_cpu_seconds": 1.82}}, today)
    assert got["usage"]["wsl"]["cpu_percent"] == {
        "avg": 99.3,
        "p95": 99.5,
        "max": 99.8 + 2 * RECLOCKED_PERCENT,
    }
    assert got["unattributed"] == {"wsl_cpu_seconds": 1.82} and got["top"] == [2]  # the rest as it is
    far = as_recorded({"unattributed": {"wsl_cpu_seconds": 0.0}}, {"unattributed": {"wsl_cpu_seconds": 1.0}})
    assert far["unattributed"]["wsl_cpu_seconds"] == 1.0 > RECLOCKED_SECONDS
    assert today["usage"]["wsl"]["cpu_percent"]["avg"] == 99.4  # today's answer is not changed in place


def test_a_series_of_wsl_cpu_reads_as_recorded_and_another_metric_does_not() -> None:
    was = {"metric": "wsl.cpu_percent", "values": [None, 99.7, 40.45]}
    now = {"metric": "wsl.cpu_percent", "values": [None, 99.75, 60.0]}
    assert as_recorded(was, now)["values"] == [None, 99.7, 60.0]
    other = {"metric": "memory.psi_some_avg10", "values": [1.0]}
    assert as_recorded(other, {**other, "values": [1.5]})["values"] == [1.5]
