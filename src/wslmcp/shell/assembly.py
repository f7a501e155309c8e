"""Assembling the shell service from what wiring built: configuration from the host's shell
environment, the sandbox (unless ``WSL_SANDBOX=off``), the transport wiring chose, the guard, the
runner and the service."""

from __future__ import annotations

import sys
from dataclasses import dataclass, replace

from wslmcp.boundaries.bundle import Boundaries, Host
from wslmcp.boundaries.shell_transport import Confinement
from wslmcp.shell.audit import AuditedGuard, audit_of
from wslmcp.shell.config import ShellConfig, load_config
from wslmcp.shell.guard import Guard
from wslmcp.shell.log import Log
from wslmcp.shell.runner import Runner
from wslmcp.shell.sandbox import profile_for
from wslmcp.shell.sandbox_gate import SandboxGate
from wslmcp.shell.sandbox_launcher import launcher
from wslmcp.shell.service import ShellService


@dataclass(frozen=True)
class Options:
    """What the entry point asks of the server. ``quiet`` silences the log unless WSL_MCP_LOG_LEVEL
    asks for it (``--check`` prints its own); ``config`` and ``log``, when the entry point has them
    already (it reads the configuration before serving and logs from the start), else the
    configuration is read from the host's ``shell_env`` and the log made here."""

    quiet: bool = False
    config: ShellConfig | None = None
    log: Log | None = None


@dataclass
class Assembly:
    config: ShellConfig
    service: ShellService
    log: Log


def build(boundaries: Boundaries, host: Host, options: Options) -> Assembly:
    """Config (read from the host's shell environment unless given), transport, guard, runner and
    service. Raises ConfigError / TransportError."""
    env = host.shell_env
    config = options.config or load_config(env)
    if options.quiet and "WSL_MCP_LOG_LEVEL" not in env:
        config = replace(config, log_level="silent")
    log = options.log or Log(config.log_level, sys.stderr, boundaries.clock)
    runner = None
    if config.distro is not None:
        gate = confinement = None
        if config.sandbox.on:  # every script runs under bubblewrap (auto: when it can; on: or nothing runs)
            profile = profile_for(config.policy, config.sandbox, config.cwd)
            confinement = Confinement(launcher(profile))
            gate = SandboxGate(profile, config.distro, required=config.sandbox.required, log=log)
        transport = boundaries.shell_transport(config.transport, config.distro, config.user, confinement)
        runner = Runner(transport, boundaries.tokens.next, gate=gate)
    audit = audit_of(config, boundaries)
    service = ShellService(
        config,
        runner=runner,
        guard=AuditedGuard(config.policy) if audit is not None else Guard(config.policy),
        clock=boundaries.clock,
        log=log,
        local_files=boundaries.local_files,
        audit=audit,
        plain_linux=host.platform == "linux" and host.distro is None and not host.wsl_reachable,
    )
    return Assembly(config, service, log)
