"""The recorded history scenarios replayed on their virtual clock (the sampler walks the timeline up
to the first request, as it would have run on the machine): what each exists to show."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from wslmcp.replay.observe import run
from wslmcp.scenario.loader import Scenario

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"


@functools.cache
def answers(name: str) -> list[dict[str, Any]]:
    return run(Scenario.load(SCENARIOS / name))


def result(name: str, call: int) -> Any:
    return answers(name)[call - 1]["result"]


def by_name(payload: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {e["name"]: e for e in payload["top"]}


def test_a_build_that_ended_before_the_first_call_is_still_in_the_history() -> None:
    history = result("history-build", 1)
    cc1 = by_name(history)["cc1"]
    assert cc1["alive"] is False and cc1["last_seen_s_ago"] > 0 and cc1["cpu_seconds"] > 1
    assert cc1["processes"] >= 2  # one compiler per unit, several at once: grouped by name
    assert history["history"]["samples"] >= 6 and history["history"]["before_server_start"] is True
    # most compilers began and ended between two samples: make, which waited for them, carries them
    make = next(e for e in history["top"] if e["name"] == "make")
    assert (
        make["kind"] == "exited_children"
        and make["alive"] is False
        and make["cpu_seconds"] > cc1["cpu_seconds"]
    )
    accounted = sum(e["cpu_seconds"] for e in history["top"])
    assert abs(history["unattributed"]["wsl_cpu_seconds"]) < 0.05 * accounted  # nothing of the build lost
    processes = result("history-build", 2)["top"]
    assert all(e["kind"] in ("process", "infra", "exited_children") and "pid" in e for e in processes)
    assert all(("resource_id" in e) == e["alive"] for e in processes)  # the living, in the latest snapshot
    series = result("history-build", 3)
    assert len(series["values"]) == 18 and any(v is not None for v in series["values"])
    now = result("history-build", 4)["data"]
    assert now["environments"]["wsl"]["cpu_percent"] is not None  # the collection pairs two recorded samples
    unknown = answers("history-build")[5]
    assert unknown["is_error"] is True and unknown["result"]["error"]["code"] == "unknown_metric"


def test_a_memory_ballast_on_a_host_with_memory_to_spare() -> None:
    pressure = result("history-ballast", 1)["data"]["pressure"]["memory"]
    assert pressure["linux_available_bytes"] > 0.5 * pressure["linux_total_bytes"]
    assert pressure["swap_in_bytes_per_s"] == 0 and pressure["swap_out_bytes_per_s"] == 0
    assert pressure["psi_full_avg10"] is not None and pressure["psi_full_avg10"] < 10
    top = result("history-ballast", 2)["top"][0]
    assert top["name"] == "ballast" and top["peak_memory_bytes"] >= 3 << 30 and top["alive"] is True
    process = result("history-ballast", 3)["top"][0]
    inspected = result("history-ballast", 4)["data"]
    assert inspected["usage"]["pid"] == process["pid"] and inspected["usage"]["name"] == "ballast"
    swap = result("history-ballast", 6)
    assert all(v in (None, 0) for v in swap["values"]) and any(v == 0 for v in swap["values"])


def test_an_idle_recording_has_history_and_no_event_of_ours() -> None:
    history = result("history-idle", 1)
    assert history["history"]["samples"] >= 2 and history["history"]["gaps"] == []
    assert not any(e["name"] in ("cc1", "ballast") for e in history["top"])
