"""The distro's state: ``wsl.exe -l -v`` parsing and the facts probe (networking mode, PID 1, kernel)."""

from __future__ import annotations

import re
from dataclasses import dataclass

FACTS_SCRIPT = r"""m=$(wslinfo --networking-mode 2>/dev/null) || m=unknown
i=$(cat /proc/1/comm 2>/dev/null) || i=unknown
k=$(uname -r 2>/dev/null) || k=unknown
printf 'mode=%s\ninit=%s\nkernel=%s\n' "${m:-unknown}" "${i:-unknown}" "${k:-unknown}"
"""
FACTS_TIMEOUT_S = 10.0

_ROW = re.compile(r"^\s*(\*?)\s*(\S+)\s+(Running|Stopped|Installing|Converting|Uninstalling)\s+(\d)\s*$")


@dataclass(frozen=True)
class DistroState:
    installed: bool
    state: str  # Running, Stopped, Installing, ... or "unknown"
    wsl_version: int | None = None
    default: bool = False


@dataclass(frozen=True)
class Facts:
    networking_mode: str
    init: str
    kernel: str

    @property
    def systemd(self) -> bool:
        return self.init == "systemd"

    @property
    def wsl_version_from_kernel(self) -> int | None:
        k = self.kernel.lower()
        if "microsoft-standard-wsl2" in k or "wsl2" in k:
            return 2
        if "microsoft" in k:
            return 1
        return None


def parse_listing(text: str, distro: str) -> DistroState:
    """Find ``distro`` (case-insensitively) in the text of ``wsl.exe -l -v``."""
    for line in text.splitlines():
        m = _ROW.match(line)
        if m and m.group(2).lower() == distro.lower():
            return DistroState(True, m.group(3), int(m.group(4)), default=bool(m.group(1)))
    return DistroState(False, "unknown")


def parse_facts(stdout: str) -> Facts:
    values: dict[str, str] = {}
    for line in stdout.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            values[key.strip()] = value.strip()
    return Facts(
        networking_mode=values.get("mode") or "unknown",
        init=values.get("init") or "unknown",
        kernel=values.get("kernel") or "unknown",
    )


def status_line(state: DistroState, facts: Facts | None, transport_kind: str) -> str:
    if not state.installed:
        return "distro: NOT FOUND in 'wsl -l -v' — check the name (wsl -l -q) and the WSL_DISTRO variable"
    version = state.wsl_version or (facts.wsl_version_from_kernel if facts else None)
    if not version and transport_kind == "local" and facts is not None:
        parts = ["this machine: running, local Linux (not WSL)"]
    else:
        parts = [f"distro: {state.state}"] + ([f"WSL {version}"] if version else [])
    if facts is not None:
        if facts.networking_mode != "unknown":
            parts.append(f"networking {facts.networking_mode}")
        parts.append("systemd" if facts.systemd else f"no systemd (PID 1: {facts.init})")
        if facts.kernel != "unknown":
            parts.append(f"kernel {facts.kernel}")
    line = "  ·  ".join(parts)
    if state.state == "Stopped":
        line += "  (the first command will start it)"
    return line
