"""Observe figures of earlier versions, read as today's.

A scenario keeps the answers observe gave when it was recorded, and a bundled agent trace keeps the
answers the agent read. When a figure's formula changes for the better, those answers still state
it the earlier way: where today's figure lies within what the change can move it, it reads as the
recorded one (``as_recorded``), and anything else still differs.

``RECLOCKED``: the WSL kernel's CPU was a rate over ``/proc/uptime``, read apart from
``/proc/stat`` and kept to 10 ms, so a busy kernel could read 101 %; it is now measured on the
counters' own clock (``observe.procstat.kernel_cpu_percent``). Each window's figure moves by at
most two 10 ms steps over the window (2 points of a percent over a 1 s window), and the CPU
seconds a history leaves unattributed (that figure times the sampled time, less the processes') by
a fraction of a second over the bundled recordings.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

RECLOCKED_PERCENT = 2.0  # points of a percent
RECLOCKED_SECONDS = 0.5  # CPU seconds

#: answer paths (keys from the top of the answer) of the figures measured on another clock before
RECLOCKED: dict[tuple[str, ...], float] = {
    ("data", "environments", "wsl", "cpu_percent"): RECLOCKED_PERCENT,  # get_system_summary
    ("usage", "wsl", "cpu_percent", "avg"): RECLOCKED_PERCENT,  # get_history
    ("usage", "wsl", "cpu_percent", "p95"): RECLOCKED_PERCENT,
    ("usage", "wsl", "cpu_percent", "max"): RECLOCKED_PERCENT,
    ("unattributed", "wsl_cpu_seconds"): RECLOCKED_SECONDS,
}
RECLOCKED_SERIES = ("wsl.cpu_percent",)  # get_metric_series: every value of these metrics


def as_recorded(recorded: Any, today: Any) -> Any:
    """``today``'s answer with each reclocked figure that lies within its bound of ``recorded``'s
    replaced by the recorded one (everything else as it is)."""
    if not isinstance(recorded, Mapping) or not isinstance(today, Mapping):
        return today
    out = dict(today)
    for path, bound in RECLOCKED.items():
        _settle(recorded, out, path, bound)
    if out.get("metric") in RECLOCKED_SERIES and recorded.get("metric") == out.get("metric"):
        was, now = recorded.get("values"), out.get("values")
        if isinstance(was, list) and isinstance(now, list) and len(was) == len(now):
            out["values"] = [_near(w, n, RECLOCKED_PERCENT) for w, n in zip(was, now, strict=True)]
    return out


def _settle(recorded: Mapping[str, Any], today: dict[str, Any], path: tuple[str, ...], bound: float) -> None:
    """Replace the figure at ``path`` in ``today`` (copying the dicts on the way) when near enough."""
    key, rest = path[0], path[1:]
    was, now = recorded.get(key), today.get(key)
    if not rest:
        today[key] = _near(was, now, bound)
    elif isinstance(was, Mapping) and isinstance(now, Mapping):
        today[key] = dict(now)
        _settle(was, today[key], rest, bound)


def _near(was: Any, now: Any, bound: float) -> Any:
    numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (was, now))
    return was if numbers and abs(was - now) <= bound else now
