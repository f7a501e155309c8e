"""Which processes a program signals: ``kill``'s PIDs, ``pkill``/``killall``'s patterns and users,
``killall5``'s every process. Returned as data (``Signal``); the rule decides what is too much.

A pattern counts as matching everything when it matches every one of a spread of process names,
and as reaching PID 1 when it matches what WSL's PID 1 is called (``init``, ``systemd``).
"""

from __future__ import annotations

import re

from wslmcp.shell.guard.effects import Effect, Signal
from wslmcp.shell.guard.registry.options import parse
from wslmcp.shell.guard.values import Arg

_SAMPLE_NAMES = ("bash", "sshd", "python3", "node", "Xorg", "a", "systemd-journald", "init", "kworker/0:1")
_INIT_NAMES = ("init", "systemd", "/sbin/init", "/init", "/lib/systemd/systemd")
_SIGNAL = re.compile(r"-(?:SIG)?([A-Z]+[0-9]*|[0-9]+)$", re.IGNORECASE)
_NAMES = frozenset(
    [
        "HUP",
        "INT",
        "QUIT",
        "ILL",
        "TRAP",
        "ABRT",
        "IOT",
        "BUS",
        "FPE",
        "KILL",
        "USR1",
        "SEGV",
        "USR2",
        "PIPE",
        "ALRM",
        "TERM",
        "STKFLT",
        "CHLD",
        "CONT",
        "STOP",
        "TSTP",
        "TTIN",
        "TTOU",
        "URG",
        "XCPU",
        "XFSZ",
        "VTALRM",
        "PROF",
        "WINCH",
        "IO",
        "POLL",
        "PWR",
        "SYS",
        "RTMIN",
        "RTMAX",
    ]
)


def _signal_word(text: str) -> str | None:
    """The signal a ``-SIGNAL`` word names (``-9``, ``-KILL``, ``-SIGHUP``), else None."""
    m = _SIGNAL.match(text)
    if m is None:
        return None
    name = m.group(1).upper().removeprefix("SIG")
    return name if name.isdigit() or name in _NAMES or re.fullmatch(r"RTM(IN|AX)[+-]?\d*", name) else None


def _split_signal(args: list[Arg]) -> tuple[str | None, list[Arg]]:
    """The leading ``-SIGNAL`` word of ``pkill``/``killall``, and the other words."""
    for k, a in enumerate(args):
        signal = _signal_word(a.text)
        if signal is not None:
            return signal, [*args[:k], *args[k + 1 :]]
    return None, args


def signal_effects(name: str, args: list[Arg]) -> list[Effect]:
    """The signals ``name ARGS`` sends, and to what."""
    if name == "kill":
        return _kill(args)
    if name in ("pkill", "skill"):
        return _pkill(args)
    if name == "killall":
        return _killall(args)
    if name == "killall5":
        signal = next((s for a in args if (s := _signal_word(a.text)) is not None), "TERM")
        return [Signal(_normal(signal), everything=True)]
    return []


def _normal(signal: str) -> str:
    signal = signal.upper().removeprefix("SIG")
    return "0" if signal in ("0", "NULL") else signal


def _kill(args: list[Arg]) -> list[Effect]:
    texts = [a.text for a in args]
    if any(t in ("-l", "-L", "--list", "--table") for t in texts):
        return []
    signal: str | None = None
    pids: list[str] = []
    k = 0
    while k < len(texts):
        t = texts[k]
        if t == "--":
            pids.extend(texts[k + 1 :])
            break
        if t in ("-s", "-n", "--signal") and k + 1 < len(texts):
            signal, k = texts[k + 1], k + 2
            continue
        word = _signal_word(t) if signal is None and not pids else None
        if t.startswith("--signal="):
            signal = t.split("=", 1)[1]
        elif word is not None:
            signal = word
        else:
            pids.append(t)
        k += 1
    signal = signal or "TERM"
    if not pids and re.fullmatch(r"-\d+", texts[-1] if texts else ""):
        pids = [texts[-1]]  # `kill -1`: the number may be read as the process
    return [Signal(_normal(signal), pids=tuple(pids))]


def _matches(pattern: str, name: str, exact: bool) -> bool:
    try:
        compiled = re.compile(pattern)
    except re.error:
        return True  # a pattern the guard cannot read may match anything
    return bool(compiled.fullmatch(name) if exact else compiled.search(name))


def _reach(pattern: str | None, exact: bool, invert: bool) -> tuple[bool, bool]:
    """(matches every process, matches PID 1) for a name pattern."""
    if pattern is None:
        return True, True
    every = all(_matches(pattern, n, exact) != invert for n in _SAMPLE_NAMES)
    init = any(_matches(pattern, n, exact) != invert for n in _INIT_NAMES)
    return every, init


def _users(every: bool, users: tuple[str, ...], init: bool) -> tuple[bool, tuple[str, ...], bool]:
    """Criteria narrowed to some users: every process of those users (when the pattern took all),
    PID 1 only when root is among them."""
    if not users:
        return every, (), init
    return False, users if every else (), init and any(u in ("root", "0") for u in users)


def _pkill(args: list[Arg]) -> list[Effect]:
    signal, rest = _split_signal(args)
    p = parse(
        rest,
        "gGPstuUFcnoO",
        (
            "signal",
            "euid",
            "uid",
            "parent",
            "pgroup",
            "group",
            "session",
            "terminal",
            "pidfile",
            "ns",
            "nslist",
        ),
    )
    signal = next(iter(p.values("--signal")), signal or "TERM")
    pattern = p.operands[0].text if p.operands else None
    every, init = _reach(pattern, p.has("-x", "--exact"), p.has("-v", "--inverse"))
    if p.has("-g", "-G", "-s", "-t", "-F", "--pgroup", "--group", "--session", "--terminal", "--pidfile"):
        every = init = False
    parents = {q for v in p.values("-P", "--parent") for q in v.split(",")}
    if parents:
        every, init = every and "1" in parents, False
    users = tuple(u for v in p.values("-u", "-U", "--euid", "--uid") for u in v.split(","))
    every, users, init = _users(every, users, init)
    return [Signal(_normal(signal), users=users, everything=every, init=init)]


def _killall(args: list[Arg]) -> list[Effect]:
    signal, rest = _split_signal(args)
    p = parse(rest, "suoyn", ("signal", "user", "older-than", "younger-than", "ns"))
    signal = next(iter(p.values("-s", "--signal")), signal or "TERM")
    regex = p.has("-r", "--regexp", "--regex")
    every = init = not p.operands
    for operand in p.operands:
        reached = _reach(operand.text if regex else re.escape(operand.text), not regex, False)
        every, init = every or reached[0], init or reached[1]
    every, users, init = _users(every, tuple(p.values("-u", "--user")), init)
    if not p.operands and not users:
        every = init = False  # killall with no name and no user signals nothing
    return [Signal(_normal(signal), users=users, everything=every, init=init)]
