"""The fault tests' servers (observe on a scenario, shell on the local transport) for the stdio
test client, and process-tree helpers."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tests.stdio_client import INITIALIZED, PROTOCOL, Server, init_frame

__all__ = ["INITIALIZED", "PROTOCOL", "Server", "init_frame"]

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "scenarios" / "slow-build"


def observe_command() -> list[str]:
    return [sys.executable, "-m", "wslmcp", "observe", "--replay", str(SCENARIO)]


def shell_command() -> list[str]:
    return [sys.executable, "-m", "wslmcp", "shell"]


def shell_env(tmp: Path, **extra: str) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("WSL_")}
    return {
        **clean,
        "WSLMCP_SHELL_TRANSPORT": "local",
        "WSL_MCP_LOG_LEVEL": "silent",
        "WSL_DISTRO": "Ubuntu",
        "WSL_CWD": str(tmp),
        "HOME": str(tmp),  # a clean login shell: nothing of this machine's profile runs
        "WSL_SANDBOX": "off",  # what these tests exercise is not the sandbox (its own suites run it)
        **extra,
    }


def descendants(pid: int) -> set[int]:
    """Every live process below ``pid``, from /proc's parent links."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        children = {p for p, parent in parents.items() if parent in frontier} - found
        found |= children
        frontier = children
    return found


def alive(pid: int) -> bool:
    """A live process (a zombie awaiting its reaper counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"
