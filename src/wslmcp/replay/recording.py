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
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from wslmcp import wiring
from wslmcp.boundaries.bundle import Host
from wslmcp.boundaries.clock import Clock
from wslmcp.boundaries.procfs import ProcSource
from wslmcp.fakes.procfs import RecordingProcSource
from wslmcp.replay.client import connect
from wslmcp.scenario.recorder import RecordingRefused, ScenarioWriter
from wslmcp.wiring.recording import recording_shell


async def record_observe(
    source: ProcSource,
    writer: ScenarioWriter,
    clock: Clock,
    duration_s: float,
    interval_ms: int,
    *,
    local_distro: str | None = None,
) -> Path:
    """Sample ``source`` every ``interval_ms`` for ``duration_s`` (at least two samples). Samples
    start on a fixed schedule, so the time a read takes does not push the later ones back; each is
    recorded at its scheduled time, so a replay that samples on the same interval reads each once
    (the manifest's ``observe.args`` say that interval, and that no container engine was recorded)."""
    from wslmcp.replay.record_windows import Sources, observe_section

    recording = RecordingProcSource(source, writer)
    try:
        start = clock.monotonic()
        first = writer.now_ms()
        for i in range(max(2, int(duration_s * 1000 // interval_ms) + 1)):
            if i:
                await clock.sleep(start + i * interval_ms / 1000 - clock.monotonic())
            recording.read_at(first + i * interval_ms)
        writer.manifest["observe"] = observe_section(Sources(), interval_ms, local_distro=local_distro)
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


@dataclass(frozen=True)
class ShellTarget:
    """Where a shell recording runs: the distro, the configured user, and the transport ``kind``
    (``local``: this machine's bash as ``local_user``)."""

    distro: str
    user: str | None
    kind: str
    local_user: str | None = None


def shell_target(environ: Mapping[str, str]) -> ShellTarget:
    """The transport a shell recording runs over: ``WSLMCP_SHELL_TRANSPORT`` as the server reads it,
    except that without one it is wsl.exe (local only inside the distro itself), so a recording
    never takes this machine for a distro unasked. Raises ``RecordingRefused``."""
    from wslmcp.boundaries.shell_transport import current_user
    from wslmcp.shell.config import ConfigError, load_config

    try:
        config = load_config(environ)
    except ConfigError as exc:
        raise RecordingRefused(f"cannot record a shell session: {exc}; nothing was written") from None
    if config.distro is None:
        raise RecordingRefused(
            "cannot record a shell session: WSL_DISTRO is not set (the distro the calls run in; to "
            "record this machine, any label with WSLMCP_SHELL_TRANSPORT=local); nothing was written"
        )
    inside = environ.get("WSL_DISTRO_NAME", "").casefold() == config.distro.casefold()
    given = environ.get("WSLMCP_SHELL_TRANSPORT")
    kind = "local" if inside else "wsl.exe"
    if given == "local" or (given == "auto" and not inside and not wiring.real_host(environ).wsl_reachable):
        kind = "local"
    return ShellTarget(config.distro, config.user, kind, current_user() if kind == "local" else None)


async def refuse_unless_shell_starts(environ: Mapping[str, str], target: ShellTarget) -> None:
    """Run nothing but ``exit 0`` through the transport the recording would use (unrecorded); a
    transport that cannot start is a ``RecordingRefused`` naming what to set, before anything is
    written."""
    from wslmcp.boundaries.shell_transport import ScriptCall, TransportError

    try:
        transport = wiring.real(environ).shell_transport(target.kind, target.distro, target.user)
        exchange = await transport.run(ScriptCall("exit 0", login=False, timeout_s=PROBE_TIMEOUT_S))
        failure = None if exchange.exit_code == 0 else f"'exit 0' ended with {exchange.exit_code}"
    except TransportError as exc:
        failure = str(exc)
    if failure is None:
        return
    if target.kind == "local":
        raise RecordingRefused(
            f"cannot record a shell session over the local transport (distro '{target.distro}'): {failure}; "
            "nothing was written"
        )
    raise RecordingRefused(
        f"cannot record a shell session in the distro '{target.distro}' through wsl.exe: {failure}. "
        "Set WSLMCP_WSL_EXE to wsl.exe (or a stand-in of it), check WSL_DISTRO, or record this "
        "machine's bash with WSLMCP_SHELL_TRANSPORT=local; nothing was written"
    )


PROBE_TIMEOUT_S = 60.0


async def record_shell(
    writer: ScenarioWriter,
    calls: Sequence[Mapping[str, Any]],
    environ: Mapping[str, str],
    start_wall: float,
    target: ShellTarget | None = None,
) -> list[dict[str, Any]]:
    """Run ``calls`` through the shell server over the recording transport; writes the exchanges, the
    expected replies and the ``shell`` section (its environment with the sandbox as it ran, and the
    transport), and commits. Returns one ``{is_error, text}`` per call."""
    from wslmcp.serving import build_server
    from wslmcp.shell.assembly import Options, build
    from wslmcp.shell.handlers import running
    from wslmcp.shell.tools import SERVER

    env = server_env(environ)
    target = target or shell_target(environ)
    try:
        run = recording_shell(writer, {**environ, **env}, start_wall, target.kind, target.local_user)
        service = build(run.boundaries, run.host, Options(quiet=True)).service
        env.update(ran_with(service))  # as it ran (a default may change)
        replies: list[dict[str, Any]] = []
        # as the server runs: started (its sandbox probe on the local transport), then the calls, then
        # shut down (background processes still running are ended, and that is recorded)
        async with running(service) as dispatch, connect(build_server(SERVER, dispatch)) as client:
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
        writer.manifest["observe"] = host_section(run.host)
        transport = {"kind": target.kind, **({"user": target.local_user} if target.local_user else {})}
        writer.manifest["shell"] = {"env": env, "transport": transport, "calls": recorded}
        writer.expect({"kind": "shell-exchanges"})
        writer.commit()
    except BaseException:
        writer.abort()
        raise
    return replies


def ran_with(service: Any) -> dict[str, str]:
    """The shell settings whose defaults change, as the recorded server ran: its sandbox and when it
    asks a person (a replay then runs as recorded, whatever today's defaults)."""
    return {
        "WSL_SANDBOX": "on" if service.sandbox is not None else "off",
        "WSL_APPROVALS": service.config.approvals,
    }


def host_section(host: Host) -> dict[str, object]:
    """The host a recording ran on, as a replay states it (``observe``'s host keys)."""
    return {
        "platform": host.platform,
        "wsl_interop": host.wsl_reachable,
        **({"distro": host.distro} if host.distro else {}),
    }


PROFILE_REPORT_ARGS = ["--query-project"]
#: A secret a config hands a server (an env or header value) is redacted where a copied file holds it
#: as a quoted string of at least this many characters (shorter ones are too likely other values).
SECRET_MIN_CHARS = 6
REDACTED = "<redacted by wslmcp scenario record>"


def copy_taken(
    writer: ScenarioWriter, home: Path, fixture_home: str, taken: Iterable[str], secrets: Iterable[str]
) -> dict[str, float]:
    """Copy the regular files of ``taken`` that lie under ``home`` into the scenario's ``home/``
    (paths inside them rewritten to ``fixture_home``, every quoted ``secrets`` value redacted);
    returns their modification times by relative path."""
    quoted = _quoted(secrets)
    mtimes: dict[str, float] = {}
    for name in sorted(taken):
        path = Path(name)
        if not path.is_relative_to(home) or path.is_symlink() or not path.is_file():
            continue
        rel = path.relative_to(home).as_posix()
        data = path.read_bytes()
        for secret, mark in quoted:
            data = data.replace(secret, mark)
        # the fixture home stands at ``fixture_home``: paths inside configs follow it
        writer.add_file(f"home/{rel}", data.replace(str(home).encode(), fixture_home.encode()))
        mtimes[rel] = round(path.stat().st_mtime, 3)
    (writer.root / "home").mkdir(exist_ok=True)
    return mtimes


def _quoted(secrets: Iterable[str]) -> list[tuple[bytes, bytes]]:
    """Each secret as a JSON or TOML string holds it (double and single quotes), with its redaction."""
    out = []
    for secret in sorted(set(secrets), key=len, reverse=True):
        if len(secret) < SECRET_MIN_CHARS:
            continue
        for quote in ('"', "'"):
            body = json.dumps(secret)[1:-1] if quote == '"' else secret
            out.append((f"{quote}{body}{quote}".encode(), f"{quote}{REDACTED}{quote}".encode()))
    return out


def _profile_once(home: Path, project: Path, answers: Path, fixture_home: str) -> Taken:
    """Run the profiler once as the recorded report runs (``PROFILE_REPORT_ARGS``) on ``home`` alone,
    noting every file it takes and recording the answers of the servers it queries."""
    import io

    from wslmcp.fakes.client_files import RecordingClientFiles
    from wslmcp.fakes.distro_homes import StatedDistroHomes
    from wslmcp.fakes.mcp_launcher import RecordingMcpLauncher
    from wslmcp.fakes.windows_home import StatedWindowsHome
    from wslmcp.profile.assembly import build
    from wslmcp.profile.cli import execute, parse_options
    from wslmcp.profile.configs import discover

    real = wiring.real()
    files = RecordingClientFiles(real.client_files)
    launcher = RecordingMcpLauncher(real.mcp_launcher, answers, rewrite={str(home): fixture_home})
    boundaries = replace(
        real,
        client_files=files,
        mcp_launcher=launcher,
        windows_home=StatedWindowsHome(None),  # this home only: no other side is recorded
        distro_homes=StatedDistroHomes([]),
    )
    host = replace(
        wiring.real_host(), home=str(home), project=str(project), cwd=str(project), interactive=False
    )
    options = parse_options(PROFILE_REPORT_ARGS)
    execute(options, build(boundaries, host, options), io.StringIO())
    if not launcher.answers:
        launcher.save()
    found = discover(real.client_files, str(home), str(project), "all")
    secrets = [v for s in found.servers() for v in (*s.env.values(), *s.headers.values())]
    return Taken(files.taken, files.special, secrets, len(launcher.answers))


@dataclass(frozen=True)
class Taken:
    """What a profile recording takes from a home: files read or listed, special files, the secrets
    its configs hand servers (redacted), and how many servers answered."""

    files: set[str]
    special: dict[str, str]
    secrets: list[str]
    answered: int


def record_profile(
    writer: ScenarioWriter, home: Path, project: Path, fixture_home: str
) -> tuple[list[str], int]:
    """Run the profiler on ``home`` and copy into the scenario what it took: the client files and
    transcripts it read or listed (regular files; special ones stated as such), never anything
    else (our caches, credentials, other files), with every secret a config hands a server
    redacted and the home's path rewritten to ``fixture_home``; record the answers of every
    configured server, render the expected report; commit. Returns the files taken (relative) and
    how many servers answered."""
    from wslmcp.replay.profile import render
    from wslmcp.scenario.loader import Scenario

    try:
        taken = _profile_once(home, project, writer.root / "answers.json", fixture_home)
        mtimes = copy_taken(writer, home, fixture_home, taken.files, taken.secrets)
        special = {
            Path(p).relative_to(home).as_posix(): kind
            for p, kind in taken.special.items()
            if Path(p).is_relative_to(home)
        }
        shown_project = str(project).replace(str(home), fixture_home, 1)
        writer.manifest["home"] = {
            "dir": "home",
            "path": fixture_home,
            "mtime_default": writer.manifest["clock"]["start_wall"],
            "mtimes": mtimes,
            **({"special": special} if special else {}),
        }
        writer.manifest["profile"] = {"mcp_answers": "answers.json", "project": shown_project}
        writer.manifest["host"].setdefault("redactions", []).extend(
            [
                f"home path rewritten to {fixture_home}",
                "launch commands never recorded",
                "only the client files and transcripts the profiler reads are copied",
                "secrets configs hand servers (env and header values) redacted",
            ]
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
    return sorted(mtimes), taken.answered
