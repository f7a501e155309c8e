"""Path knowledge: lexical normalisation, the Windows mounts, system paths, operator paths.

Everything here is lexical and pure. Paths carry the expansion markers of ``expand`` untouched;
``~`` stands for the Linux user's home when the policy does not name it.
"""

from __future__ import annotations

import fnmatch
import functools
import re

from wslmcp.clients import home_places, project_configs, project_places


def words(text: str) -> frozenset[str]:
    return frozenset(text.split())


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

# (label, component sequence) — matched case-insensitively as consecutive path components: every
# place of operator state the client table knows (``wslmcp.clients``), on both sides of WSL.
OPERATOR_PATHS: tuple[tuple[str, tuple[str, ...]], ...] = tuple(
    dict.fromkeys(
        (place.label, tuple(place.path.lower().split("/"))) for place in (*home_places(), *project_places())
    )
)

# -- Where things are: plain data shared by the guard and the OS sandbox (``wslmcp.shell.sandbox``) --
# "~/" is the Linux user's home; other entries are absolute paths or, for RUNS_LATER_IN_PROJECT,
# relative to a project directory; "*" stands for one path component. OPERATOR_PATHS above are also
# what the sandbox hides: under the home those kept on the Linux side (HIDDEN_IN_HOME), and under
# every Windows user profile (WINDOWS_PROFILES) those kept on the Windows side (HIDDEN_IN_PROFILES).

WINDOWS_PROFILES = "/mnt/*/Users/*"
HIDDEN_IN_HOME = tuple("~/" + place.path for place in home_places() if "linux" in place.sides)
HIDDEN_IN_PROFILES = tuple(
    WINDOWS_PROFILES + "/" + place.path for place in home_places() if "windows" in place.sides
)

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
    # the guard's additions: more of the same, each read by a program that runs later
    ("shell startup file", "~/.kshrc"),
    ("shell startup file", "~/.mkshrc"),
    ("shell startup file", "~/.cshrc"),
    ("shell startup file", "~/.tcshrc"),
    ("shell startup file", "~/.login"),
    ("shell startup file", "~/.logout"),
    ("desktop session startup", "~/.xprofile"),
    ("desktop session startup", "~/.xinitrc"),
    ("desktop session startup", "~/.xsession"),
    ("desktop session startup", "~/.xsessionrc"),
    ("systemd user units", "~/.local/share/systemd"),
    ("editor startup file", "~/.vimrc"),
    ("editor startup file", "~/.exrc"),
    ("editor startup file", "~/.vim"),
    ("editor startup file", "~/.config/nvim"),
    ("editor startup file", "~/.emacs"),
    ("editor startup file", "~/.emacs.d"),
    ("debugger startup file", "~/.gdbinit"),
    ("terminal multiplexer startup file", "~/.tmux.conf"),
    ("terminal multiplexer startup file", "~/.screenrc"),
    ("system shell startup", "/etc/bashrc"),
    ("system shell startup", "/etc/bash_completion.d"),
    ("system shell startup", "/etc/zshrc"),
    ("system shell startup", "/etc/zprofile"),
    ("system shell startup", "/etc/zshenv"),
    ("system shell startup", "/etc/zlogin"),
    ("system shell startup", "/etc/csh.cshrc"),
    ("system shell startup", "/etc/csh.login"),
    ("system shell startup", "/etc/fish"),
    ("cron", "/etc/anacrontab"),
    ("systemd units", "/lib/systemd"),
    ("systemd units", "/run/systemd/system"),
    ("init scripts", "/etc/rc0.d"),
    ("init scripts", "/etc/rc1.d"),
    ("init scripts", "/etc/rc2.d"),
    ("init scripts", "/etc/rc3.d"),
    ("init scripts", "/etc/rc4.d"),
    ("init scripts", "/etc/rc5.d"),
    ("init scripts", "/etc/rc6.d"),
    ("init scripts", "/etc/rcS.d"),
    ("desktop session startup", "/etc/X11/Xsession.d"),
    ("git configuration", "/etc/gitconfig"),
    ("package manager hooks", "/etc/apt/apt.conf.d"),
    ("kernel module commands", "/etc/modprobe.d"),
    ("device event commands", "/etc/udev/rules.d"),
    ("login message scripts", "/etc/update-motd.d"),
    ("log rotation scripts", "/etc/logrotate.d"),
    ("network event scripts", "/etc/NetworkManager/dispatcher.d"),
    ("network event scripts", "/etc/network/if-up.d"),
    ("network event scripts", "/etc/network/if-pre-up.d"),
    ("network event scripts", "/etc/network/if-down.d"),
    ("network event scripts", "/etc/network/if-post-down.d"),
    ("network event scripts", "/etc/dhcp/dhclient-enter-hooks.d"),
    ("network event scripts", "/etc/dhcp/dhclient-exit-hooks.d"),
    ("login modules", "/etc/pam.d"),
    (
        "Windows startup folder",
        WINDOWS_PROFILES + "/AppData/Roaming/Microsoft/Windows/Start Menu/Programs/Startup",
    ),
    ("Windows startup folder", "/mnt/*/ProgramData/Microsoft/Windows/Start Menu/Programs/StartUp"),
    ("PowerShell profile", WINDOWS_PROFILES + "/Documents/PowerShell"),
    ("PowerShell profile", WINDOWS_PROFILES + "/Documents/WindowsPowerShell"),
    ("WSL settings (kernel and boot)", WINDOWS_PROFILES + "/.wslconfig"),
)

