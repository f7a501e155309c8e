"""A `wsl.exe` stand-in for Linux CI: a real executable on PATH that logs every call, answers
listings in UTF-16LE like wsl.exe does, and runs `-d NAME --exec ...` / `--exec ...` on this
machine (so the sample script reads the real /proc) with WSL_DISTRO_NAME set as WSL would."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

SCRIPT = """#!/bin/sh
printf '%s\\n' "$*" >> "$WSL_STANDIN_DIR/calls.log"
case "$1" in
  --list) cat "$WSL_STANDIN_DIR/list.out" ;;
  --exec) shift; WSL_DISTRO_NAME="$WSL_STANDIN_DEFAULT" exec "$@" ;;
  -d)
    if [ "$2" = "Stopped" ]; then cat "$WSL_STANDIN_DIR/stopped.err" >&2; exit 1; fi
    name=$2; shift 2; [ "$1" = "--exec" ] && shift
    WSL_DISTRO_NAME="$name" exec "$@" ;;
  *) exit 2 ;;
esac
"""


@dataclass
class StandIn:
    directory: Path
    bin_dir: Path

    def env(self, default: str = "Ubuntu") -> dict[str, str]:
        return {
            "PATH": f"{self.bin_dir}{os.pathsep}{os.environ['PATH']}",
            "WSL_STANDIN_DIR": str(self.directory),
            "WSL_STANDIN_DEFAULT": default,
        }

    def calls(self) -> list[str]:
        return (self.directory / "calls.log").read_text().splitlines()


def make_standin(directory: Path, running: list[str]) -> StandIn:
    bin_dir = directory / "bin"
    bin_dir.mkdir(parents=True)
    exe = bin_dir / "wsl.exe"
    exe.write_text(SCRIPT)
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    (directory / "list.out").write_bytes("".join(f"{n}\r\n" for n in running).encode("utf-16-le"))
    (directory / "stopped.err").write_bytes(
        "The distribution 'Stopped' is not running.\r\n".encode("utf-16-le")
    )
    (directory / "calls.log").write_text("")
    return StandIn(directory, bin_dir)
