"""The OS sandbox beneath the guard: bubblewrap confines every script the shell server runs.

Pure: ``profile_for`` turns the policy and the ``WSL_SANDBOX*`` settings into a ``Profile`` (data),
``launcher`` turns a profile into the fixed bash script that runs inside the distro before every
command, works out which of the profile's paths exist there at that moment, and ``exec``s
``bwrap <mounts> -- bash -lc SCRIPT``. Nothing here runs anything: the transports put the launcher in
front of every script (``boundaries.shell_transport.Confinement``).

Why a launcher and not a fixed ``bwrap`` argument vector: bubblewrap cannot mount over a path that
does not exist without creating it (under a read-only root it fails; under a writable root it would
make an empty file or directory in the user's real home), and a file made after the server started
(an operator adds ``~/.aws`` later) must be hidden too. So existence is looked up inside the distro
at every call, by bash builtins. The launcher itself runs unconfined, so it runs as ``bash -p`` (no
``BASH_ENV``, no exported function) on a fixed ``PATH`` (no program the user put first on theirs).
Each bind mount costs bubblewrap a read of the mount table, so a mount is made only where it changes
something.

The profile, in the order the mounts are made (deeper paths after shallower ones):
- the root read-only; a fresh ``/dev`` and ``/proc``; a private ``/tmp`` and ``/run/user/<uid>`` (their
  sockets stay out; ``WSL_CWD`` stays visible, read-only); new user (all capabilities
  dropped, root included), PID, IPC and UTS namespaces; the sandbox dies with its parent and runs in
  a new session; the network unshared when ``WSL_SANDBOX_NETWORK=off``;
- writable roots: ``WSL_ALLOWED_PATHS`` when set, else the home; none in read-only mode; roots on a
  Windows drive only when Windows is allowed, and a drive under a writable root stays read-only
  unless it is;
- inside writable roots, what runs later (``guard.paths.RUNS_LATER``, and ``RUNS_LATER_IN_PROJECT``
  in each root, each directory directly in it, and the call's working directory and each directory
  above it within its root: the project worked in, at any depth) is read-only, and every directory
  between the root and it is a mount point of its own, so it cannot be renamed away and made again;
  where such a file is missing (or a symbolic link), its directory stays read-only and only the
  directories in it are writable (each mounted on its own): the file cannot be made, nor anything
  else new there, and the files directly in it stay read-only (in practice: the top of the home, and ``~/.config``
  while ``~/.config/systemd`` or another of its entries is missing);
- hidden (an empty directory or read-only file with mode 000, so reading says "Permission denied"):
  the operator paths the guard knows (the client table, ``wslmcp.clients``), under the home those of
  the Linux side and under every Windows user profile those of the Windows side, the
  sockets that give host control, WSL's interop sockets unless Windows is allowed, and
  ``WSL_HIDE_PATHS``;
- variables whose names look like secrets are not passed in; ``WSL_INTEROP`` only with Windows
  allowed; file size and (per user namespace) process count are limited.
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

SandboxMode = Literal["off", "on"]

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
    """``WSL_SANDBOX``, ``WSL_SANDBOX_NETWORK`` and ``WSL_HIDE_PATHS`` as parsed."""

    mode: SandboxMode = "off"
    network: bool = True
    hide_paths: tuple[str, ...] = ()

    @property
    def on(self) -> bool:
        return self.mode == "on"


@dataclass(frozen=True)
class Profile:
    """What the sandbox allows, as data. Paths starting with ``~`` are under the user's home; ``*``
    stands for one path component (looked up inside the distro at every call)."""

    writable: tuple[str, ...]
    runs_later: tuple[str, ...]  # read-only inside writable roots
    # the same, relative to each root, each directory in it, and the working directory and those above
    runs_later_in_project: tuple[str, ...]
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

    def shown(self, paths: tuple[str, ...], home: str | None) -> tuple[str, ...]:
        """``paths`` with ``~`` replaced by ``home`` when it is known."""
        if not home:
            return paths
        return tuple(home.rstrip("/") + p[1:] if p == "~" or p.startswith("~/") else p for p in paths)


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
        runs_later=tuple(path for _, path in RUNS_LATER),
        runs_later_in_project=tuple(dict.fromkeys(path for _, path in RUNS_LATER_IN_PROJECT)),
        hidden=HIDDEN_IN_HOME + HIDDEN_IN_PROFILES + settings.hide_paths,
        sockets=tuple(sockets),
        read_only=("/mnt/[a-zA-Z]",) if drives_under_root and not policy.allow_windows else (),
        network=settings.network,
        interop=policy.allow_windows,
        left_read_only=() if policy.allow_windows else on_drive,
        visible=(cwd,) if cwd else (),
    )


def _quote(text: str) -> str:
    from wslmcp.shell.runner import quote  # (not at import: the configuration reads this module)

    return quote(text)


def _array(name: str, items: tuple[str, ...]) -> str:
    return f"{name}=(" + " ".join(_quote(item) for item in items) + ")"


def _windows_names(hidden: tuple[str, ...]) -> str:
    """``WIN``: each path under a Windows user profile, lowercased, as 1, and each directory on the way
    to one as 0 (the launcher reads those directories and compares names in lower case)."""
    want: dict[str, int] = {}
    for path in hidden:
        if path.startswith(WINDOWS_PROFILES + "/"):
            parts = path[len(WINDOWS_PROFILES) + 1 :].lower().split("/")
            for n in range(1, len(parts)):
                want.setdefault("/".join(parts[:n]), 0)
            want["/".join(parts)] = 1
    return "declare -A WIN=(" + " ".join(f"[{_quote(k)}]={v}" for k, v in want.items()) + ")"


def _grouped(paths: tuple[str, ...]) -> list[str]:
    """``RD``/``RN``: the paths grouped by their directory (one name per line), so the launcher looks
    each directory up once."""
    groups: dict[str, list[str]] = {}
    for path in paths:
        directory, _, name = path.rpartition("/")
        groups.setdefault(directory or "/", []).append(name)
    return [_array("RD", tuple(groups)), _array("RN", tuple("\n".join(names) for names in groups.values()))]


def launcher(profile: Profile) -> str:
    """The fixed bash script that confines one command (``$1`` own | distro-pids | probe, ``$2`` the
    shell's flag, ``$3`` the script): the profile as bash data, then ``_LAUNCHER``."""
    secrets = "|".join(profile.secret_variables + (() if profile.interop else ("WSL_INTEROP",)))
    hidden = profile.hidden + profile.sockets
    block = "\n".join(
        [
            _array("W", profile.writable),
            *_grouped(profile.runs_later),
            _array("RP", profile.runs_later_in_project),
            _array("HH", tuple(p[2:] for p in hidden if p.startswith("~/"))),
            _windows_names(hidden),
            f"PROFILES={WINDOWS_PROFILES}",
            _array(
                "HA",
                tuple(p for p in hidden if p.startswith("/") and not p.startswith(WINDOWS_PROFILES + "/")),
            ),
            _array("RO", profile.read_only),
            _array("VIS", profile.visible),
            f"NET={int(profile.network)} NPROC={profile.max_processes} "
            f"FSIZE={profile.max_file_bytes // 1024}",
            # the variables kept from the launcher's environment (a case pattern written out once)
            f"passed() {{ case ${{1^^}} in {secrets}) return 1 ;; esac; }}",
        ]
    )
    return block + "\n" + _LAUNCHER


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


def parse_probe(stdout: str) -> ProbeFacts:
    values: dict[str, str] = {}
    for line in stdout.splitlines():
        key, sep, value = line.partition("=")
        if sep and key in ProbeFacts.__dataclass_fields__:
            values[key] = value.strip()
    return ProbeFacts(**values)


def _wsl1(kernel: str) -> bool:
    lowered = kernel.lower()
    return "microsoft" in lowered and "wsl2" not in lowered and "microsoft-standard" not in lowered


def probe_failure(facts: ProbeFacts, distro: str) -> str | None:
    """Why the sandbox cannot run, classified, or None when the confined test run passed."""
    if not facts.bwrap:
        install = INSTALL_COMMANDS.get(facts.installer)
        how = f"install it in the distro: {install}" if install else "install the distro's bubblewrap package"
        return f"bubblewrap (bwrap) is not installed in '{distro}'; {how}"
    if _wsl1(facts.kernel):
        return (
            f"'{distro}' runs under WSL 1 ({facts.kernel}), which has no user namespaces; convert it with "
            f"'wsl --set-version {distro} 2', or set WSL_SANDBOX=off"
        )
    if facts.status == "0":
        return None
    error = facts.error or f"bwrap exited with status {facts.status or 'unknown'}"
    if facts.userns == "0" or re.search(r"namespace|uid map|setgroups|Operation not permitted", error):
        return f"user namespaces are not usable in '{distro}' (max_user_namespaces={facts.userns or '?'}): {error}"
    if re.search(r"[Mm]ount|[Cc]an't (bind|create|mount|make)", error):
        return f"the sandbox could not set up its mounts in '{distro}': {error}"
    return f"the sandbox could not start in '{distro}': {error}"


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
        "read_only_inside_writable": list(profile.shown(profile.runs_later, home)),
        "read_only_in_each_project": list(profile.runs_later_in_project),
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
        f"sandbox: on ({version or 'bubblewrap'})  ·  writable: {writable}  ·  read-only inside: shell startup files, git "
        f"hooks and config, systemd and autostart  ·  hidden: credentials, MCP client configuration, "
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
        "only the writable roots can be written; in them what runs later (shell startup files, git hooks "
        "and config, …) is read-only, and where such a file is missing (the top of the home) nothing new "
        "can be made",
    ),
    (
        re.compile(
            r"docker daemon|docker\.sock|dbus|system bus|systemd/private|Failed to connect to bus", re.I
        ),
        "the sockets of Docker, D-Bus and systemd are hidden",
    ),
)
_PRIVATE_CWD = re.compile(r"cannot enter the working directory '?/(tmp|run/user)/")
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
    if rule is None and _PRIVATE_CWD.search(stderr):
        rule = (
            "/tmp and /run/user are private to each call: a directory there is seen only when it lies in a "
            "writable root (WSL_ALLOWED_PATHS) or is WSL_CWD"
        )
    if rule is None and not profile.network and _NO_NETWORK.search(stderr):
        rule = "the network is off (WSL_SANDBOX_NETWORK=off)"
    if rule is None:
        return None
    return f"[sandbox] {rule}; writable: {writable}"


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


