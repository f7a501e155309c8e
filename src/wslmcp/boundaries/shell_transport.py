"""Where shell scripts run: inside a WSL distro through wsl.exe, or in a local login bash.

Contract
--------
``kind``            ``"wsl.exe"`` or ``"local"``.
``user``            the Linux user scripts run as, or None for the distro's default user.
``confinement``     the sandbox every script runs in (``Confinement``), or None.
``run(ScriptCall(script, stdin=None, timeout_s=None, max_output=..., stdout_sink=None, login=True,
confine="own"))``
    ``-> Exchange``. ``ScriptCall`` is the one request value (adapters, twins and the runner take it).
    Runs ``script`` (one bash script, passed as ONE argument) in a login bash (``bash -lc``; with
    ``login=False`` a plain ``bash -c`` that sources no profile, for fixed scripts) as the configured
    user; with a confinement, inside it (``distro_argv``: the one place the command is built).
    stdin is closed unless bytes, a ``ByteSource`` (streamed) or a ``ByteStream`` (fed as it comes:
    a background process) are given; stdout/stderr are the Linux command's bytes, untouched (one
    stream with ``merge_stderr``); ``stdout_sink`` takes stdout as it arrives. A non-zero exit
    is a normal result. At the deadline (or once a stream passes ``max_output`` bytes,
    ``overflowed``) the transport's own process is killed; the local transport stops its process
    group first and names every member in ``Exchange.killed``. Killing what runs *inside the
    distro* beyond that is the caller's job (``wslmcp.shell.runner`` sweeps by run token).
``files``           the distro's files reached in process (``boundaries.distro_files``), where that is
                    the same as a script reaching them: the local transport with no confinement;
                    else None (the file tools run their scripts).
``list_distros() -> str | None``
    The decoded text of ``wsl.exe -l -v`` (wsl.exe transport), or None where there is no listing
    (local transport: the commands run on this machine, which is running by definition).
Errors
    ``TransportError`` when the transport itself fails: wsl.exe missing, wsl.exe reporting a
    failure of its own (unknown distro, WSL service down: exit status 4294967295 / -1; its message
    is decoded from UTF-16LE or UTF-8), bash missing, or a local user mismatch.

The wsl.exe transport builds ``wsl.exe -d DISTRO [-u USER] --exec bash -lc SCRIPT`` (under a
sandbox ``--exec bash -p -c LAUNCHER wslmcp-sandbox own -lc SCRIPT``, the launcher then running
bubblewrap): never ``--`` (which would hand the script to the distro's default shell for a second
parse), never ``--cd`` (which silently falls back to ``/``). The local transport runs
``bash -lc SCRIPT`` directly (or the same under a sandbox); it is used when the server already runs inside the configured distro, or on a Linux machine with no
wsl.exe (CI), where WSL_DISTRO is only a label and WSL_USER must be the user running the server.
"""

from __future__ import annotations

import contextlib
import getpass
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from wslmcp.boundaries.distro_files import DistroFiles, HereFiles
from wslmcp.boundaries.process import Exchange, Streams, run_process
from wslmcp.boundaries.wsl_exe import WSL_OWN_FAILURE, WslCall, WslExe, decode_wsl_output

LISTING_TIMEOUT_S = 10.0


class TransportError(RuntimeError):
    """The transport could not run the script at all (as opposed to the script failing)."""


# Under a sandbox: "own" runs the script in a PID namespace of its own (every command and file-tool
# script); "distro-pids" shares the distro's, for the fixed scripts that must see its processes (the
# kill sweep, the facts probe); "probe" checks that the sandbox can be set up and runs nothing;
# "check" runs the after-command check of the runs whose tokens the script names, and nothing else;
# "kept" is "own" without that check (a command a person approved changing what runs later: kept);
# "none" runs outside it (one command a person approved: wsl_exec's and wsl_start's unsandboxed).
Confine = Literal["own", "kept", "distro-pids", "probe", "check", "none"]


@dataclass(frozen=True)
class ScriptCall(Streams):
    """One bash script to run (passed as ONE argument), in a login shell unless ``login=False``,
    with its streams handled as ``Streams`` says."""

    script: str
    login: bool = True
    confine: Confine = "own"
    # the directory the script starts by entering (a sandbox checks what runs later there and in
    # each directory above it within its writable root)
    cwd: str | None = None
    # under a sandbox, the mark of the after-command check's report on stderr (empty: no report there)
    tag: str = ""


@dataclass(frozen=True)
class Confinement:
    """A sandbox: the fixed bash launcher (``wslmcp.shell.sandbox.launcher``) that runs in front of
    every script and takes the confinement, the shell's flag and the script as its arguments."""

    launcher: str


class ShellTransport(Protocol):
    kind: str
    user: str | None  # the Linux user scripts run as, when known (None: the distro's default user)
    confinement: Confinement | None

    @property
    def files(self) -> DistroFiles | None:
        """The distro's files in process, where a script would reach the same (else None)."""
        ...

    async def run(self, call: ScriptCall) -> Exchange: ...

    async def list_distros(self) -> str | None: ...


