"""Replay check ``shell-exchanges``: a scenario's recorded wsl.exe exchanges drive the real shell
server (config, guard, runner, service and MCP tool layer), called through the SDK client in
process; every tool call's reply must equal the expected reply stored in the scenario.

Scenario section ``shell``::

    "shell": {
      "env": {"WSL_DISTRO": "Ubuntu", ...},          # the server's environment
      "calls": [
        {"tool": "wsl_exec", "args": {...}, "advance_s": 0, "expected": "expected/03.json"}
      ]
    }

``expected`` files hold ``{"is_error": bool, "text": str}`` (their text read through
``EARLIER_REPLY_PARTS``: a wording an earlier version gave the same facts). ``advance_s`` moves the scenario clock
before the call (session idle times). Wiring hands a replay counting run tokens, so the recorded
argument vectors match, and the server's environment is the section's ``env`` alone.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Mapping
from typing import Any

from mcp.shared.exceptions import MCPError

from wslmcp.fakes.replay import ReplayMiss
from wslmcp.replay.client import connect, crashes, root_cause
from wslmcp.scenario.checks import CheckResult
from wslmcp.scenario.loader import Scenario
from wslmcp.wiring.replay import replaying

KIND = "shell-exchanges"

#: (earlier text, today's) in an expected reply: wordings an earlier version gave the same facts,
#: read as today's (the scenarios' expected replies are fixtures; their facts still have to match).
EARLIER_REPLY_PARTS: tuple[tuple[str, str], ...] = (
    # a run killed at its deadline: one exit form for a death by signal (128+N beside N)
    ("exit code: none (killed)  ·", "exit code: 137 (killed by signal 9, SIGKILL)  ·"),
)


#: counts written ``2 process(es)``, ``1 entrie(s)`` (and ``line(s) 3, 5``): today one or many
_EARLIER_COUNT = re.compile(r"\b(\d+) ([a-z ]*?)(entrie|process|[a-z]+)\((s|es)\)")
_EARLIER_LINES = re.compile(r"\bline\(s\) (\d+(?:, \d+)*)")


def _counted(m: re.Match[str]) -> str:
    n, words, noun, plural = int(m[1]), m[2], m[3], m[4]
    one = "entry" if noun == "entrie" else noun
    return f"{n} {words}{one if n == 1 else noun + plural}"


def as_today(expected: Mapping[str, Any]) -> dict[str, Any]:
    """An expected reply with the earlier wordings in its text read as today's."""
    text = expected.get("text")
    if isinstance(text, str):
        for earlier, today in EARLIER_REPLY_PARTS:
            text = text.replace(earlier, today)
        text = _EARLIER_COUNT.sub(_counted, text)
        text = _EARLIER_LINES.sub(lambda m: ("line " if "," not in m[1] else "lines ") + m[1], text)
    return {**expected, "text": text}


def _calls(scenario: Scenario) -> tuple[dict[str, str], list[Mapping[str, Any]]]:
    section = scenario.section("shell")
    env = section.get("env")
    calls = section.get("calls")
    if not isinstance(env, Mapping) or not all(isinstance(v, str) for v in env.values()):
        raise ValueError("shell.env must be an object of strings")
    if not isinstance(calls, list) or not calls:
        raise ValueError("shell.calls must be a non-empty list")
    for i, call in enumerate(calls):
        if not isinstance(call, Mapping) or not isinstance(call.get("tool"), str):
            raise ValueError(f"shell.calls[{i}] needs a 'tool' name")
        if not isinstance(call.get("args", {}), Mapping) or not isinstance(call.get("expected"), str):
            raise ValueError(f"shell.calls[{i}] needs 'args' (object) and 'expected' (file)")
    return dict(env), calls


async def replay_calls(
    scenario: Scenario, crashed: list[BaseException] | None = None
) -> list[dict[str, Any]]:
    """Run the scenario's calls through the server; returns one ``{is_error, text}`` per call.
    A call that crashed the tool appends its exception to ``crashed``."""
    from wslmcp.serving import build_server
    from wslmcp.shell.assembly import Options, build
    from wslmcp.shell.handlers import dispatch
    from wslmcp.shell.tools import SERVER

    _, calls = _calls(scenario)
    run = replaying(scenario)
    service = build(run.boundaries, run.host, Options(quiet=True)).service  # its log only when asked
    replies = []
    await _outside_calls(service.startup(), crashed)  # as it starts: the local transport's sandbox probe
    async with connect(build_server(SERVER, dispatch(service))) as client:
        for call in calls:
            advance = float(call.get("advance_s", 0))
            if advance:
                run.clock.advance(advance)
            with crashes() as found:
                try:
                    result = await client.call_tool(call["tool"], dict(call.get("args", {})))
                except MCPError as exc:  # a replay miss comes back as a JSON-RPC error naming it
                    found.append(exc)
                    replies.append({"is_error": True, "text": str(exc)})
                    continue
                finally:
                    if crashed is not None:
                        crashed.extend(found)
            text = "\n".join(str(getattr(block, "text", "")) for block in result.content)
            replies.append({"is_error": bool(result.is_error), "text": text})
    await _outside_calls(service.shutdown(), crashed)  # as recorded: what still runs is ended
    return replies


async def _outside_calls(step: Awaitable[None], crashed: list[BaseException] | None) -> None:
    """The server's startup or shutdown, a crash (or replay miss) in it appended to ``crashed``."""
    with crashes() as found:
        try:
            await step
        except ReplayMiss as exc:
            found.append(exc)
        if crashed is not None:
            crashed.extend(found)


def check(scenario: Scenario, spec: Mapping[str, Any]) -> CheckResult:
    _, calls = _calls(scenario)
    crashed: list[BaseException] = []
    replies = asyncio.run(replay_calls(scenario, crashed))
    if crashed:  # a tool crashed (a replay miss, as a rule): name it, not its bare error reply
        return CheckResult(KIND, False, str(root_cause(crashed[0], ReplayMiss)))
    for i, (call, got) in enumerate(zip(calls, replies, strict=True)):
        expected = as_today(json.loads(scenario.file(call["expected"]).read_text(encoding="utf-8")))
        if got != expected:
            return CheckResult(
                KIND,
                False,
                f"call {i} ({call['tool']}) differs from {call['expected']}: "
                f"expected {json.dumps(expected)[:300]} got {json.dumps(got)[:300]}",
            )
    errors = sum(1 for r in replies if r["is_error"])
    return CheckResult(
        KIND, True, f"{len(replies)} tool calls replayed, replies match ({errors} expected errors)"
    )
