"""A `wsl.exe` stand-in for Linux CI: a real executable on PATH that logs every call, answers
listings in UTF-16LE like wsl.exe does, and runs `-d NAME --exec ...` / `--exec ...` on this
machine (so the sample script reads the real /proc) with WSL_DISTRO_NAME set as WSL would.

With ``tools``, what runs "inside the distro" sees a PATH holding only those commands, each a
logging shim that execs the real one: a distro without perl (or without bash) is modelled by
leaving it out, and ``spawns()`` lists every command the sample script started, in order.
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

SCRIPT = """#!/bin/sh
printf '%s\\n' "$*" >> "$WSL_STANDIN_DIR/calls.log"
case "$1" in
  --list) cat "$WSL_STANDIN_DIR/list.out" ;;
  --exec)
    shift; [ -n "$WSL_STANDIN_PATH" ] && PATH=$WSL_STANDIN_PATH
    WSL_DISTRO_NAME="$WSL_STANDIN_DEFAULT" exec "$@" ;;
  -d)
    if [ "$2" = "Stopped" ]; then cat "$WSL_STANDIN_DIR/stopped.err" >&2; exit 1; fi
    name=$2; shift 2; [ "$1" = "--exec" ] && shift
    [ -n "$WSL_STANDIN_PATH" ] && PATH=$WSL_STANDIN_PATH
    WSL_DISTRO_NAME="$name" exec "$@" ;;
  *) exit 2 ;;
esac
"""

SHIM = """#!/bin/sh
printf '%s\\n' {name} >> "$WSL_STANDIN_DIR/spawns.log"
exec {real} "$@"
"""

# Every command the sample script (any of its paths) may start inside a distro.
DISTRO_TOOLS: tuple[str, ...] = ("sh", "bash", "perl", "od", "tr", "getconf", "cat", "date", "readlink")


@dataclass
class StandIn:
    directory: Path
    bin_dir: Path
    distro_bin: Path | None = None

    def env(self, default: str = "Ubuntu") -> dict[str, str]:
        env = {
            "PATH": f"{self.bin_dir}{os.pathsep}{os.environ['PATH']}",
            "WSL_STANDIN_DIR": str(self.directory),
            "WSL_STANDIN_DEFAULT": default,
        }
        if self.distro_bin is not None:
            env["WSL_STANDIN_PATH"] = str(self.distro_bin)
        return env

    def calls(self) -> list[str]:
        return (self.directory / "calls.log").read_text().splitlines()

    def spawns(self) -> list[str]:
        """The commands started inside the "distro" so far (only with ``tools``)."""
        return (self.directory / "spawns.log").read_text().splitlines()


def _executable(path: Path, text: str) -> None:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


def make_standin(directory: Path, running: list[str], tools: Sequence[str] | None = None) -> StandIn:
    bin_dir = directory / "bin"
    bin_dir.mkdir(parents=True)
    _executable(bin_dir / "wsl.exe", SCRIPT)
    (directory / "list.out").write_bytes("".join(f"{n}\r\n" for n in running).encode("utf-16-le"))
    (directory / "stopped.err").write_bytes(
        "The distribution 'Stopped' is not running.\r\n".encode("utf-16-le")
    )
    (directory / "calls.log").write_text("")
    (directory / "spawns.log").write_text("")
    distro_bin = None
    if tools is not None:
        distro_bin = directory / "distro-bin"
        distro_bin.mkdir()
        for name in tools:
            real = shutil.which(name)
            if real is None:
                raise FileNotFoundError(f"the stand-in distro needs {name!r} on this machine")
            _executable(distro_bin / name, SHIM.format(name=name, real=real))
    return StandIn(directory, bin_dir, distro_bin)