def bash_flags(login: bool) -> str:
    return "-lc" if login else "-c"


def distro_argv(call: ScriptCall, confinement: Confinement | None) -> list[str]:
    """What runs in the distro for ``call``, whatever the transport: ``bash -lc SCRIPT`` (``-c``
    without login), or under a sandbox ``bash -p -c LAUNCHER wslmcp-sandbox CONFINE -lc SCRIPT CWD TAG``
    (unless ``confine="none"``)."""
    if confinement is None or call.confine == "none":
        return ["bash", bash_flags(call.login), call.script]
    return [  # -p: the launcher runs outside the sandbox, so it takes no BASH_ENV, no exported function
        "bash",
        "-p",
        "-c",
        confinement.launcher,
        "wslmcp-sandbox",
        call.confine,
        bash_flags(call.login),
        call.script,
        call.cwd or "",
        call.tag,
    ]


def wsl_args(distro: str, user: str | None, argv: Sequence[str]) -> list[str]:
    """The argument vector after ``wsl.exe``: ``-d D [-u U] --exec ARGV``."""
    args = ["-d", distro]
    if user:
        args += ["-u", user]
    return [*args, "--exec", *argv]


def wsl_exec_args(distro: str, user: str | None, script: str, *, login: bool = True) -> list[str]:
    """``-d D [-u U] --exec bash -lc SCRIPT`` (``-c`` without ``login``), with no sandbox."""
    return wsl_args(distro, user, distro_argv(ScriptCall(script, login=login), None))


@contextlib.contextmanager
def _starting(program: str) -> Iterator[None]:
    """A program that cannot be started is the transport's own failure."""
    try:
        yield
    except (FileNotFoundError, PermissionError) as exc:
        raise TransportError(f"{program} could not be started: {exc}") from exc


class WslExeTransport:
    """Runs scripts in ``distro`` as ``user`` through a ``WslExe`` (real, stand-in or replayed)."""

    kind = "wsl.exe"

    def __init__(
        self, wsl_exe: WslExe, distro: str, user: str | None, confinement: Confinement | None = None
    ) -> None:
        self.wsl_exe = wsl_exe
        self.distro = distro
        self.user = user
        self.confinement = confinement
        self.files: DistroFiles | None = None

    async def run(self, call: ScriptCall) -> Exchange:
        with _starting("wsl.exe"):
            args = wsl_args(self.distro, self.user, distro_argv(call, self.confinement))
            exchange = await self.wsl_exe.run(WslCall.of(args, call))
        if exchange.exit_code in WSL_OWN_FAILURE:
            said = "\n".join(
                part
                for part in (
                    decode_wsl_output(exchange.stdout).strip(),
                    decode_wsl_output(exchange.stderr).strip(),
                )
                if part
            )
            raise TransportError(
                f"wsl.exe failed for distro '{self.distro}': "
                + (said or "it reported a failure of its own (unknown distro, WSL service down)")
            )
        return exchange

    async def list_distros(self) -> str | None:
        with _starting("wsl.exe"):
            exchange = await self.wsl_exe.run(
                WslCall(["-l", "-v"], timeout_s=LISTING_TIMEOUT_S, max_output=1 << 20)
            )
        if exchange.timed_out:
            raise TransportError(f"'wsl.exe -l -v' did not answer within {LISTING_TIMEOUT_S:g} s")
        return decode_wsl_output(exchange.stdout)


def current_user() -> str:
    return getpass.getuser()


class LocalTransport:
    """Runs scripts in a login bash on this machine, as the user running the server.

    ``user``: the configured WSL_USER; when set it must be the current user (this transport cannot
    switch users), otherwise construction raises ``TransportError``.
    """

    kind = "local"

    def __init__(
        self,
        user: str | None = None,
        *,
        confinement: Confinement | None = None,
        in_process_files: bool = True,
    ) -> None:
        me = current_user()
        if user and user != me:
            raise TransportError(
                f"WSL_USER={user} but the local transport runs commands as '{me}', the user running this "
                f"server; run the server as {user}, unset WSL_USER, or use WSLMCP_SHELL_TRANSPORT=wsl.exe"
            )
        self.user: str | None = me
        self.confinement = confinement
        self.home = os.path.expanduser("~")
        self._here = HereFiles() if in_process_files else None

    @property
    def files(self) -> DistroFiles | None:
        """Scripts run here as this user: while unconfined (no sandbox, or ``auto`` found it cannot
        run and dropped it), the file tools may read and write in process."""
        return self._here if self.confinement is None else None

    async def run(self, call: ScriptCall) -> Exchange:
        with _starting("bash"):
            return await run_process(
                distro_argv(call, self.confinement),
                call,
                kill_on_overflow=True,
                kill_group_on_exit=False,
                name_killed=True,
                cwd=self.home,
            )

    async def list_distros(self) -> str | None:
        return None
