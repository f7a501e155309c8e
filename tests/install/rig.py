"""Homes on both sides of WSL for ``wslmcp install`` and ``wslmcp doctor``, and the programs a WSL
host provides, as stand-ins on PATH:

- ``wsl.exe --version`` (in UTF-16LE, as wsl.exe writes it), and ``wsl.exe -d DISTRO -u USER --
  PROGRAM ARGS``: what a Windows client runs. Like WSL, it starts the
  program in the distro with the Linux side's environment plus only the variables ``WSLENV`` names
  (so an entry that forgets ``WSLENV`` loses its settings, as it would for real); an unknown distro
  or another user fails as wsl.exe does.
- ``cmd.exe`` and ``wslpath``: how a run inside WSL finds the Windows user's home (interop).

Every client of the table is installed (its own directory made) on each side it lives on.
"""

from __future__ import annotations

import getpass
import json
import os
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from wslmcp.clients import CLIENTS, under

WSL_EXE = r"""#!/bin/bash
[ "$1" = --version ] && { cat "$STANDIN_DIR/version.out"; exit 0; }
[ "$1" = -d ] || { echo "wsl.exe stand-in: expected -d DISTRO" >&2; exit 2; }
distro=$2; shift 2
grep -qxF -- "$distro" "$STANDIN_DIR/distros" || {
  echo "There is no distribution with the supplied name." >&2; exit 1; }
if [ "$1" = -u ]; then
  [ "$2" = "$(id -un)" ] || { echo "User not found." >&2; exit 1; }
  shift 2
fi
[ "$1" = -- ] || { echo "wsl.exe stand-in: expected --" >&2; exit 2; }
shift
carried=()
IFS=: read -ra names <<< "${WSLENV-}"
for n in "${names[@]}"; do n=${n%%/*}; [ -n "$n" ] && [ -n "${!n+x}" ] && carried+=("$n=${!n}"); done
exec env -i HOME="$LINUX_HOME" PATH="$LINUX_PATH" WSL_DISTRO_NAME="$distro" "${carried[@]}" "$@"
"""

DISTRO = "Ubuntu-24.04"


def _script(path: Path, body: str) -> None:
    path.write_text(body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


@dataclass
class Rig:
    linux: Path  # the distro user's home
    windows: Path  # the Windows user's home, as the distro sees it
    project: Path
    bin: Path
    cwd: Path

    def env(self, *, inside_wsl: bool = True, interop: bool = True) -> dict[str, str]:
        """The environment of a run inside WSL (``WSL_DISTRO_NAME`` set, interop on PATH)."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(("WSL", "WSLMCP_"))}
        env["HOME"] = str(self.linux)
        env["LINUX_HOME"] = str(self.linux)
        env["LINUX_PATH"] = os.environ["PATH"]
        env["STANDIN_DIR"] = str(self.bin.parent)
        env["WSLMCP_STATE_DIR"] = str(self.cwd / "state")
        if interop:
            env["PATH"] = f"{self.bin}{os.pathsep}{os.environ['PATH']}"
        if inside_wsl:
            env["WSL_DISTRO_NAME"] = DISTRO
        return env

    def run(self, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "wslmcp", *args],
            capture_output=True,
            text=True,
            env=env if env is not None else self.env(),
            cwd=self.cwd,
            timeout=300,
        )

    def install(self, *args: str, env: dict[str, str] | None = None) -> tuple[int, dict[str, object]]:
        done = self.run("install", "--json", *args, env=env)
        assert done.stdout, done.stderr
        return done.returncode, json.loads(done.stdout)

    def snapshot(self) -> dict[str, bytes]:
        """Every file under both homes and the project, by path."""
        return {
            str(p): p.read_bytes()
            for root in (self.linux, self.windows, self.project)
            for p in sorted(root.rglob("*"))
            if p.is_file()
        }


def make_rig(base: Path, *, clients: bool = True) -> Rig:
    linux, windows, project = base / "home" / "dev", base / "c" / "Users" / "Dev User", base / "work" / "app"
    for d in (linux, windows, project, base / "cwd"):
        d.mkdir(parents=True)
    bin_dir = base / "standin" / "bin"
    bin_dir.mkdir(parents=True)
    (base / "standin" / "distros").write_text(DISTRO + "\n")
    version = "WSL version: 2.3.26.0\r\nKernel version: 5.15.167.4-1\r\n"
    (base / "standin" / "version.out").write_bytes(version.encode("utf-16-le"))  # as wsl.exe writes it
    _script(bin_dir / "wsl.exe", WSL_EXE)
    _script(bin_dir / "cmd.exe", "#!/bin/sh\nprintf '%s\\r\\n' 'C:\\Users\\Dev User'\n")
    _script(bin_dir / "wslpath", f"#!/bin/sh\n[ \"$1\" = -u ] && echo '{windows}' && exit 0\nexit 1\n")
    rig = Rig(linux, windows, project, bin_dir, base / "cwd")
    if clients:
        install_every_client(rig)
    return rig


def install_every_client(rig: Rig) -> None:
    """Each client's own directory (what says it is installed) on each side it lives on."""
    for known in CLIENTS:
        for config in known.configs:
            if config.scope != "user":
                continue
            for side, home in (("linux", rig.linux), ("windows", rig.windows)):
                if side in config.sides:
                    Path(under(str(home), config.marker)).mkdir(parents=True, exist_ok=True)


def user() -> str:
    return getpass.getuser()
