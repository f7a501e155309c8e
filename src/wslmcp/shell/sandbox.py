"""The OS sandbox beneath the guard: bubblewrap confines every script the shell server runs.

Pure: ``profile_for`` turns the policy and the ``WSL_SANDBOX*`` settings into a ``Profile`` (data);
``shell.sandbox_launcher`` turns a profile into the fixed bash script that runs inside the distro in
front of every command, and this module reads what comes back (the probe's facts, the after-command
check's report) and says what the sandbox did (the ``[sandbox]`` lines). Nothing here runs anything:
the transports put the launcher in front of every script (``boundaries.shell_transport.Confinement``).

``WSL_SANDBOX``: ``auto`` (the default) turns the sandbox on when its probe passes and otherwise
serves with the guard alone, saying so once; ``on`` requires it (nothing runs without it); ``off``.

The profile, in the order the mounts are made (deeper paths after shallower ones):
- the root read-only; a fresh ``/dev`` and ``/proc``; a private ``/tmp`` and ``/run/user/<uid>`` (their
  sockets stay out; ``WSL_CWD`` stays visible, read-only); new user (all capabilities
  dropped, root included), PID, IPC and UTS namespaces; the sandbox dies with its parent and runs in
  a new session; the network unshared when ``WSL_SANDBOX_NETWORK=off``;
- writable roots: ``WSL_ALLOWED_PATHS`` when set, else the home; none in read-only mode; roots on a
  Windows drive only when Windows is allowed, and a drive under a writable root stays read-only
  unless it is;
- inside writable roots, what runs later (``guard.paths.RUNS_LATER``; in each project the command can
  reach its git hooks and configuration, MCP configuration and agent settings) is compared with what
  was there before each command, and what would run later outside the sandbox is put back (see
  ``shell.sandbox_launcher``); what runs later and is a directory that exists (``~/.config/systemd``,
  ``~/.vim``) stays read-only, and every directory between the root and it is a mount point of its
  own, so it cannot be renamed away and made again;
- hidden (an empty directory or read-only file with mode 000, so reading says "Permission denied"):
  the operator paths the guard knows (the client table, ``wslmcp.clients``), under the home those of
  the Linux side and under every Windows user profile those of the Windows side, the
  sockets that give host control, WSL's interop sockets unless Windows is allowed, and
  ``WSL_HIDE_PATHS``;
- variables whose names look like secrets are not passed in (bubblewrap itself starts with no
  environment, so no process of the sandbox holds them); ``WSL_INTEROP`` only with Windows allowed;
  file size and (per user namespace) process count are limited.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass
from typing import Literal

from wslmcp.shell.guard import Policy
from wslmcp.shell.guard.paths import (
    HIDDEN_IN_HOME,
    HIDDEN_IN_PROFILES,
    HOST_CONTROL_SOCKETS,
    RUNS_LATER,
    RUNS_LATER_IN_PROJECT,
    WINDOWS_INTEROP_SOCKETS,
    WINDOWS_PROFILES,
    mount_of,
)
from wslmcp.shell.guard.registry.git import COMMAND_SETTINGS, COMMAND_WHEN_BANG

SandboxMode = Literal["off", "on", "auto"]

# Names of variables not passed into the sandbox (case-insensitive globs), and why: they look like
# secrets; the SSH agent's socket signs with the operator's keys.
SECRET_VARIABLES = ("*TOKEN*", "*SECRET*", "*PASSWORD*", "*_KEY", "SSH_AUTH_SOCK")
# RLIMIT_NPROC, counted per user namespace (each sandbox has its own), so it bounds a fork bomb of an
# ordinary user without counting the user's other processes. The kernel never applies it to uid 0:
# for root only the deadline bounds a fork bomb, and it ends the whole PID namespace in one kill.
MAX_PROCESSES = 1024
MAX_FILE_BYTES = 4 << 30  # RLIMIT_FSIZE: no single file past 4 GiB (many smaller files still can be)

INSTALL_COMMANDS = {
    "apt-get": "sudo apt-get install -y bubblewrap",
    "dnf": "sudo dnf install -y bubblewrap",
    "yum": "sudo yum install -y bubblewrap",
    "zypper": "sudo zypper install -y bubblewrap",
    "pacman": "sudo pacman -S --noconfirm bubblewrap",
    "apk": "sudo apk add bubblewrap",
}


@dataclass(frozen=True)
class SandboxSettings:
    """``WSL_SANDBOX``, ``WSL_SANDBOX_NETWORK`` and ``WSL_HIDE_PATHS`` as parsed; ``check``: the
    after-command check (``WSLMCP_SANDBOX_CHECK=off`` turns it off, to measure what it costs)."""

    mode: SandboxMode = "auto"
    network: bool = True
    hide_paths: tuple[str, ...] = ()
    check: bool = True

    @property
    def on(self) -> bool:
        """Whether scripts are to run in the sandbox (``auto``: when its probe passes)."""
        return self.mode != "off"

    @property
    def required(self) -> bool:
        """``on``: nothing runs without the sandbox."""
        return self.mode == "on"


@dataclass(frozen=True)
class Profile:
    """What the sandbox allows, as data. Paths starting with ``~`` are under the user's home; ``*``
    stands for one path component (looked up inside the distro at every call)."""

    writable: tuple[str, ...]
    runs_later: tuple[tuple[str, str], ...]  # (why, path) put back after each command inside writable roots
    git_configs: tuple[str, ...]  # the global and system git configuration files
    # (why, path) relative to each project the command can reach (its git repository's are found)
    in_project: tuple[tuple[str, str], ...]
    hidden: tuple[str, ...]
    sockets: tuple[str, ...]  # hidden too
    read_only: tuple[str, ...]  # Windows drives kept read-only under a writable root
    network: bool
    interop: bool
    left_read_only: tuple[str, ...] = ()  # configured roots on a Windows drive while Windows is closed
    visible: tuple[str, ...] = ()  # shown read-only where the sandbox is private (WSL_CWD under /tmp)
    max_processes: int = MAX_PROCESSES
    max_file_bytes: int = MAX_FILE_BYTES
    secret_variables: tuple[str, ...] = SECRET_VARIABLES
    check: bool = True  # the after-command check

    def shown(self, paths: tuple[str, ...], home: str | None) -> tuple[str, ...]:
        """``paths`` with ``~`` replaced by ``home`` when it is known."""
        if not home:
            return paths
        return tuple(home.rstrip("/") + p[1:] if p == "~" or p.startswith("~/") else p for p in paths)


GIT_CONFIGURATION, GIT_HOOKS = "git configuration", "git hooks"  # (their labels in guard.paths)
# A directory that runs later, of which only these files run anything (hooks, helpers, MCP servers).
SETTINGS_FILES = {".claude": ("settings.json", "settings.local.json")}


def under(path: str, root: str) -> bool:
    """Whether the normalised absolute ``path`` is ``root`` or lies below it."""
    return root in ("/", path) or path.startswith(root.rstrip("/") + "/")


def profile_for(policy: Policy, settings: SandboxSettings, cwd: str | None = None) -> Profile:
    """The sandbox ``policy`` and ``settings`` ask for (see the module docstring); ``cwd`` is the
    configured start directory, kept visible even where the sandbox is private."""
    roots: tuple[str, ...] = () if policy.readonly else (policy.allowed_paths or ("~",))
    on_drive = tuple(r for r in roots if mount_of(r) is not None)
    writable = roots if policy.allow_windows else tuple(r for r in roots if r not in on_drive)
    drives_under_root = any(under("/mnt/c", r) for r in writable if r != "~")
    sockets = [path for _, path in HOST_CONTROL_SOCKETS]
    if not policy.allow_windows:
        sockets += [path for _, path in WINDOWS_INTEROP_SOCKETS]
    return Profile(
        writable=writable,
        runs_later=tuple((why, path) for why, path in RUNS_LATER if why != GIT_CONFIGURATION),
        git_configs=tuple(_git_file(path) for why, path in RUNS_LATER if why == GIT_CONFIGURATION),
        in_project=tuple(
            (why, f"{path}/{name}" if path in SETTINGS_FILES else path)
            for why, path in RUNS_LATER_IN_PROJECT
            if why not in (GIT_CONFIGURATION, GIT_HOOKS)
            for name in SETTINGS_FILES.get(path, ("",))
        ),
        hidden=HIDDEN_IN_HOME + HIDDEN_IN_PROFILES + settings.hide_paths,
        sockets=tuple(sockets),
        read_only=("/mnt/[a-zA-Z]",) if drives_under_root and not policy.allow_windows else (),
        network=settings.network,
        interop=policy.allow_windows,
        left_read_only=() if policy.allow_windows else on_drive,
        visible=(cwd,) if cwd else (),
        check=settings.check,
    )


def _git_file(path: str) -> str:
    """A git configuration location as its file (``~/.config/git`` holds ``config``)."""
    return path if path.rsplit("/", 1)[-1] != "git" else path + "/config"


# -- the probe ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ProbeFacts:
    """What the launcher's ``probe`` mode printed (``key=value`` lines)."""

    home: str = ""
    bwrap: str = ""
    version: str = ""
    kernel: str = ""
    userns: str = ""
    installer: str = ""
    status: str = ""
    error: str = ""
    # what the checks that runs of servers since gone left undone were found to undo (one line each)
    undone: tuple[str, ...] = ()


