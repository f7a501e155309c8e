"""``wslmcp scenario record --area observe|shell``: the one product command that records an area's
scenario, through each boundary's recorder in ``fakes/`` and the scenario writer.

``observe``  this host's /proc, sampled on a fixed schedule (``procfs-replay`` check).
``shell``    a session of tool calls (a JSON list of ``{"tool", "args", "advance_s"?}``) run through
             the real shell server (config, guard, runner, service and MCP tool layer, called
             through the SDK client in process) over the real wsl.exe, or on Linux the wsl.exe
             stand-in named by ``WSLMCP_WSL_EXE``. Every wsl.exe exchange is recorded, every reply
             is kept as the call's expected reply, and the server's ``WSL_*`` environment goes into
             ``shell.env`` (``shell-exchanges`` check, which replays it the same way).

A recording is written beside its target and renamed into place only when complete
(``ScenarioWriter``); on any failure nothing is left.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from fakes.procfs import RecordingProcSource
from wslmcp import wiring
from wslmcp.boundaries.clock import Clock
from wslmcp.boundaries.procfs import ProcSource
from wslmcp.replay.client import connect
from wslmcp.scenario.recorder import ScenarioWriter


async def record_observe(
    source: ProcSource, writer: ScenarioWriter, clock: Clock, duration_s: float, interval_ms: int
) -> Path:
    """Sample ``source`` every ``interval_ms`` for ``duration_s`` (at least two samples). Samples
    start on a fixed schedule, so the time a read takes does not push the later ones back."""
    recording = RecordingProcSource(source, writer)
    try:
        start = clock.monotonic()
        for i in range(max(2, int(duration_s * 1000 // interval_ms) + 1)):
            if i:
                await clock.sleep(start + i * interval_ms / 1000 - clock.monotonic())
            recording.read_sample()
        writer.expect({"kind": "procfs-replay"})
        return writer.commit()
    except BaseException:
        writer.abort()
        raise


def shell_calls(value: object) -> list[dict[str, Any]]:
    """A session of tool calls as a recording takes it; ``ValueError`` says what is wrong."""
    if not isinstance(value, list) or not value:
        raise ValueError("the calls must be a non-empty JSON list of {tool, args, advance_s?}")
    calls = []
    for i, call in enumerate(value):
        if not isinstance(call, Mapping) or not isinstance(call.get("tool"), str):
            raise ValueError(f"call {i} needs a 'tool' name")
        if not isinstance(call.get("args", {}), Mapping):
            raise ValueError(f"call {i}: 'args' must be an object")
        advance = call.get("advance_s", 0)
        if isinstance(advance, bool) or not isinstance(advance, int | float) or advance < 0:
            raise ValueError(f"call {i}: 'advance_s' must be a number >= 0")
        calls.append(
            {
                "tool": call["tool"],
                "args": dict(call.get("args", {})),
                **({"advance_s": advance} if advance else {}),
            }
        )
    return calls


def server_env(environ: Mapping[str, str]) -> dict[str, str]:
    """The shell server's configuration in ``environ`` (its ``WSL_*`` variables)."""
    return {k: v for k, v in sorted(environ.items()) if k.startswith("WSL_") and k != "WSL_DISTRO_NAME"}


async def record_shell(
    writer: ScenarioWriter, calls: Sequence[Mapping[str, Any]], environ: Mapping[str, str], start_wall: float
) -> list[dict[str, Any]]:
    """Run ``calls`` through the shell server over the recording wsl.exe; writes the exchanges, the
    expected replies and the ``shell`` section, and commits. Returns one ``{is_error, text}`` per call."""
    from wslmcp.shell.assembly import assemble
    from wslmcp.shell.server import build_server

    env = server_env(environ)
    try:
        run = wiring.recording_shell(
            writer, {**environ, **env, "WSLMCP_SHELL_TRANSPORT": "wsl.exe"}, start_wall
        )
        server = build_server(assemble(run.boundaries, run.host, quiet=True).service)
        replies: list[dict[str, Any]] = []
        async with connect(server) as client:
            for call in calls:
                if call.get("advance_s"):
                    run.clock.advance(float(call["advance_s"]))
                result = await client.call_tool(str(call["tool"]), dict(call.get("args", {})))
                text = "\n".join(str(getattr(block, "text", "")) for block in result.content)
                replies.append({"is_error": bool(result.is_error), "text": text})
        recorded = []
        for i, (call, reply) in enumerate(zip(calls, replies, strict=True)):
            rel = f"expected/{i:02d}-{call['tool']}.json"
            writer.add_file(rel, (json.dumps(reply, indent=2, ensure_ascii=False) + "\n").encode())
            recorded.append({**call, "expected": rel})
        writer.manifest["clock"] = {"start_wall": start_wall}
        writer.manifest["shell"] = {"env": env, "calls": recorded}
        writer.expect({"kind": "shell-exchanges"})
        writer.commit()
    except BaseException:
        writer.abort()
        raise
    return replies
