"""A `wsl.exe` stand-in for the shell transport: a real executable that records each call's argv
(NUL-separated) and its WSL_UTF8, answers `-l -v` in UTF-16LE with CRLF like wsl.exe, and runs
`-d DISTRO [-u USER] --exec bash -lc SCRIPT` in a NEW SESSION (setsid), so that killing the
stand-in leaves the "Linux side" running, exactly as killing wsl.exe does on Windows."""

from __future__ import annotations

import getpass
import os
import stat
from dataclasses import dataclass
from pathlib import Path

import pytest

from wslmcp.boundaries.shell_transport import LocalTransport, ShellTransport, WslExeTransport
from wslmcp.boundaries.wsl_exe import WslExeCli

SCRIPT = r"""#!/bin/bash
n=$(date +%s%N)-$$
printf '%s\0' "$@" > "$WSLSH_STANDIN_DIR/calls/$n.argv"
printf '%s' "${WSL_UTF8-unset}" > "$WSLSH_STANDIN_DIR/calls/$n.utf8"
if [ "$1" = -l ] && [ "$2" = -v ]; then cat "$WSLSH_STANDIN_DIR/list.out"; exit 0; fi
[ "$1" = -d ] || exit 2
distro=$2; shift 2
if ! grep -qxF -- "$distro" "$WSLSH_STANDIN_DIR/distros"; then
  cat "$WSLSH_STANDIN_DIR/nodistro.out"; exit 1
fi
if [ "$1" = -u ]; then shift 2; fi
[ "$1" = --exec ] || exit 2
shift
exec setsid -w "$@"
"""


@dataclass
class WslStandIn:
    directory: Path
    bin_dir: Path

    @property
    def executable(self) -> str:
        return str(self.bin_dir / "wsl.exe")

    def env(self) -> dict[str, str]:
        return {
            "PATH": f"{self.bin_dir}{os.pathsep}{os.environ['PATH']}",
            "WSLSH_STANDIN_DIR": str(self.directory),
        }

    def calls(self) -> list[list[str]]:
        files = sorted((self.directory / "calls").glob("*.argv"), key=lambda p: p.stat().st_mtime_ns)
        return [p.read_bytes().decode().split("\0")[:-1] for p in files]

    def utf8_flags(self) -> list[str]:
        return [p.read_text() for p in (self.directory / "calls").glob("*.utf8")]


def make_wsl_standin(directory: Path, distros: dict[str, str]) -> WslStandIn:
    """``distros``: name -> state (Running/Stopped) as `wsl -l -v` lists them."""
    bin_dir = directory / "bin"
    bin_dir.mkdir(parents=True)
    (directory / "calls").mkdir()
    exe = bin_dir / "wsl.exe"
    exe.write_text(SCRIPT)
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    rows = ["  NAME      STATE           VERSION"]
    for i, (name, state) in enumerate(distros.items()):
        rows.append(f"{'*' if i == 0 else ' '} {name:<9} {state:<15} 2")
    (directory / "list.out").write_bytes(("\r\n".join(rows) + "\r\n").encode("utf-16-le"))
    (directory / "distros").write_text("".join(f"{n}\n" for n in distros))
    (directory / "nodistro.out").write_bytes(
        "There is no distribution with the supplied name.\r\nError code: Wsl/Service/WSL_E_DISTRO_NOT_FOUND\r\n".encode(
            "utf-16-le"
        )
    )
    return WslStandIn(directory, bin_dir)


def transport_of(kind: str, directory: Path, monkeypatch: pytest.MonkeyPatch) -> ShellTransport:
    """The local transport (``kind`` "local"), or the wsl.exe transport driving a stand-in made in
    ``directory`` with distro Ubuntu (``monkeypatch`` puts it on PATH): the two a contract runs on."""
    if kind == "local":
        return LocalTransport()
    standin = make_wsl_standin(directory / "standin", {"Ubuntu": "Running"})
    for key, value in standin.env().items():
        monkeypatch.setenv(key, value)
    return WslExeTransport(WslExeCli("wsl.exe", kill_on_overflow=True), "Ubuntu", getpass.getuser())
