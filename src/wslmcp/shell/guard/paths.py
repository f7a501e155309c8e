"""Path knowledge: lexical normalisation, the Windows mounts, system paths, operator paths.

Everything here is lexical and pure. Paths carry the expansion markers of ``expand`` untouched;
``~`` stands for the Linux user's home when the policy does not name it.
"""

from __future__ import annotations

import fnmatch
import functools
import re

from wslmcp.shell.guard.vocabulary import words

_MOUNT = re.compile(r"/mnt/([A-Za-z])(?=/|$)", re.IGNORECASE)
_WINDOWS_DRIVE = re.compile(r"^([A-Za-z]):(?:[\\/]|$)")
_GLOB = re.compile(r"[*?\[]")

SYSTEM_TOP = words(
    "bin boot dev etc home lib lib32 lib64 libx32 media mnt opt proc root run sbin srv sys usr var data snap"
)
USR_SUBDIRS = frozenset(
    ["bin", "sbin", "lib", "lib32", "lib64", "libx32", "libexec", "share", "include", "local", "src"]
)
VAR_SUBDIRS = frozenset(["lib", "cache", "spool", "backups"])
WINDOWS_SYSTEM = frozenset({"windows", "users", "program files", "program files (x86)", "programdata"})
CRITICAL_FILES = words(
    "/etc/passwd /etc/shadow /etc/group /etc/gshadow /etc/sudoers /etc/fstab /etc/hostname /etc/hosts /etc/resolv.conf /etc/ssh/sshd_config /etc/wsl.conf"
)
CRITICAL_FILE_PREFIXES = ("/boot/vmlinuz", "/boot/initrd", "/boot/grub")
BLOCK_DEVICE = re.compile(
    r"^/dev/(sd|nvme|hd|vd|xvd|mmcblk|mapper/|dm-|md\d|disk/|block/|sr\d|loop\d|mem$|kmem$|port$)"
)
_PROC_ROOT = re.compile(r"^/proc/(?:\d+|self|thread-self)/root(?=/|$)")
HARMLESS_DEVICES = re.compile(
    r"^/dev/(null|zero|stdout|stderr|tty|fd/\d+|full|random|urandom)$|^/proc/self/fd/\d+$"
)

# (label, component sequence) — matched case-insensitively as consecutive path components.
OPERATOR_PATHS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("MCP client configuration", (".claude.json",)),
    ("MCP client configuration", (".claude.json.backup",)),
    ("MCP client configuration", (".claude",)),
    ("MCP client configuration", ("claude_desktop_config.json",)),
    ("MCP client configuration", ("appdata", "roaming", "claude")),
    ("MCP client configuration", (".codex",)),
    ("MCP client configuration", (".cursor", "mcp.json")),
    ("MCP client configuration", (".vscode", "mcp.json")),
    ("MCP client configuration", (".gemini", "settings.json")),
    ("MCP server configuration", (".mcp.json",)),
    ("SSH keys and configuration", (".ssh",)),
    ("AWS credentials", (".aws",)),
    ("Azure credentials", (".azure",)),
    ("kubeconfig", (".kube",)),
    ("docker credentials", (".docker", "config.json")),
    ("git credentials", (".git-credentials",)),
    ("npm credentials", (".npmrc",)),
    ("PyPI credentials", (".pypirc",)),
    ("netrc credentials", (".netrc",)),
    ("GPG keyring", (".gnupg",)),
    ("GitHub CLI configuration", (".config", "gh")),
    ("GitHub CLI configuration", ("appdata", "roaming", "github cli")),
    ("gcloud configuration", (".config", "gcloud")),
    ("gcloud configuration", ("appdata", "roaming", "gcloud")),
)