def parse_probe(stdout: str) -> ProbeFacts:
    values: dict[str, str] = {}
    undone = []
    for line in stdout.splitlines():
        key, sep, value = line.partition("=")
        if sep and key == "undone":
            undone.append(value)
        elif sep and key in ProbeFacts.__dataclass_fields__:
            values[key] = value.strip()
    return ProbeFacts(**values, undone=tuple(undone))


def _wsl1(kernel: str) -> bool:
    lowered = kernel.lower()
    return "microsoft" in lowered and "wsl2" not in lowered and "microsoft-standard" not in lowered


@dataclass(frozen=True)
class ProbeFailure:
    """Why the sandbox cannot run (``reason``) and what would turn it on (``remedy``)."""

    reason: str
    remedy: str

    def __str__(self) -> str:
        return f"{self.reason}; {self.remedy}"


def probe_failure(facts: ProbeFacts, distro: str) -> ProbeFailure | None:
    """Why the sandbox cannot run, classified, or None when the confined test run passed."""
    if not facts.bwrap:
        install = INSTALL_COMMANDS.get(facts.installer)
        how = f"install it in the distro: {install}" if install else "install the distro's bubblewrap package"
        return ProbeFailure(f"bubblewrap (bwrap) is not installed in '{distro}'", how)
    if _wsl1(facts.kernel):
        return ProbeFailure(
            f"'{distro}' runs under WSL 1 ({facts.kernel}), which has no user namespaces",
            f"convert it with 'wsl --set-version {distro} 2'",
        )
    if facts.status == "0":
        return None
    error = facts.error or f"bwrap exited with status {facts.status or 'unknown'}"
    if facts.userns == "0" or re.search(r"namespace|uid map|setgroups|Operation not permitted", error):
        return ProbeFailure(
            f"user namespaces are not usable in '{distro}' (max_user_namespaces={facts.userns or '?'}): {error}",
            "allow unprivileged user namespaces in the distro (sysctl user.max_user_namespaces above 0; "
            "on Ubuntu 24.04 kernel.apparmor_restrict_unprivileged_userns=0)",
        )
    if re.search(r"[Mm]ount|[Cc]an't (bind|create|mount|make)", error):
        return ProbeFailure(
            f"the sandbox could not set up its mounts in '{distro}': {error}", "see `wslmcp shell --check`"
        )
    return ProbeFailure(f"the sandbox could not start in '{distro}': {error}", "see `wslmcp shell --check`")


