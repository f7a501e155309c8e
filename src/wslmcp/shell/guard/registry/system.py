"""What programs do to the machine beyond files: power, disks, filesystems, the firewall, scheduled
jobs, WSL and Windows. Each finding is an effect (``Change``, ``Format``); the rules decide.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from wslmcp.shell.guard.effects import Change, Effect, Format
from wslmcp.shell.guard.registry.options import parse_as
from wslmcp.shell.guard.registry.tables import (
    POWER_METHODS,
    POWER_TARGETS,
    POWER_VERBS,
    READS,
    UNIT_STARTERS,
    WINDOWS_FEATURE_TOOLS,
    WINDOWS_REMOVERS,
    is_a,
    is_info_form,
    strip_windows_extension,
    words,
)
from wslmcp.shell.guard.values import Arg

Finder = Callable[[str, list[Arg], str], list[Effect]]


def system_effects(name: str, args: list[Arg], raw: str) -> list[Effect]:
    """What running ``name`` with ``args`` (typed as ``raw``) does to the machine."""
    found: list[Effect] = []
    if any(a.text == "--no-preserve-root" for a in args):
        found.append(
            Change("no_preserve_root", "explicitly disables the root-deletion safeguard (--no-preserve-root)")
        )
    if _concerns(name):
        for finder in _FINDERS:
            found.extend(finder(name, args, raw))
    return found


_NAMES = (
    words(
        "crontab iptables ip6tables nft wsl wslconfig taskkill sc net stop-service restart-service stop-process spps "
        "kill bcdedit format-volume format clear-disk initialize-disk remove-partition diskpart set-disk dbus-send "
        "busctl gdbus qdbus rtcwake kexec nvme cryptsetup lvremove vgremove pvremove lvreduce sg_format sg_sanitize "
        "badblocks hdparm mdadm zpool flashrom"
    )
    | WINDOWS_FEATURE_TOOLS
    | WINDOWS_REMOVERS
)
_FAMILIES = ("formatter", "power", "power_cmdlet", "runlevel", "service")


def _concerns(name: str) -> bool:
    """Is ``name`` a program any finder here knows (the rest do nothing to the machine)?"""
    key = strip_windows_extension(name)
    return key in _NAMES or any(is_a(key, f) or is_a(name, f) for f in _FAMILIES)


def _texts(args: list[Arg]) -> list[str]:
    return [a.text for a in args]


def _formats(name: str, args: list[Arg], raw: str) -> list[Effect]:
    if is_a(name, "formatter") and not is_info_form(name, _texts(args)):
        operands = [a for a in parse_as(name, args).operands]
        return [Format(tuple(operands), "formats a filesystem")]
    return []


def _powers_off(name: str, args: list[Arg], raw: str) -> list[Effect]:
    why = _power_reason(name, args)
    return [Change("power", why)] if why else []


def _power_reason(name: str, args: list[Arg]) -> str | None:
    win = strip_windows_extension(name)
    texts = _texts(args)
    if is_a(name.lower(), "power_cmdlet"):
        return "powers off or reboots the machine, ending this session"
    if is_a(win, "power"):
        if is_info_form(win, texts) or (win == "shutdown" and texts and texts[0] in ("-c", "/a", "/?")):
            return None
        return "powers off or reboots the machine, ending this session"
    if is_a(name, "runlevel") and any(t in ("0", "6", "1", "s", "S", "single") for t in texts):
        return "changes the runlevel to halt, reboot or single-user mode (every service stops)"
    if name == "rtcwake" and _rtcwake_sleeps(args):
        return "'rtcwake' suspends or powers off the machine until its clock wakes it"
    if name == "kexec" and any(t in ("-e", "--exec", "-f", "--force") for t in texts):
        return "'kexec' boots another kernel now, ending this session"
    if is_a(name, "service"):
        return _service_power(name, args)
    if name in ("dbus-send", "busctl", "gdbus", "qdbus") and any(POWER_METHODS.search(t) for t in texts):
        return f"'{name}' asks logind or systemd to power off, reboot or suspend the machine"
    return None


def _service_power(name: str, args: list[Arg]) -> str | None:
    p = parse_as(name, args)
    words = [a.text for a in p.operands]
    verb = words[0] if words else ""
    if verb in READS[name] or is_info_form(name, _texts(args)):
        return None
    units = {w if "." in w else w + ".target" for w in words[1:]}
    if verb in POWER_VERBS or (verb in UNIT_STARTERS and units & POWER_TARGETS):
        return f"'{name} {verb}' powers off, restarts or degrades the machine this server runs in"
    return None


def _rtcwake_sleeps(args: list[Arg]) -> bool:
    """rtcwake sleeps (``standby`` by default) unless its mode only sets or shows the alarm."""
    p = parse_as("rtcwake", args)
    if p.has("-h", "--help", "-V", "--version"):
        return False
    modes = p.values("-m", "--mode")
    return not modes or modes[-1] not in ("no", "show", "disable", "on")


def _crontab_remove(name: str, args: list[Arg], raw: str) -> list[Effect]:
    if name == "crontab" and any(re.fullmatch(r"-[A-Za-z]*r[A-Za-z]*", a.text) for a in args):
        return [Change("crontab_remove", "crontab -r removes every scheduled job of the user")]
    return []


def _firewall_flush(name: str, args: list[Arg], raw: str) -> list[Effect]:
    texts = _texts(args)
    flushing = (
        name in ("iptables", "ip6tables")
        and any(t == "--flush" or re.fullmatch(r"-[A-Za-z]*F[A-Za-z]*", t) for t in texts)
    ) or (name == "nft" and texts[:1] == ["flush"])
    return (
        [Change("firewall_flush", "flushes the firewall rules and can lock this session out")]
        if flushing
        else []
    )


_WSL_STOPS = ("--shutdown", "--terminate", "-t", "--unregister", "--uninstall")
_WSL_VALUES = ("-d", "--distribution", "-u", "--user", "--cd", "--distribution-id")


def _wsl_stop(name: str, args: list[Arg], raw: str) -> list[Effect]:
    win = strip_windows_extension(name)
    lowered = [t.lower() for t in _texts(args)]
    why = None
    if win == "wsl":
        why = _wsl_option_stop(lowered)
    elif win == "wslconfig" and any(t in ("/t", "/u", "/terminate", "/unregister") for t in lowered):
        why = "wslconfig /t or /u terminates or unregisters the distro this server runs in"
    elif win == "taskkill" and any(re.search(r"vmmem|wsl|vmcompute", t) for t in lowered):
        why = "taskkill of the WSL processes stops the distro this server runs in"
    elif win in ("sc", "net", "stop-service", "restart-service") and any(
        re.search(r"lxssmanager|wslservice|vmcompute", t) for t in lowered
    ):
        why = "stopping the WSL service stops the distro this server runs in"
    return [Change("wsl_stop", why)] if why else []


def _wsl_option_stop(lowered: list[str]) -> str | None:
    skip = False
    for t in lowered:
        if skip:
            skip = False
            continue
        if t in ("-e", "--exec", "--") or not t.startswith("-"):
            return None
        if t in _WSL_STOPS:
            return f"'wsl {t}' stops or removes the distro this server runs in"
        skip = t in _WSL_VALUES
    return None


_WSL_PROCESSES = re.compile(r"vmmem|vmwp|wslservice|wslhost|\bwsl|vmcompute|lxss", re.IGNORECASE)
_WSL_FEATURES = re.compile(r"subsystem-linux|virtualmachineplatform|hyper-?v|hypervisor", re.IGNORECASE)
_PROFILE = re.compile(
    r"""(?:^|[\s'"=])(?:[a-z]:[\\/]+(?:users(?:[\\/]+[^\\/\s'"]+)?|windows)?|\$env:(?:userprofile|homedrive|systemroot|windir)|"""
    r"""%(?:userprofile|systemroot|windir)%|\$home|~)[\\/]*(?=$|[\s'"])""",
    re.IGNORECASE,
)
_RECURSE = re.compile(r"(?:^|\s)(?:-r(?:e(?:c(?:u(?:r(?:s(?:e)?)?)?)?)?)?|/s)(?=\s|$)", re.IGNORECASE)


def _windows(name: str, args: list[Arg], raw: str) -> list[Effect]:
    """Windows-side disasters, reachable once Windows is open: stopping WSL or its VM, removing the
    WSL feature, formatting or wiping a disk, recursively deleting a user profile or the system."""
    win = strip_windows_extension(name)
    joined = " ".join(_texts(args))
    stops = win in ("stop-process", "spps") or (win == "kill" and re.search(r"-(process)?name", joined, re.I))
    if stops and _WSL_PROCESSES.search(joined):
        return [Change("wsl_stop", "stopping the WSL processes stops the distro this server runs in")]
    if (
        win in WINDOWS_FEATURE_TOOLS
        and _WSL_FEATURES.search(raw)
        and not re.search(r"\b(get-|/get-|enable)", raw, re.I)
    ):
        return [
            Change(
                "wsl_stop",
                "removing the WSL or virtual machine feature removes the distro this server runs in",
            )
        ]
    if win == "bcdedit" and re.search(r"hypervisorlaunchtype\s+off", joined, re.I):
        return [Change("wsl_stop", "turning the hypervisor off stops WSL 2 on the next boot")]
    if win in ("format-volume", "format") and args:
        return [Format((), "formats a Windows volume")]
    if win in ("clear-disk", "initialize-disk", "remove-partition", "diskpart", "set-disk"):
        return [Change("disk", f"'{name}' wipes or repartitions a disk")]
    if win in WINDOWS_REMOVERS and _RECURSE.search(" " + raw) and _PROFILE.search(raw.split(None, 1)[-1]):
        return [
            Change(
                "windows_profile_delete",
                "recursively deletes a Windows user profile, the users folder or the system",
            )
        ]
    return []


_DISK_VERBS = {
    "nvme": ("format", "sanitize", "delete-ns", "detach-ns", "write-zeroes", "write-uncor", "fw-download", "fw-commit", "security-send", "format-nvm"),
    "cryptsetup": ("luksFormat", "erase", "luksErase", "luksKillSlot", "luksRemoveKey", "reencrypt", "convert", "luksAddKey", "luksChangeKey"),
    "lvremove": None, "vgremove": None, "pvremove": None, "lvreduce": None, "sg_format": None, "sg_sanitize": None,
}  # fmt: skip
_DISK_OPTIONS = {
    "badblocks": re.compile(r"-\w*w\w*"),
    "hdparm": re.compile(r"--security-erase(-enhanced)?|--trim-sector-ranges\S*|--write-sector|--make-bad-sector|--dco-restore|--security-set-pass|--fwdownload\S*"),
    "mdadm": re.compile(r"--zero-superblock|--create|-C|--grow|--remove|--fail|-f"),
    "zpool": re.compile(r"destroy|labelclear|replace|detach"),
    "flashrom": re.compile(r"-\w*[wE]\w*|--write|--erase"),
}  # fmt: skip


def _disks(name: str, args: list[Arg], raw: str) -> list[Effect]:
    """Disk tools beyond the partitioners: formats, erasures, destructive tests, array and volume removal."""
    texts = [a.text for a in args]
    verbs = _DISK_VERBS.get(name, ())
    if (
        name in _DISK_VERBS
        and (verbs is None or any(t in verbs for t in texts))
        and not is_info_form(name, texts)
    ):
        return [Change("disk", f"'{name}' erases, reformats or removes a disk, volume or encryption header")]
    pattern = _DISK_OPTIONS.get(name)
    if pattern is not None and any(pattern.fullmatch(t) for t in texts):
        return [Change("disk", f"'{name}' writes over or erases a disk, array or firmware")]
    return []


_FINDERS: tuple[Finder, ...] = (
    _formats,
    _powers_off,
    _crontab_remove,
    _firewall_flush,
    _wsl_stop,
    _windows,
    _disks,
)