# -- Where things are: plain data shared by the guard and the OS sandbox (``wslmcp.shell.sandbox``) --
# "~/" is the Linux user's home; other entries are absolute paths or, for RUNS_LATER_IN_PROJECT,
# relative to a project directory; "*" stands for one path component. OPERATOR_PATHS above are also
# what the sandbox hides: under the home and under every Windows user profile (WINDOWS_PROFILES).

WINDOWS_PROFILES = "/mnt/*/Users/*"

# (label, path): files and directories whose content runs later, in a later shell, the user's or the
# system's service manager, the desktop session, cron, git or the loader.
RUNS_LATER: tuple[tuple[str, str], ...] = (
    ("shell startup file", "~/.profile"),
    ("shell startup file", "~/.bash_profile"),
    ("shell startup file", "~/.bash_login"),
    ("shell startup file", "~/.bashrc"),
    ("shell startup file", "~/.bash_aliases"),
    ("shell startup file", "~/.bash_logout"),
    ("shell startup file", "~/.zshenv"),
    ("shell startup file", "~/.zprofile"),
    ("shell startup file", "~/.zshrc"),
    ("shell startup file", "~/.zlogin"),
    ("shell startup file", "~/.zlogout"),
    ("shell startup file", "~/.config/fish"),
    ("readline key bindings", "~/.inputrc"),
    ("login environment", "~/.pam_environment"),
    ("login environment", "~/.config/environment.d"),
    ("systemd user units", "~/.config/systemd"),
    ("desktop autostart", "~/.config/autostart"),
    ("git configuration", "~/.gitconfig"),
    ("git configuration", "~/.config/git"),
    ("system shell startup", "/etc/profile"),
    ("system shell startup", "/etc/profile.d"),
    ("system shell startup", "/etc/bash.bashrc"),
    ("system shell startup", "/etc/zsh"),
    ("login environment", "/etc/environment"),
    ("WSL boot command", "/etc/wsl.conf"),
    ("cron", "/etc/crontab"),
    ("cron", "/etc/cron.d"),
    ("cron", "/etc/cron.hourly"),
    ("cron", "/etc/cron.daily"),
    ("cron", "/etc/cron.weekly"),
    ("cron", "/etc/cron.monthly"),
    ("cron and at jobs", "/var/spool/cron"),
    ("systemd units", "/etc/systemd"),
    ("systemd units", "/usr/lib/systemd"),
    ("desktop autostart", "/etc/xdg/autostart"),
    ("init scripts", "/etc/init.d"),
    ("init scripts", "/etc/rc.local"),
    ("loader preload", "/etc/ld.so.preload"),
)

# (label, path relative to a project directory): what runs later when someone works in it.
RUNS_LATER_IN_PROJECT: tuple[tuple[str, str], ...] = (
    ("git hooks", ".git/hooks"),
    ("git configuration", ".git/config"),
    ("MCP server configuration", ".mcp.json"),
    ("MCP client configuration", ".vscode/mcp.json"),
    ("MCP client configuration", ".cursor/mcp.json"),
    ("agent settings and hooks", ".claude"),
)

# (label, path): unix sockets that give root or control of the host. A network namespace does not
# close a socket that has a path.
HOST_CONTROL_SOCKETS: tuple[tuple[str, str], ...] = (
    ("Docker socket", "/run/docker.sock"),
    ("Docker socket", "/var/run/docker.sock"),
    ("Docker socket", "/run/user/*/docker.sock"),
    ("Docker Desktop sockets", "/mnt/wsl/docker-desktop/shared-sockets"),
    ("containerd socket", "/run/containerd/containerd.sock"),
    ("Podman socket", "/run/podman/podman.sock"),
    ("Podman socket", "/run/user/*/podman/podman.sock"),
    ("system D-Bus socket", "/run/dbus/system_bus_socket"),
    ("system D-Bus socket", "/var/run/dbus/system_bus_socket"),
    ("systemd's private socket", "/run/systemd/private"),
    ("user D-Bus socket", "/run/user/*/bus"),
    ("user systemd's private socket", "/run/user/*/systemd/private"),
)