_LAUNCHER = r"""# wslmcp's sandbox launcher: confines one command with bubblewrap as the profile above says.
# $1 own | distro-pids | probe; $2 the shell's flag (-lc or -c); $3 the script; $4 the directory it
# starts in (or empty). Paths are looked up at every call (builtins, no new process), so a file made
# after the server started is hidden too, and nothing is ever created outside the sandbox: where a
# file that would run later is missing, its directory stays read-only and only the directories in it
# are writable, each mounted on its own.
m=$1 f=$2 s=$3 c=$4 H=${HOME:-/nonexistent} here=$PWD
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin  # no program of the user's runs here
bw=; for x in /usr/local/bin /usr/bin /bin /usr/sbin /sbin; do [ -f "$x/bwrap" ] && [ -x "$x/bwrap" ] && { bw=$x/bwrap; break; }; done
[ -n "$bw" ] || [ "$m" = probe ] || {
  printf 'wslmcp-sandbox: bubblewrap (bwrap) is not installed in the distro; nothing ran\n' >&2; exit 125; }
shopt -s nullglob dotglob
IFS=$'\n'
declare -A seen did rd ro hh mode=([/]=ro [/tmp]=rw)
wr=() hid=() used=()
res() {  # r = $1 with every symbolic link resolved (its missing tail kept); fails when its top is gone
  local d=${1%/*} b=${1##*/} t=
  while [ -n "$d" ] && [ ! -d "$d" ]; do t=/${d##*/}$t; d=${d%/*}; done
  d=${d:-/}
  if [ -z "${rd[$d]}" ]; then cd -P -- "$d" 2>/dev/null || return 1; rd[$d]=${PWD%/}; fi
  r=${rd[$d]}$t/$b
  if [ -z "$t" ] && [ -L "$r" ]; then
    if [ -d "$r" ]; then cd -P -- "$r" && r=$PWD; else r=$(realpath -m -- "$r"); fi
  fi
}
# Mounts, made by depth, then by kind: 0 a writable root, 1 a directory in a read-only directory
# (writable), 2 a directory between a root and a file kept (a mount point, so it cannot be renamed
# away), 3 a directory kept read-only so nothing new is made in it, 4 a file or directory kept
# read-only, 5 hidden.
add() {
  local c=w; case $1 in 3|4) c=r; ro[$2]=1 ;; 5) c=h; hh[$2]=1 ;; esac
  [ -n "${seen[$c$2]}" ] && return; seen[$c$2]=1
  local d=${2%/}; d=${d//[^\/]/}; local i=$(( ${#d} * 8 + $1 ))
  used[$i]=1; local -n b=B$i; b+=("$2")
}
root_of() {  # root = the deepest writable root holding $1; fails when none does
  root=; local w
  for w in "${wr[@]}"; do
    if [[ $1 == "$w" || $1 == "${w%/}"/* ]] && [ ${#w} -ge ${#root} ]; then root=$w; fi
  done
  [ -n "$root" ]
}
between() {
  local a=${1%/*}
  while [[ $a == "${root%/}"/* ]] && [ "$a" != "$root" ]; do add 2 "$a"; a=${a%/*}; done
}
split() {
  [ -n "${did[$1]}" ] && return; did[$1]=1
  add 3 "$1"; local x
  for x in "$1"/*; do [ -d "$x" ] && [ ! -L "$x" ] && add 1 "$x"; done
  between "$1"
}
keep() {  # $1 (as given) stays as it is: read-only when it exists, else not makeable
  res "$1" && root_of "$r" || return 0
  if [ -L "$1" ]; then
    local t=$r; res "${1%/*}"; split "$r"
    [ -e "$t" ] && root_of "$t" && { add 4 "$t"; between "$t"; }
  elif [ -e "$r" ]; then add 4 "$r"; between "$r"
  else local a=$r; while [ ! -d "$a" ]; do a=${a%/*}; done; split "${a:-/}"; fi
}
hide() {  # (nothing under /run/user: every runtime directory there is private, see below)
  { [ -e "$1" ] || [ -L "$1" ]; } && res "$1" && case $r in /|/run/user/*) ;; *) add 5 "$r" ;; esac
}
walk() {  # hide what WIN names under a Windows user profile, spelled in any case
  local e n; for e in "$1"/*; do
    n=${e##*/}; n=$2${n,,}
    case ${WIN[$n]} in 1) hide "$e" ;; 0) [ -d "$e" ] && walk "$e" "$n/" ;; esac
  done
}
open_at() {  # whether $1 lies in a writable part of the sandbox, as mounted so far
  local a=$1
  while :; do
    case ${mode[$a]} in rw) return 0 ;; ro|h) return 1 ;; esac
    [ -z "$a" ] || [ "$a" = / ] && return 1
    a=${a%/*}; a=${a:-/}
  done
}
for p in "${W[@]}"; do p=${p/#\~/$H}; [ -d "$p" ] && res "$p" && { wr+=("$r"); add 0 "$r"; }; done
for i in "${!RD[@]}"; do  # what runs later, a directory at a time
  d=${RD[$i]/#\~/$H}
  if [ -d "$d" ] && res "$d" && root_of "$r"; then
    d=$r; for n in ${RN[$i]}; do
      p=$d/$n
      if [ -L "$p" ]; then keep "$p"; elif [ -e "$p" ]; then add 4 "$p"; between "$p"; else split "$d"; fi
    done
  elif [ -d "$d" ]; then  # outside the writable roots only a link can lead into one
    for n in ${RN[$i]}; do [ -L "$d/$n" ] && keep "$d/$n"; done
  else
    for n in ${RN[$i]}; do keep "$d/$n"; done
  fi
done
project() { local p; for p in "${RP[@]}"; do [ -e "$1/$p" ] && keep "$1/$p"; done; }
for w in "${wr[@]}"; do for x in "$w" "$w"/*/; do project "${x%/}"; done; done
if [ -n "$c" ] && res "$c" && root_of "$r"; then  # the working directory and each above it in its root
  x=$r top=$root
  until [ "$x" = "$top" ] || [ -z "$x" ]; do project "$x"; x=${x%/*}; done  # (a root of / ends at "")
fi
for p in "${HH[@]}"; do hide "$H/$p"; done
for u in $PROFILES/; do walk "${u%/}" ""; done
for g in "${HA[@]}"; do for p in $g; do hide "$p"; done; done
for g in "${RO[@]}"; do for p in $g; do [ -d "$p" ] && res "$p" && root_of "$r" && add 4 "$r"; done; done
for p in "${VIS[@]}"; do p=${p/#\~/$H}; [ -d "$p" ] && res "$p" && ! root_of "$r" && add 4 "$r"; done
cd -- "$here" 2>/dev/null || cd /
a=(--unshare-user --cap-drop ALL --unshare-ipc --unshare-uts --die-with-parent --new-session
   --ro-bind / / --dev /dev --dev-bind-try /dev/dxg /dev/dxg --tmpfs /tmp)
for x in /run/user/*; do  # private runtime directories: their sockets (D-Bus, systemd, gpg-agent, ...) stay out
  [ -d "$x" ] && [ ! -L "$x" ] && a+=(--perms 0700 --tmpfs "$x") && mode[$x]=rw
done
[ "$m" = distro-pids ] || a+=(--unshare-pid --proc /proc)
[ "$NET" = 1 ] || a+=(--unshare-net)
for i in "${!used[@]}"; do  # a mount is made only where it changes something
  unset -n b; declare -n b=B$i; k=$(( i % 8 ))
  for p in "${b[@]}"; do
    for h in "${hid[@]}"; do [[ $p == "$h" || $p == "$h"/* ]] && continue 2; done
    case $k in
      0|1) [ -n "${ro[$p]}${hh[$p]}" ] && continue; a+=(--bind "$p" "$p"); mode[$p]=rw ;;
      2) [ -z "${ro[$p]}${hh[$p]}" ] && open_at "$p" || continue; a+=(--bind "$p" "$p"); mode[$p]=rw ;;
      3|4) open_at "$p" && a+=(--ro-bind "$p" "$p"); mode[$p]=ro ;;
      5) hid+=("$p") mode[$p]=h
         if [ -d "$p" ]; then a+=(--perms 0000 --tmpfs "$p")  # (empty; a remount would cost a bind)
         else exec {fd}</dev/null; a+=(--perms 0000 --ro-bind-data "$fd" "$p"); fi ;;
    esac
  done
done
# the command gets the environment this launcher was started with (not its own variables), but for
# what passed() keeps out
mapfile -d '' -t env < /proc/$$/environ
a+=(--clearenv)
for v in "${env[@]}"; do passed "${v%%=*}" && a+=(--setenv "${v%%=*}" "${v#*=}"); done
ulimit -f "$FSIZE" 2>/dev/null
if [ "$m" = probe ]; then
  printf 'home=%s\nbwrap=%s\nkernel=%s\nuserns=%s\n' "$H" "$bw" \
    "$(cat /proc/sys/kernel/osrelease 2>/dev/null)" "$(cat /proc/sys/user/max_user_namespaces 2>/dev/null)"
  for x in apt-get dnf yum zypper pacman apk; do command -v $x >/dev/null && { printf 'installer=%s\n' $x; break; }; done
  [ -n "$bw" ] || exit 0
  printf 'version=%s\n' "$("$bw" --version 2>/dev/null)"
  e=$("$bw" "${a[@]}" -- true 2>&1); printf 'status=%s\nerror=%s\n' $? "${e//$'\n'/ }"
  exit 0
fi
[ "$m" = own ] && s="ulimit -u $NPROC 2>/dev/null; $s"
exec "$bw" "${a[@]}" -- bash "$f" "$s"
"""