# -- what a reply says about it -----------------------------------------------------------------------


@dataclass(frozen=True)
class SandboxView:
    """The sandbox as a structured result carries it: ``{mode, writable, hidden, network}``."""

    mode: str
    writable: tuple[str, ...]
    hidden: tuple[str, ...]
    network: bool

    def as_json(self) -> dict[str, object]:
        return {
            "mode": self.mode,
            "writable": list(self.writable),
            "hidden": list(self.hidden),
            "network": self.network,
        }


def view(profile: Profile, home: str | None, hide_paths: tuple[str, ...] = ()) -> SandboxView:
    """What a structured result carries, on every call (so what is hidden is named by kind; ``wslmcp
    shell explain --sandbox`` lists every path): the writable roots, what is hidden, the network."""
    hidden = [
        "credentials, keys and MCP client configuration in the home and every Windows user profile",
        "the sockets of Docker, containerd, Podman, D-Bus and systemd",
    ]
    if not profile.interop:
        hidden.append("Windows interop (/run/WSL)")
    return SandboxView("on", profile.shown(profile.writable, home), (*hidden, *hide_paths), profile.network)


def explain(profile: Profile, home: str | None = None) -> dict[str, object]:
    """The whole profile as JSON (``wslmcp shell explain --sandbox``)."""
    return {
        "writable": list(profile.shown(profile.writable, home)),
        "left_read_only": list(profile.left_read_only),
        "put_back_after_each_command": list(profile.shown(tuple(p for _, p in profile.runs_later), home)),
        "git_configuration": list(profile.shown(profile.git_configs, home)),
        "in_each_project": [".git/config", ".git/hooks", *(p for _, p in profile.in_project)],
        "git_settings_undone": [*COMMAND_SETTINGS, *(f"{k} (!command)" for k in COMMAND_WHEN_BANG)],
        "after_command_check": profile.check,
        "hidden": list(profile.shown(profile.hidden, home)),
        "hidden_sockets": list(profile.sockets),
        "network": profile.network,
        "windows_interop": profile.interop,
        "private": [
            "/tmp",
            "/run/user/*",
            "/dev",
            "/proc",
            "PID, IPC and UTS namespaces",
            "a user namespace with no capabilities",
        ],
        "visible_read_only": list(profile.visible),
        "limits": {"processes": profile.max_processes, "file_bytes": profile.max_file_bytes},
        "variables_not_passed": list(profile.secret_variables) + ([] if profile.interop else ["WSL_INTEROP"]),
    }