# (label, path): the directory of WSL's interop sockets (how a Linux process starts a Windows one).
WINDOWS_INTEROP_SOCKETS: tuple[tuple[str, str], ...] = (("WSL interop sockets", "/run/WSL"),)

# Extra protection on the local side of transfers (this machine's files, not the distro's).
LOCAL_ONLY: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Windows startup folder", ("start menu", "programs", "startup")),
    ("Windows startup folder", ("startmenu", "programs", "startup")),
    ("desktop autostart directory", (".config", "autostart")),
)
_LOCAL_RULES = OPERATOR_PATHS + LOCAL_ONLY
_FIRST_NAMES = frozenset(sequence[0] for _, sequence in _LOCAL_RULES)
_KEY_FILE = re.compile(
    r"(^|/)(id_rsa|id_dsa|id_ecdsa|id_ed25519)[^/]*$|\.(pem|ppk|p12|pfx|key)$", re.IGNORECASE
)


def normalize(path: str) -> str:
    """Resolve ``.`` and ``..`` and collapse slash runs (a leading ``//`` too); keep a trailing ``/``."""
    if not path:
        return path
    absolute = path.startswith("/")
    trailing = path.endswith("/") and path.strip("/") != ""
    out: list[str] = []
    for comp in path.split("/"):
        if comp in ("", "."):
            continue
        if comp == "..":
            if out and out[-1] != ".." and not (not absolute and out[-1] == "~" and len(out) == 1):
                out.pop()
            elif not absolute:
                out.append("..")
            continue
        out.append(comp)
    body = "/".join(out)
    result = "/" + body if absolute else body or "."
    if trailing and result not in ("/", "."):
        result += "/"
    if absolute and result.startswith("/proc/"):
        # /proc/<pid>/root is that process's root directory: the same tree as /.
        rooted = _PROC_ROOT.sub("", result)
        if rooted != result:
            return normalize(rooted or "/")
    return result


def resolve(path: str, cwd: str | None, home: str | None) -> str:
    """``path`` as an absolute normalised path when the guard can tell, else normalised as given."""
    if path == "~" or path.startswith("~/"):
        path = (home or "~") + path[1:]
    if path.startswith("/") or cwd is None or path.startswith("~"):
        return normalize(path)
    return normalize(cwd.rstrip("/") + "/" + path)


def mount_of(path: str) -> str | None:
    """The drive letter when a normalised absolute ``path`` lies on a Windows drive mount."""
    m = _MOUNT.match(path)
    return m.group(1).lower() if m else None


def components(path: str) -> list[str]:
    return [c for c in path.lower().split("/") if c]


def _component_matches(candidate: str, name: str) -> bool:
    glob = _GLOB.search(candidate)
    if glob:
        # A glob counts when it could match the name and names part of it (".claude*", "id_*"):
        # a bare "*" or "*.json" in an ordinary directory is not a reach for operator files.
        if glob.start() == 0 or (name.startswith(".") and not candidate.startswith(".")):
            return False
        return fnmatch.fnmatchcase(name, candidate)
    return candidate == name


def _sequence_hit(comps: list[str], sequence: tuple[str, ...]) -> bool:
    k = len(sequence)
    for start in range(len(comps) - k + 1):
        if all(_component_matches(comps[start + j], sequence[j]) for j in range(k)):
            return True
    return False


@functools.lru_cache(maxsize=4096)
def operator_label(path: str, local: bool = False) -> str | None:
    """The kind of operator file ``path`` names (or may name, for a glob), else None."""
    comps = components(path.replace("\\", "/"))
    if not comps:
        return None
    rules = _LOCAL_RULES if local else OPERATOR_PATHS
    if any(_GLOB.search(c) for c in comps):
        for label, sequence in rules:
            if _sequence_hit(comps, sequence):
                return label
    else:
        starts = [i for i, c in enumerate(comps) if c in _FIRST_NAMES]
        for label, sequence in rules if starts else ():
            k = len(sequence)
            if any(tuple(comps[i : i + k]) == sequence for i in starts):
                return label
    if local:
        if comps[-1] == "authorized_keys":
            return "SSH authorized_keys"
        if _KEY_FILE.search("/".join(comps)):
            return "private key or certificate file"
    return None


