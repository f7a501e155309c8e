"""``wslmcp doctor``'s checks, one result line each, through the boundaries wiring built.

Each check answers ``Line(name, status, detail, fix)``: ``ok``; ``fail`` (something an agent will
meet is broken, with the command that fixes it); ``warn`` (works, but less well: no ripgrep, no
Docker Engine, a client without our entries); ``skip`` (not for this host: the Windows-only checks
on Linux say so). The distro's checks reuse the shell server's own probe (``--check`` with the
sandbox on); the Docker check uses observe's discovery (the wired ``DockerApi``); the clients' check
reads the client table through ``ConfigFiles`` and starts each entry of ours as its client would.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from wslmcp import __version__
from wslmcp.boundaries.bundle import Boundaries, Host
from wslmcp.boundaries.config_files import ConfigFiles
from wslmcp.boundaries.docker_api import DockerAbsent, DockerError
from wslmcp.boundaries.mcp_launcher import McpLauncher
from wslmcp.install.entries import SERVERS, is_ours
from wslmcp.install.json_edit import Malformed
from wslmcp.install.plan import EntryPlan, Home, Request, Target, held, targets
from wslmcp.install.service import check_all

Status = Literal["ok", "fail", "warn", "skip"]
RIPGREP = "command -v rg >/dev/null 2>&1 && rg --version | head -n 1"


@dataclass(frozen=True)
class Line:
    name: str
    status: Status
    detail: str
    fix: str = ""


def versions(host: Host, program: str) -> list[Line]:
    python = ".".join(map(str, sys.version_info[:3]))
    ok = sys.version_info >= (3, 11)
    return [
        Line("python", "ok" if ok else "fail", f"Python {python} ({sys.executable})", "" if ok else "install Python 3.11 or later"),
        Line("wslmcp", "ok", f"wslmcp {__version__} ({program}; {host.platform})"),
    ]  # fmt: skip


async def wsl(boundaries: Boundaries, host: Host) -> Line:
    """WSL's own version, through wsl.exe (on Windows, or inside WSL through interop)."""
    if not host.wsl_reachable:
        return Line("wsl", "skip", "Windows only: no wsl.exe here (Linux without WSL interop)")
    from wslmcp.boundaries.wsl_exe import WslCall
    from wslmcp.boundaries.wsl_output import decode_wsl_output

    try:
        done = await boundaries.wsl_exe.run(WslCall(["--version"], timeout_s=30, max_output=64 * 1024))
    except OSError as exc:
        return Line(
            "wsl", "fail", f"wsl.exe cannot be run: {exc}", "wsl --install (in an administrator PowerShell)"
        )
    said = decode_wsl_output(done.stdout)
    first = next((line.strip() for line in said.splitlines() if line.strip()), "")
    if done.exit_code != 0 or ":" not in first:
        return Line("wsl", "fail", f"'wsl --version' failed ({first or done.exit_code})", "wsl --update")
    return Line("wsl", "ok", first)


async def distro(boundaries: Boundaries, host: Host, env: Mapping[str, str]) -> list[Line]:
    """The distro's state, the sandbox (the shell server's probe) and ripgrep, in that distro."""
    from wslmcp.boundaries.shell_transport import ScriptCall, TransportError
    from wslmcp.shell.assembly import Options, build
    from wslmcp.shell.config import load_config

    name = env["WSL_DISTRO"]
    config = load_config({**env, "WSL_SANDBOX": "on", "WSL_MCP_LOG_LEVEL": "silent"})
    probed = replace(host, shell_env={})
    try:
        checked = await build(boundaries, probed, Options(quiet=True, config=config)).service.check()
        plain = build(
            boundaries, probed, Options(quiet=True, config=load_config({**env, "WSL_SANDBOX": "off"}))
        )
    except TransportError as exc:
        return [Line("distro", "fail", str(exc), "wsl -l -v (is the distro installed?)")]
    lines = [_state_line(name, checked.state, checked.failure)]
    if checked.state is None or not checked.state.installed:
        return lines
    lines.append(_sandbox_line(checked.sandbox))
    runner = plain.service.runner
    if runner is None:
        return lines
    try:
        run = await runner.run(ScriptCall(RIPGREP, timeout_s=30, max_output=1 << 16, login=False))
        found = run.exchange.stdout.decode("utf-8", "replace").strip()
    except TransportError as exc:
        found = f"(could not look: {exc})"
    lines.append(
        Line("ripgrep", "ok", found)
        if found.startswith("ripgrep")
        else Line("ripgrep", "warn", f"not installed in '{name}': wsl_search uses grep, slower", "sudo apt-get install -y ripgrep")
    )  # fmt: skip
    return lines