def summary(profile: Profile, home: str | None, version: str = "") -> str:
    """One line for wsl_list_hosts and ``--check``."""
    writable = ", ".join(profile.shown(profile.writable, home)) or "none (read-only)"
    return (
        f"sandbox: on ({version or 'bubblewrap'})  ·  writable: {writable}  ·  put back after each command: shell "
        f"startup files, git hooks, git settings that run commands{'' if profile.check else ' (check off)'}  ·  hidden: credentials, MCP client configuration, "
        f"{len(profile.sockets)} host sockets  ·  network {'on' if profile.network else 'off'}  ·  "
        f"Windows interop {'open' if profile.interop else 'closed'}"
    )


_STOPPED: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^bwrap: |wslmcp-sandbox: ", re.M), "the sandbox could not start; nothing ran"),
    (
        re.compile(r"no new privileges|effective uid is not 0|must be setuid root|nosuid", re.I),
        "setuid programs (sudo, su, ping…) cannot gain privileges inside the sandbox",
    ),
    (re.compile(r"File size limit exceeded"), "a file may not grow past the sandbox's file size limit"),
    (
        re.compile(r"Read-only file system"),
        "only the writable roots can be written; in them a directory whose files run later "
        "(~/.config/systemd, ~/.config/autostart, editor startup directories) is read-only",
    ),
    (
        re.compile(
            r"docker daemon|docker\.sock|dbus|system bus|systemd/private|Failed to connect to bus", re.I
        ),
        "the sockets of Docker, D-Bus and systemd are hidden",
    ),
)
_PRIVATE = re.compile(r"(?<![\w./~-])/(?:tmp|run/user)(?=$|[/\s:'\"‘’])(?:/[^\s:'\"‘’]*)?")
_NOT_SEEN = re.compile(r"No such file or directory|cannot enter the working directory|does not exist", re.I)
PRIVATE_NOTE = (
    "[sandbox] /tmp and /run/user are private to each call: what is there outside the writable roots is "
    "not seen, and what the call writes there is gone after it; use a directory in a writable root"
)
_INTEROP = re.compile(r"UtilConnectToInteropServer|interop|Exec format error", re.I)
_NO_NETWORK = re.compile(
    r"Network is unreachable|Temporary failure in name resolution|Could not resolve host|"
    r"Name or service not known|network is unreachable",
    re.I,
)