def is_block_device(path: str) -> bool:
    return bool(BLOCK_DEVICE.match(path))


def is_harmless_device(path: str) -> bool:
    return bool(HARMLESS_DEVICES.match(path))


def is_critical_file(path: str) -> bool:
    p = path.rstrip("/")
    return p in CRITICAL_FILES or p.startswith(CRITICAL_FILE_PREFIXES)


def _name_matches(candidate: str, names: frozenset[str]) -> bool:
    if _GLOB.search(candidate):
        return any(fnmatch.fnmatchcase(n, candidate) for n in names)
    return candidate in names


def critical_kind(path: str, home: str | None, include_homes: bool = True) -> str | None:
    """Why removing ``path`` (normalised, absolute or ``~``-based) would be a catastrophe, else None."""
    if path.startswith("~"):
        rest = path[1:]
        # An unknown home still lies one level below /home (or /root), so ``~/..`` reaches at least /home.
        path = normalize("/home/~" + rest if not home else home + rest)
    if not path.startswith("/"):
        return None
    if path.rstrip("/") == "" or path == "/":
        return "the filesystem root"
    comps = [c for c in path.split("/") if c]
    glob_last = bool(_GLOB.search(comps[-1]))
    top = comps[0]
    if len(comps) == 1:
        if _name_matches(top, SYSTEM_TOP | {"tmp"}) or glob_last:
            return "the filesystem root" if glob_last and top.strip("*") == "" else "a system directory"
        return None
    if home and include_homes:
        home_comps = [c for c in home.split("/") if c]
        if comps == home_comps or (comps[:-1] == home_comps and glob_last):
            return "the home directory"
    if not _name_matches(top, SYSTEM_TOP):
        return None
    second = comps[1]
    if len(comps) == 2:
        if glob_last and top != "tmp":
            return "a system directory"
        if top in ("home", "root"):
            return "a home directory" if include_homes or top == "root" else None
        if top == "usr" and _name_matches(second, USR_SUBDIRS):
            return "a system directory"
        if top == "var" and _name_matches(second, VAR_SUBDIRS):
            return "a system directory"
        if top == "mnt" and len(second) == 1:
            return "a Windows drive"
        return None
    lowered = [c.lower() for c in comps]
    if top == "home" and len(comps) == 3 and glob_last and include_homes:
        return "a home directory"
    if top == "usr" and len(comps) == 3 and glob_last and _name_matches(second, USR_SUBDIRS):
        return "a system directory"
    if top == "mnt" and len(second) == 1:
        tail = lowered[2:]
        if len(tail) == 1 and (glob_last or _name_matches(tail[0], WINDOWS_SYSTEM)):
            return "a Windows drive or system folder"
        if (
            tail[0] in ("windows", "program files", "program files (x86)", "programdata")
            and len(tail) == 2
            and glob_last
        ):
            return "a Windows system folder"
        if tail[0] == "users" and (len(tail) == 2 or (len(tail) == 3 and glob_last)):
            return "a Windows user profile"
    return None


def local_form(path: str) -> str:
    """A local (Windows or POSIX) path in a comparable form: forward slashes, drive as ``c:``."""
    text = path.strip().replace("\\", "/")
    m = _WINDOWS_DRIVE.match(text)
    if m:
        text = m.group(1).lower() + ":/" + text[m.end() :]
        return m.group(1).lower() + ":" + normalize("/" + text[3:])
    if text.startswith("//"):
        return "//" + normalize("/" + text[2:]).lstrip("/")
    return normalize(text)
