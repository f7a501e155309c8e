"""The scenario sections that describe a host or a server's run, validated strictly.

Wiring reads the host parts (observe's ``platform``, ``distro``, ``wsl_interop`` and ``host``;
shell's ``env``); the replay layer reads the rest (``args``, ``calls``). No server area reads them.

The ``observe`` section:

```
"observe": {
  "args": ["--no-docker"],          startup options a replay runs with (``wslmcp observe --replay``,
                                    the checks, ``wslmcp eval``); a recording made before its
                                    manifest stated them gets them from what it holds
                                    (``recorded_sources``)
  "platform": "linux" | "windows",  where the server ran (windows: the primary is read via wsl.exe)
  "distro": "Ubuntu",               the local distribution's name (WSL_DISTRO_NAME)
  "wsl_interop": true,              wsl.exe was reachable (additional distros are listed)
  "host": {                         host facts a scenario states instead of Windows collectors
    "logical_cpus": 16,
    "cpu_breakdown": {"total": 25.1, "windows": 3.2, "virtual_machines": 21.4, "other": 0.5},
    "memory": {"total_bytes": 34359738368, "available_bytes": 6120328192}
  },
  "calls": [ {"tool": ..., "arguments": {...}, "expected": "expected/01.json"} ... ],
  "first_request_ms": 90000         the virtual time of the first request: the server started at
                                    t=0 and kept history until then (none when absent)
}
```
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from wslmcp.boundaries.host_facts import BREAKDOWN_KEYS, HostFacts, HostMemory
from wslmcp.boundaries.mcp_session import RecordedCall, ToolAnswer
from wslmcp.scenario.loader import Scenario
from wslmcp.scenario.manifest import MANIFEST_NAME, ScenarioError

KEYS = {"args", "platform", "distro", "wsl_interop", "host", "calls", "first_request_ms"}


@dataclass(frozen=True)
class ObserveSection:
    args: tuple[str, ...]
    platform: str
    distro: str | None
    wsl_interop: bool
    host: HostFacts | None
    calls: tuple[Mapping[str, Any], ...]
    first_request_ms: int | None = None


def read_section(scenario: Scenario) -> ObserveSection:
    file = scenario.root / MANIFEST_NAME
    raw = scenario.manifest.get("observe", {})

    def fail(key: str, expected: str, got: object = None) -> ScenarioError:
        return ScenarioError(file, f"observe.{key}" if key else "observe", expected, got)

    if not isinstance(raw, dict):
        raise fail("", "an object", raw)
    unknown = sorted(set(raw) - KEYS)
    if unknown:
        raise fail(unknown[0], f"one of {', '.join(sorted(KEYS))}")
    args = raw.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise fail("args", "a list of strings", args)
    platform = raw.get("platform", "linux")
    if platform not in ("linux", "windows"):
        raise fail("platform", '"linux" or "windows"', platform)
    distro = raw.get("distro")
    if distro is not None and (not isinstance(distro, str) or not distro):
        raise fail("distro", "a non-empty string", distro)
    interop = raw.get("wsl_interop", False)
    if not isinstance(interop, bool):
        raise fail("wsl_interop", "true or false", interop)
    calls = raw.get("calls", [])
    if not isinstance(calls, list) or not all(
        isinstance(c, dict) and isinstance(c.get("tool"), str) for c in calls
    ):
        raise fail("calls", 'a list of {"tool": ..., "arguments": {...}, "expected": FILE}', calls)
    first = raw.get("first_request_ms")
    if first is not None and (isinstance(first, bool) or not isinstance(first, int) or first < 0):
        raise fail("first_request_ms", "an integer >= 0", first)
    return ObserveSection(
        args=tuple(args) + recorded_sources(scenario, args),
        platform=platform,
        distro=distro,
        wsl_interop=interop,
        host=_host(raw["host"], fail) if "host" in raw else None,
        calls=tuple(calls),
        first_request_ms=first,
    )


def recorded_sources(scenario: Scenario, args: Sequence[str]) -> tuple[str, ...]:
    """The options a recording made before its manifest stated them needs, read from what it holds
    (a recording holds exactly what was recorded): the interval its /proc samples were taken at, and
    no collector for a container engine it holds no answer of. Nothing for a hand-written scenario
    (its ``args`` say what it means) or for what ``args`` state."""
    if scenario.manifest.get("source") != "recorded":
        return ()
    derived: list[str] = []
    times = [e.t_ms for e in scenario.timeline if "procfs" in e.data]
    if len(times) >= 2 and not any(a.split("=", 1)[0] == "--interval-ms" for a in args):
        gap = min(b - a for a, b in itertools.pairwise(times))
        derived += ["--interval-ms", str(gap)]
    exchanges = scenario.manifest.get("exchanges", {})
    for flag, boundary in (("--no-docker", "docker_api"), ("--no-wslc", "wslc")):
        if flag not in args and not exchanges.get(boundary):
            derived.append(flag)
    return tuple(derived)


def _host(raw: object, fail: Callable[..., ScenarioError]) -> HostFacts:
    if not isinstance(raw, dict):
        raise fail("host", "an object", raw)
    cpus = raw.get("logical_cpus")
    if isinstance(cpus, bool) or not isinstance(cpus, int) or cpus < 1:
        raise fail("host.logical_cpus", "an integer >= 1", cpus)
    breakdown = raw.get("cpu_breakdown")
    if breakdown is not None:
        if not isinstance(breakdown, dict) or set(breakdown) != set(BREAKDOWN_KEYS):
            raise fail("host.cpu_breakdown", f"an object with {', '.join(BREAKDOWN_KEYS)}", breakdown)
        if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in breakdown.values()):
            raise fail("host.cpu_breakdown", "numbers", breakdown)
    memory = raw.get("memory")
    mem = None
    if memory is not None:
        if not isinstance(memory, dict) or not all(
            isinstance(memory.get(k), int) and memory[k] >= 0 for k in ("total_bytes", "available_bytes")
        ):
            raise fail("host.memory", "total_bytes and available_bytes as integers >= 0", memory)
        mem = HostMemory(memory["total_bytes"], memory["available_bytes"])
    return HostFacts(
        logical_cpus=cpus,
        cpu_breakdown={k: float(v) for k, v in breakdown.items()} if breakdown is not None else None,
        memory=mem,
    )


SHELL_ENV_BEFORE = {"WSL_APPROVALS": "never", "WSL_SANDBOX": "off"}
"""What a ``shell.env`` recorded before a variable existed leaves out, and how its server ran: before
approvals no person was ever asked, before recordings stated their sandbox it was off by default (a
recording writes ``WSL_APPROVALS`` and ``WSL_SANDBOX`` since)."""


def shell_env(scenario: Scenario) -> dict[str, str]:
    """The shell server's recorded environment (``shell.env``), so a replay serves as recorded (what
    a recording made before a variable existed leaves out: ``SHELL_ENV_BEFORE``)."""
    env = scenario.section("shell").get("env", {})
    recorded = {str(k): str(v) for k, v in env.items()} if isinstance(env, Mapping) else {}
    return {**SHELL_ENV_BEFORE, **recorded}


def shell_transport(scenario: Scenario) -> tuple[str, str | None]:
    """The transport a shell scenario was recorded over (``shell.transport``: its kind, and for the
    local transport the user who ran the scripts); ``("wsl.exe", None)`` when it does not say."""
    stated = scenario.section("shell").get("transport", {})
    kind, user = stated.get("kind", "wsl.exe"), stated.get("user")
    return str(kind), user if isinstance(user, str) else None


def session_calls(scenario: Scenario) -> tuple[RecordedCall, ...]:
    """The calls of the agent session the scenario was recorded from (``eval.session.calls``: each
    ``{"n", "tool", "arguments", "answer": FILE}`` or ``{"n", "tool", "arguments", "skipped": WHY}``),
    none for another scenario. Raises ``ScenarioError`` naming the key."""
    file = scenario.root / MANIFEST_NAME
    raw = scenario.section("eval").get("session")
    if raw is None:
        return ()
    calls = raw.get("calls") if isinstance(raw, dict) else None
    if not isinstance(calls, list):
        raise ScenarioError(file, "eval.session.calls", "a list of recorded calls", calls)
    out = []
    for i, item in enumerate(calls):
        key = f"eval.session.calls[{i}]"
        if not (
            isinstance(item, dict) and isinstance(item.get("n"), int) and isinstance(item.get("tool"), str)
        ):
            raise ScenarioError(file, key, '{"n", "tool", "arguments", "answer" or "skipped"}', item)
        answer = None
        if isinstance(item.get("answer"), str):
            try:
                answer = ToolAnswer.from_json(
                    json.loads(scenario.file(item["answer"]).read_text(encoding="utf-8"))
                )
            except (OSError, ValueError, KeyError, TypeError) as exc:
                raise ScenarioError(
                    file, f"{key}.answer", f"a recorded answer ({exc})", item["answer"]
                ) from None
        elif not isinstance(item.get("skipped"), str):
            raise ScenarioError(file, key, 'an "answer" file or why it was "skipped"', item)
        out.append(
            RecordedCall(item["n"], item["tool"], item.get("arguments", {}), answer, item.get("skipped"))
        )
    return tuple(out)