def _state_line(name: str, state: object, failure: str | None) -> Line:
    from wslmcp.shell.status import DistroState

    if not isinstance(state, DistroState):
        return Line("distro", "fail", failure or f"'{name}' could not be reached", f"wsl -d {name} -- true")
    if not state.installed:
        return Line(
            "distro",
            "fail",
            f"'{name}' is not installed (wsl -l -v does not list it)",
            f"wsl --install -d {name}",
        )
    version = f", WSL {state.wsl_version}" if state.wsl_version else ""
    if state.wsl_version == 1:
        return Line(
            "distro",
            "fail",
            f"'{name}': {state.state}{version} (no sandbox under WSL 1)",
            f"wsl --set-version {name} 2",
        )
    return Line("distro", "ok", f"'{name}': {state.state}{version}")  # fmt: skip


def _sandbox_line(said: str | None) -> Line:
    if said is None:
        return Line("sandbox", "fail", "the sandbox was not probed", "wslmcp shell --check")
    if said.startswith("sandbox: REQUIRED BUT NOT RUNNING"):
        reason = said.split(":", 2)[-1].strip()
        fix = next((part.strip() for part in reason.split(";") if "sudo " in part or "wsl " in part), "")
        fix = fix.removeprefix("install it in the distro:").strip() or "WSL_SANDBOX=on wslmcp shell --check"
        return Line("sandbox", "fail", "bubblewrap and user namespaces: " + reason, fix)
    version = said.split("  ·  ", 1)[0].removeprefix("sandbox: on").strip(" ()")
    return Line("sandbox", "ok", f"bubblewrap and user namespaces work ({version})")


async def docker(boundaries: Boundaries) -> Line:
    api = boundaries.docker_api
    if api is None:
        return Line("docker", "skip", "no Docker Engine discovery on this host")
    try:
        answer = await api.get("/version", timeout_s=10)
        where = f"{api.endpoint.url} ({api.endpoint.source})"
    except DockerAbsent as exc:
        return Line(
            "docker",
            "warn",
            f"no Docker Engine: {exc}; observe shows no containers",
            "start Docker Desktop, or: sudo service docker start",
        )
    except DockerError as exc:
        return Line(
            "docker",
            "fail",
            f"the Docker Engine does not answer: {exc}",
            "sudo usermod -aG docker $USER (then log in again), or check DOCKER_HOST",
        )
    body = answer.body if isinstance(answer.body, Mapping) else {}
    if answer.status != 200:
        return Line(
            "docker", "fail", f"the Docker Engine at {where} answered HTTP {answer.status}", "docker version"
        )
    return Line("docker", "ok", f"Docker Engine {body.get('Version', '?')} at {where}")  # fmt: skip


def pdh(boundaries: Boundaries, host: Host) -> Line:
    if host.platform != "windows" or boundaries.pdh is None:
        return Line("pdh", "skip", "Windows only: the Hyper-V CPU counters are read on Windows")
    try:
        boundaries.pdh.collect()
    except OSError as exc:
        return Line(
            "pdh", "fail", f"the PDH counters cannot be read: {exc}", "lodctr /R (in an administrator prompt)"
        )
    return Line("pdh", "ok", "the Hyper-V processor counters answer")


def clients(
    files: ConfigFiles, launcher: McpLauncher | None, homes: Sequence[Home], timeout_s: float
) -> list[Line]:
    """Each client found, with the entries of ours it holds, each started as its client would."""
    found, _ = targets(Request(homes=tuple(homes), project=homes[0].path), files)
    lines: list[Line] = []
    entries: list[tuple[Target, EntryPlan]] = []
    for target in found:
        where = f"{target.client.title} ({target.side}, {target.path})"
        try:
            table = held(files, target)
        except (OSError, Malformed) as exc:
            lines.append(
                Line(
                    "client",
                    "fail",
                    f"{where}: cannot be read: {exc}",
                    f"fix the file by hand: {target.path}",
                )
            )
            continue
        ours = [
            EntryPlan(name, server, "unchanged", entry)
            for name, entry in table.items()
            for server in SERVERS
            if is_ours(entry, server)
        ]
        if not ours:
            lines.append(
                Line(
                    "client",
                    "warn",
                    f"{where}: no wslmcp entry",
                    f"wslmcp install --client {target.client.name}",
                )
            )
        entries.extend((target, e) for e in ours)
    if not found:
        lines.append(
            Line(
                "client", "warn", "no MCP client found in the homes looked at", "wslmcp install --client NAME"
            )
        )
    checks = check_all(launcher, entries, timeout_s) if launcher is not None else {}
    for target, e in entries:
        where = f"{target.client.title} ({target.side}, {target.path}): {e.name}"
        check = checks.get((target.path, e.name))
        if check is None:
            lines.append(Line("client", "ok", f"{where} (not started here)"))
        else:
            lines.append(Line("client", "ok" if check.ok else "fail", f"{where} {check.said}", check.fix))
    return lines  # fmt: skip
