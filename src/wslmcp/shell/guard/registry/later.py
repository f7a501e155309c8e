"""What programs store to run later, beyond files written (``paths.RUNS_LATER`` covers those):
a cron table installed, an ``at`` job, a systemd default target, unit link or override, a timer,
a command kept in git's configuration, a Windows Run key, a scheduled task or a service.
"""

from __future__ import annotations

import re

from wslmcp.shell.guard.effects import Change, Effect
from wslmcp.shell.guard.registry.git import plants_command
from wslmcp.shell.guard.registry.options import parse_as
from wslmcp.shell.guard.registry.tables import is_a, strip_windows_extension, words
from wslmcp.shell.guard.values import Arg

_SYSTEMCTL_PLANTS = words("set-default link edit add-wants add-requires")
_TIMERS = re.compile(
    r"--on-(active|boot|startup|unit-active|unit-inactive|calendar|clock-change|timezone-change)\b|--timer-property|--path-property|--socket-property"
)
_RUN_KEYS = re.compile(
    r"currentversion[\\/]*(run|runonce|runservices|runservicesonce)\b|winlogon|image\s*file\s*execution\s*options|"
    r"policies[\\/]*explorer[\\/]*run|user\s*shell\s*folders|\\startup\b",
    re.IGNORECASE,
)


def later_effects(name: str, args: list[Arg], raw: str) -> list[Effect]:
    """``Change("persist", why)`` when ``name ARGS`` stores something that runs later."""
    why = _crontab(name, args) or _at(name, args) or _systemd(name, args) or _windows(name, args, raw)
    if why is None and name == "git":
        why = plants_command(args)
    return [Change("persist", why)] if why else []


def _crontab(name: str, args: list[Arg]) -> str | None:
    if name != "crontab":
        return None
    p = parse_as(name, args)
    if p.has("-l", "-r", "-V", "-h", "--help") and not p.has("-e"):
        return None
    return "crontab installs the user's scheduled jobs, which run later, outside this call"


def _at(name: str, args: list[Arg]) -> str | None:
    if not is_a(name, "scheduler"):
        return None
    p = parse_as(name, args)
    if p.has("-l", "-d", "-r", "-c", "-V", "-h"):
        return None
    return f"'{name}' schedules a job that runs later, outside this call"


def _systemd(name: str, args: list[Arg]) -> str | None:
    if is_a(name, "service") and name == "systemctl":
        operands = [a.text for a in parse_as(name, args).operands]
        verb = operands[0] if operands else ""
        if verb in _SYSTEMCTL_PLANTS or (
            verb in ("enable", "reenable") and any("/" in u for u in operands[1:])
        ):
            return f"'systemctl {verb}' changes what the service manager starts later (a unit file or the default target)"
    if name == "systemd-run" and any(_TIMERS.match(a.text) for a in args):
        return "systemd-run with a timer runs its command later, outside this call"
    return None


def _windows(name: str, args: list[Arg], raw: str) -> str | None:
    win = strip_windows_extension(name)
    lowered = [a.text.lower() for a in args]
    if (
        win == "reg"
        and lowered[:1] in (["add"], ["import"], ["copy"], ["load"], ["restore"])
        and (_RUN_KEYS.search(raw) or lowered[0] != "add")
    ):
        return "'reg' changes what Windows starts at logon (a Run key, Winlogon or a debugger hook)"
    if win == "schtasks" and any(t in ("/create", "-create", "/change", "-change") for t in lowered):
        return "'schtasks' creates a Windows task that runs later"
    if win in ("sc", "new-service") and (win == "new-service" or lowered[:1] in (["create"], ["config"])):
        return f"'{name}' creates or changes a Windows service, which runs later"
    if win in ("register-scheduledtask", "new-scheduledtask", "set-scheduledtask"):
        return f"'{name}' creates a Windows task that runs later"
    if win in (
        "new-itemproperty",
        "set-itemproperty",
        "new-item",
        "set-item",
        "copy-item",
    ) and _RUN_KEYS.search(raw):
        return f"'{name}' changes what Windows starts at logon"
    return None