# (label, path relative to a project directory): what runs later when someone works in it.
RUNS_LATER_IN_PROJECT: tuple[tuple[str, str], ...] = (
    ("git hooks", ".git/hooks"),
    ("git configuration", ".git/config"),
    *((config.label, config.path) for config in project_configs()),
    ("agent settings and hooks", ".claude"),
)

# (label, file name pattern): files a Python interpreter runs at every start when they sit in a
# site directory (``site-packages``/``dist-packages``, a virtual environment's included).
RUNS_AT_INTERPRETER_START: tuple[tuple[str, str], ...] = (
    ("Python path configuration", "*.pth"),
    ("Python startup customisation", "sitecustomize.py"),
    ("Python startup customisation", "usercustomize.py"),
)
_SITE_DIRECTORIES = ("site-packages", "dist-packages")

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

_FIRST_NAMES = frozenset(sequence[0] for _, sequence in OPERATOR_PATHS)
_KEY_FILE = re.compile(
    r"(^|/)(id_rsa|id_dsa|id_ecdsa|id_ed25519)[^/]*$|\.(pem|ppk|p12|pfx|key)$", re.IGNORECASE
)


@functools.lru_cache(maxsize=8192)
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


@functools.lru_cache(maxsize=8192)
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
    if any(_GLOB.search(c) for c in comps):
        for label, sequence in OPERATOR_PATHS:
            if _sequence_hit(comps, sequence):
                return label
    else:
        starts = [i for i, c in enumerate(comps) if c in _FIRST_NAMES]
        for label, sequence in OPERATOR_PATHS if starts else ():
            k = len(sequence)
            if any(tuple(comps[i : i + k]) == sequence for i in starts):
                return label
    if local:
        if comps[-1] == "authorized_keys":
            return "SSH authorized_keys"
        if _KEY_FILE.search("/".join(comps)):
            return "private key or certificate file"
    return None


_GLOB_CHAR = re.compile(r"([*?\[])")


def as_pattern(path: str, glob: bool) -> str:
    """``path`` as the path predicates read it: a glob as written, any other name with its glob
    characters escaped, so that a literal ``*`` names only itself."""
    return path if glob or not _GLOB_CHAR.search(path) else _GLOB_CHAR.sub(r"[\1]", path)


def _split(path: str) -> tuple[str, ...]:
    return tuple(c for c in path.split("/") if c)


_HOME_ENTRIES = tuple((label, _split(path[2:])) for label, path in RUNS_LATER if path.startswith("~/"))
_ABSOLUTE_ENTRIES = tuple((label, _split(path)) for label, path in RUNS_LATER if path.startswith("/"))
_PROJECT_ENTRIES = tuple((label, _split(path)) for label, path in RUNS_LATER_IN_PROJECT)
_HOME_OF = re.compile(r"^(?:~|/root|/home/[^/]+)(?=/|$)")