def stopped_by(profile: Profile, home: str | None, stderr: str) -> str | None:
    """The ``[sandbox]`` line for a command that failed on the sandbox, else None: the rule it met
    and the writable roots."""
    writable = ", ".join(profile.shown(profile.writable, home)) or "none (read-only mode)"
    rule = None
    for pattern, said in _STOPPED:
        if pattern.search(stderr):
            rule = said
            break
    if rule is None and not profile.interop and _INTEROP.search(stderr):
        rule = "Windows interop is closed (WSL_ALLOW_WINDOWS=false)"
    if rule is None and _names_hidden(profile, stderr):
        rule = HIDDEN_NOTE.removeprefix("[sandbox] ")
    if rule is None and private(profile, home, stderr):
        rule = PRIVATE_NOTE.removeprefix("[sandbox] ")
    if rule is None and not profile.network and _NO_NETWORK.search(stderr):
        rule = "the network is off (WSL_SANDBOX_NETWORK=off)"
    if rule is None:
        return None
    return f"[sandbox] {rule}; writable: {writable}"


def private(profile: Profile, home: str | None, text: str) -> bool:
    """Whether a line saying a path is not there names one in the private /tmp or /run/user (outside
    the writable roots and what stays visible there)."""
    seen = profile.shown(profile.writable + profile.visible, home)
    for line in text.splitlines():
        if _NOT_SEEN.search(line):
            for path in _PRIVATE.findall(line):
                if not any(under(path.rstrip("/") or "/", root) for root in seen):
                    return True
    return False


def is_hidden(profile: Profile, home: str | None, path: str) -> bool:
    """Whether the normalised absolute ``path`` lies in something the profile hides (``*`` matches
    one component; under a Windows user profile names match in any case)."""
    parts = path.strip("/").split("/")
    for pattern in profile.shown(profile.hidden + profile.sockets, home):
        wanted = pattern.strip("/").split("/")
        if pattern.startswith("~") or len(parts) < len(wanted):
            continue
        fold = pattern.startswith(WINDOWS_PROFILES + "/")
        if all(
            fnmatch.fnmatchcase(part.lower() if fold else part, want.lower() if fold else want)
            for part, want in zip(parts, wanted, strict=False)
        ):
            return True
    return False


HIDDEN_NOTE = "[sandbox] this path is hidden by the sandbox"


def _names_hidden(profile: Profile, stderr: str) -> bool:
    """Whether a 'permission denied' line names a hidden path (by a component of its name)."""
    names = {p.rstrip("/").rsplit("/", 1)[-1].lower() for p in profile.hidden + profile.sockets}
    for line in stderr.splitlines():
        if "permission denied" not in line.lower():
            continue
        for word in re.findall(r"[~/][^\s:'\"‘’]*", line):
            if any(part.lower() in names for part in word.split("/")):
                return True
    return False


def split_report(data: bytes, tag: str) -> tuple[bytes, tuple[str, ...]]:
    """The after-command check's report (``\\0TAG\\n<lines>\\0``, written after the command by the
    launcher's watcher, see ``shell.sandbox_launcher``) taken out of ``data``: the rest, and its lines."""
    head = b"\0" + tag.encode() + b"\n"
    at = data.rfind(head) if tag else -1
    if at < 0:
        return data, ()
    end = data.find(b"\0", at + len(head))
    end = len(data) if end < 0 else end
    lines = data[at + len(head) : end].decode("utf-8", "replace").splitlines()
    return data[:at] + data[end + 1 :], tuple(line for line in lines if line.strip())


UNDONE = "[sandbox] undone: "  # each line of the check's report, as a reply shows it
