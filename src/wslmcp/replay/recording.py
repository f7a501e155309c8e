"""``wslmcp scenario record --area observe|shell|profile``: the one product command that records an area's
scenario, through each boundary's recorder in ``fakes/`` and the scenario writer.

``observe``  this host's /proc, sampled on a fixed schedule (``procfs-replay`` check); with
             ``--windows``/``--docker``/``--wslc`` the Windows side instead (``replay.record_windows``).
``profile``  a client home (``--home``, copied into the scenario as its fixture home, every
             path rewritten to ``--fixture-home``) with the answers of the servers its configs
             launch, queried through the real launcher (project scope included), and the
             expected ``wslmcp profile --query-project`` report rendered from the replay.
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
from wslmcp.wiring.recording import recording_shell


async def record_observe(
    source: ProcSource, writer: ScenarioWriter, clock: Clock, duration_s: float, interval_ms: int
) -> Path:
    """Sample ``source`` every ``interval_ms`` for ``duration_s`` (at least two samples). Samples
    start on a fixed schedule, so the time a read takes does not push the later ones back; each is
    recorded at its scheduled time, so a replay that samples on the same interval reads each once."""
    recording = RecordingProcSource(source, writer)
    try:
        start = clock.monotonic()
        first = writer.now_ms()
        for i in range(max(2, int(duration_s * 1000 // interval_ms) + 1)):
            if i:
                await clock.sleep(start + i * interval_ms / 1000 - clock.monotonic())
            recording.read_at(first + i * interval_ms)
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
    """The shell server's configuration in ``environ`` (its ``WSL_*`` variables), the sandbox's mode
    stated (off unless asked: a recording with it would pin the launcher's text in every exchange)."""
    chosen = {k: v for k, v in environ.items() if k.startswith("WSL_") and k != "WSL_DISTRO_NAME"}
    return dict(sorted({"WSL_SANDBOX": "off", **chosen}.items()))


async def record_shell(
    writer: ScenarioWriter, calls: Sequence[Mapping[str, Any]], environ: Mapping[str, str], start_wall: float
) -> list[dict[str, Any]]:
    """Run ``calls`` through the shell server over the recording wsl.exe; writes the exchanges, the
    expected replies and the ``shell`` section, and commits. Returns one ``{is_error, text}`` per call."""
    from wslmcp.serving import build_server
    from wslmcp.shell.assembly import Options, build
    from wslmcp.shell.handlers import dispatch
    from wslmcp.shell.tools import SERVER

    env = server_env(environ)
    try:
        run = recording_shell(writer, {**environ, **env, "WSLMCP_SHELL_TRANSPORT": "wsl.exe"}, start_wall)
        service = build(run.boundaries, run.host, Options(quiet=True)).service
        server = build_server(SERVER, dispatch(service))
        replies: list[dict[str, Any]] = []
        async with connect(server) as client:
            for call in calls:
                if call.get("advance_s"):
                    run.clock.advance(float(call["advance_s"]))
                result = await client.call_tool(str(call["tool"]), dict(call.get("args", {})))
                text = "\n".join(str(getattr(block, "text", "")) for block in result.content)
                replies.append({"is_error": bool(result.is_error), "text": text})
        await service.shutdown()  # background processes still running are ended (and that is recorded)
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


PROFILE_REPORT_ARGS = ["--query-project"]


def copy_home(writer: ScenarioWriter, home: Path, fixture_home: str) -> dict[str, float]:
    """Copy ``home``'s regular files into the scenario's ``home/`` (paths inside them rewritten to
    ``fixture_home``); returns their modification times by relative path."""
    mtimes: dict[str, float] = {}
    for path in sorted(home.rglob("*")):
        if path.is_symlink() or not path.is_file():
            continue
        rel = path.relative_to(home).as_posix()
        # the fixture home stands at ``fixture_home``: paths inside configs follow it
        writer.add_file(f"home/{rel}", path.read_bytes().replace(str(home).encode(), fixture_home.encode()))
        mtimes[rel] = round(path.stat().st_mtime, 3)
    (writer.root / "home").mkdir(exist_ok=True)
    return mtimes


def record_profile(
    writer: ScenarioWriter, home: Path, project: Path, fixture_home: str, timeout_s: float = 20.0
) -> int:
    """Copy ``home`` (regular files only; links, FIFOs and devices are left out; the home's path
    rewritten to ``fixture_home`` in file contents too) into the scenario,
    record the answers of every configured server, render the expected report; commits. Returns
    the number of servers queried."""
    from fakes.mcp_launcher import RecordingMcpLauncher
    from wslmcp.profile.configs import discover
    from wslmcp.profile.querying import query_all
    from wslmcp.replay.profile import render
    from wslmcp.scenario.loader import Scenario

    try:
        mtimes = copy_home(writer, home, fixture_home)
        real = wiring.real()
        rewrite = {str(home): fixture_home}
        found = discover(real.client_files, str(home), str(project), "all")
        launcher = RecordingMcpLauncher(real.mcp_launcher, writer.root / "answers.json", rewrite=rewrite)
        query_all(launcher, found.servers(), timeout_s, query_project=True)
        if not launcher.answers:
            launcher.save()
        shown_project = str(project).replace(str(home), fixture_home, 1)
        writer.manifest["home"] = {
            "dir": "home",
            "path": fixture_home,
            "mtime_default": writer.manifest["clock"]["start_wall"],
            "mtimes": mtimes,
        }
        writer.manifest["profile"] = {"mcp_answers": "answers.json", "project": shown_project}
        writer.manifest["host"].setdefault("redactions", []).extend(
            [f"home path rewritten to {fixture_home}", "launch commands never recorded"]
        )
        expected = "expected/query-project.txt"
        spec = {"kind": "profile-report", "args": PROFILE_REPORT_ARGS, "expected": expected}
        writer.expect(spec)
        report = render(Scenario(writer.root, writer.manifest), list(PROFILE_REPORT_ARGS))
        writer.add_file(expected, report.encode("utf-8"))
        writer.commit()
    except BaseException:
        writer.abort()
        raise
    return len(launcher.answers)