def _component_fits(candidate: str, entry: str, fold: bool) -> bool:
    """Does a path component (maybe a glob) name, or may it name, the entry's component?"""
    if fold:
        candidate, entry = candidate.lower(), entry.lower()
    if entry == "*":
        return True
    if _GLOB.search(candidate):
        return fnmatch.fnmatchcase(entry, candidate) or (_GLOB.search(entry) is not None)
    if _GLOB.search(entry):
        return fnmatch.fnmatchcase(candidate, entry)
    return candidate == entry


def _under(comps: tuple[str, ...], entry: tuple[str, ...], fold: bool = False) -> bool:
    return len(comps) >= len(entry) and all(
        _component_fits(c, e, fold) for c, e in zip(comps, entry, strict=False)
    )


def _contains(comps: tuple[str, ...], entry: tuple[str, ...]) -> bool:
    k = len(entry)
    return any(_under(comps[i : i + k], entry) for i in range(len(comps) - k + 1))


@functools.lru_cache(maxsize=4096)
def runs_later(path: str, home: str | None) -> str | None:
    """What ``path`` is (a shell startup file, a git hook, a systemd unit...) when what is written
    there runs later, in another shell, service or session; None otherwise. ``path`` is normalised
    and absolute (or ``~``-based); it may be a glob, judged by what it may match. Every home counts,
    not only the user's: another user's ``.bashrc`` runs later too."""
    comps = _split(path)
    home_rest: tuple[str, ...] | None = None
    if home and (path == home or path.startswith(home.rstrip("/") + "/")):
        home_rest = _split(path[len(home.rstrip("/")) :])
    elif _HOME_OF.match(path):
        home_rest = _split(_HOME_OF.sub("", path, count=1))
    for label, entry in _HOME_ENTRIES if home_rest is not None else ():
        if _under(home_rest or (), entry):
            return label
    fold = mount_of(path) is not None  # Windows file names ignore case
    for label, entry in _ABSOLUTE_ENTRIES:
        if _under(comps, entry, fold):
            return label
    for label, entry in _PROJECT_ENTRIES:
        if _contains(comps, entry):
            return label
    if len(comps) >= 2 and comps[-2] in _SITE_DIRECTORIES:
        for label, pattern in RUNS_AT_INTERPRETER_START:
            if fnmatch.fnmatchcase(comps[-1], pattern) or (
                _GLOB.search(comps[-1]) and fnmatch.fnmatchcase(pattern, comps[-1])
            ):
                return label
    return None


def distro_form(local: str) -> str:
    """A local path (``local_form``) as the distro sees the same file: ``c:/x`` is ``/mnt/c/x``."""
    if re.match(r"^[a-z]:/", local):
        return f"/mnt/{local[0]}{local[2:]}"
    return local


def is_block_device(path: str) -> bool:
    return bool(BLOCK_DEVICE.match(path))


def is_harmless_device(path: str) -> bool:
    return bool(HARMLESS_DEVICES.match(path))


def is_critical_file(path: str) -> bool:
    """Is ``path`` (or may a glob ``path`` be) a file the host cannot boot or authenticate without?"""
    p = path.rstrip("/")
    if _GLOB.search(p):
        return any(_glob_names(p, f) for f in CRITICAL_FILES) or any(
            _glob_names(p, prefix + "x") for prefix in CRITICAL_FILE_PREFIXES
        )
    return p in CRITICAL_FILES or p.startswith(CRITICAL_FILE_PREFIXES)


