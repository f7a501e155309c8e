"""Packages a package manager removes, and which of them the system cannot run without.

Essential packages are what Debian marks ``Essential: yes`` (plus what the distro boots and logs
in with), and their Fedora, Arch and Alpine counterparts. A removal names packages directly, by
glob (``coreutil*``) or by pattern (``^lib.*``); a name that may match an essential package counts.
"""

from __future__ import annotations

import fnmatch
import re

from wslmcp.shell.guard.effects import Effect, Packages
from wslmcp.shell.guard.registry.options import parse
from wslmcp.shell.guard.registry.tables import words
from wslmcp.shell.guard.values import Arg

ESSENTIAL = words(
    "base-files base-passwd bash bsdutils coreutils dash debianutils diffutils dpkg findutils grep gzip hostname "
    "init-system-helpers libc-bin libc6 login ncurses-base ncurses-bin perl-base sed sysvinit-utils tar util-linux "
    "mount passwd apt libapt-pkg6.0 libpam-modules libpam-modules-bin libpam-runtime libpam0g systemd systemd-sysv "
    "libsystemd0 libudev1 zlib1g libgcc-s1 libstdc++6 libselinux1 libtinfo6 libcrypt1 libzstd1 liblzma5 libbz2-1.0 "
    "libpcre2-8-0 libacl1 libattr1 libcap2 libmd0 debconf gpgv sudo "
    "glibc glibc-common filesystem setup rpm dnf yum systemd-libs pacman musl busybox apk-tools alpine-baselayout"
)
_REMOVERS = {
    "apt": ("remove", "purge", "autoremove", "autopurge"), "apt-get": ("remove", "purge", "autoremove"),
    "aptitude": ("remove", "purge"), "dnf": ("remove", "erase", "autoremove"), "yum": ("remove", "erase", "autoremove"),
    "zypper": ("remove", "rm"), "apk": ("del",),
}  # fmt: skip
_FORCES = ("--allow-remove-essential", "--force-remove-essential", "--force-all", "--nodeps", "-dd", "-Rdd")


def _removed(name: str, args: list[Arg]) -> list[str] | None:
    """The packages ``name ARGS`` removes, None when it removes nothing."""
    texts = [a.text for a in args]
    if name in _REMOVERS:
        operands = [t for t in texts if not t.startswith("-")]
        if not operands or operands[0] not in _REMOVERS[name]:
            return None
        return operands[1:]
    if name == "dpkg":
        p = parse(args, "rP", ("remove", "purge"))
        found = p.values("-r", "--remove", "-P", "--purge")
        return [*found, *(a.text for a in p.operands)] if found else None
    if name == "rpm" and any(re.fullmatch(r"-e\w*|--erase", t) for t in texts):
        return [t for t in texts if not t.startswith("-")]
    if name == "pacman" and any(re.fullmatch(r"-R\w*|--remove", t) for t in texts):
        return [t for t in texts if not t.startswith("-")]
    return None


def _may_match(pattern: str) -> list[str]:
    """Essential packages a package name, glob or pattern may name (``bash:amd64``, ``coreutil*``)."""
    name = re.sub(r"[:=].*$|[-+]$", "", pattern)
    if name in ESSENTIAL:
        return [name]
    if re.search(r"[*?\[]", name):
        return [e for e in ESSENTIAL if fnmatch.fnmatchcase(e, name)]
    if re.search(r"[\^$]|\.\*", name):
        try:
            return [e for e in ESSENTIAL if re.search(name, e)]
        except re.error:
            return []
    return []


def package_effects(name: str, args: list[Arg]) -> list[Effect]:
    removed = _removed(name, args)
    if removed is None:
        return []
    essential = tuple(e for p in removed for e in _may_match(p))
    forced = any(a.text in _FORCES or a.text.startswith("--force-remove-essential") for a in args)
    return [Packages(tuple(removed), forced, essential)]