SYSTEM_PROGRAMS = (
    "/bin", "/sbin", "/usr/bin", "/usr/sbin", "/usr/libexec", "/lib", "/lib32", "/lib64", "/libx32",
    "/usr/lib", "/usr/lib32", "/usr/lib64", "/usr/libx32",
)  # fmt: skip
"""Where the system's programs, libraries and the dynamic loader live (``/usr/local`` is the admin's)."""
LOADER_CONFIGURATION = ("/etc/ld.so.preload", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/ld.so.cache")
POWER_FILES = ("/proc/sysrq-trigger", "/sys/power/state", "/sys/power/autosleep")
"""Writing these crashes, reboots, powers off or suspends the machine."""
MOUNT_PROTECTED = words("bin boot dev etc home lib lib32 lib64 libx32 proc root run sbin sys usr var")
_SYSTEM_ENTRIES = tuple(_split(p) for p in SYSTEM_PROGRAMS)
_LOADER_ENTRIES = tuple(_split(p) for p in LOADER_CONFIGURATION)


@functools.lru_cache(maxsize=4096)
def system_file(path: str) -> str | None:
    """What ``path`` (or a glob) is when it is a system program, library or loader file (or a
    directory of them), else None. What runs later (``runs_later``) is left to that rule."""
    comps = _split(path)
    if any(_under(comps, e) for e in _LOADER_ENTRIES):
        return "the dynamic loader's configuration (every program loads what it names)"
    if not any(_under(comps, e) for e in _SYSTEM_ENTRIES) or runs_later(path, None):
        return None
    return "a system program or library"


def _glob_names(pattern: str, path: str) -> bool:
    """Does the glob ``pattern`` name ``path`` (component by component, as bash matches paths)?"""
    pattern_comps, path_comps = _split(pattern), _split(path)
    return len(pattern_comps) == len(path_comps) and all(
        fnmatch.fnmatchcase(c, p) for p, c in zip(pattern_comps, path_comps, strict=True)
    )


def power_file(path: str) -> bool:
    return any(path == f or (_GLOB.search(path) is not None and _glob_names(path, f)) for f in POWER_FILES)


def mount_protected(path: str, home: str | None) -> str | None:
    """Why mounting over (or unmounting) ``path`` breaks the system: the root, a system tree, a home."""
    comps = _split(path)
    if not comps:
        return "the filesystem root"
    if home and path.rstrip("/") == home.rstrip("/"):
        return "the home directory"
    if comps[0] == "home":
        return "a home directory" if len(comps) <= 2 else None
    return "a system directory" if comps[0] in MOUNT_PROTECTED else None


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
    if len(comps) == 1:
        return _top_kind(comps[0], glob_last)
    if home and include_homes:
        home_comps = [c for c in home.split("/") if c]
        if comps == home_comps or (comps[:-1] == home_comps and glob_last):
            return "the home directory"
    if not _name_matches(comps[0], SYSTEM_TOP):
        return None
    if len(comps) == 2:
        return _second_kind(comps[0], comps[1], glob_last, include_homes)
    return _deeper_kind(comps, glob_last, include_homes)


def _top_kind(top: str, glob_last: bool) -> str | None:
    """``/X``: a system directory (or the root, for ``/*``)."""
    if _name_matches(top, SYSTEM_TOP | {"tmp"}) or glob_last:
        return "the filesystem root" if glob_last and top.strip("*") == "" else "a system directory"
    return None


def _second_kind(top: str, second: str, glob_last: bool, include_homes: bool) -> str | None:
    """``/X/Y`` under a system directory."""
    if glob_last and top != "tmp":
        return "a system directory"
    if top in ("home", "root"):
        return "a home directory" if include_homes or top == "root" else None
    if (top == "usr" and _name_matches(second, USR_SUBDIRS)) or (
        top == "var" and _name_matches(second, VAR_SUBDIRS)
    ):
        return "a system directory"
    if top == "mnt" and len(second) == 1:
        return "a Windows drive"
    return None


def _deeper_kind(comps: list[str], glob_last: bool, include_homes: bool) -> str | None:
    """Three components or more: a glob of homes or of ``/usr`` directories, or Windows folders."""
    top, second = comps[0], comps[1]
    if top == "home" and len(comps) == 3 and glob_last and include_homes:
        return "a home directory"
    if top == "usr" and len(comps) == 3 and glob_last and _name_matches(second, USR_SUBDIRS):
        return "a system directory"
    if top != "mnt" or len(second) != 1:
        return None
    tail = [c.lower() for c in comps[2:]]
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
