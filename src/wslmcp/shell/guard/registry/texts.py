"""Commands programs run because their own options, configuration or scripts say so.

``program_runs(name, args, stdin)`` finds the shell text a program runs (``tar --to-command``,
``git -c alias.x=!…`` and ``core.pager``-style settings, ``sed``'s ``e`` command, ``awk``'s
``system()``, ``print | "cmd"`` and ``"cmd" | getline``, ``vim -c '!…'``, ``crontab -`` lines,
``make -f -`` recipes, ``ssh -o ProxyCommand``, ``rsync -e``) and the argument lists it runs
(``find -exec``). Text only known at run time is returned as ``UNKNOWN`` (the flow pass fails
closed on it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from wslmcp.shell.guard.effects import Payload, Unknown
from wslmcp.shell.guard.registry.options import parse_as
from wslmcp.shell.guard.registry.tables import FIND_RUNNERS, is_a
from wslmcp.shell.guard.values import UNKNOWN, Arg

UNKNOWN_COMMAND = UNKNOWN
"""A payload text standing for "runs a command only known at run time"."""


# --------------------------------------------------------------------- options that run commands

_GIT_COMMAND_KEYS = re.compile(
    r"(core\.(pager|editor|sshcommand|fsmonitor|askpass|hookspath)|sequence\.editor|diff\.external|"
    r"gpg\.program|gpg\.\w+\.program|credential\.helper|pager\.\w+|(diff|merge|filter)\.[^=]+\.(command|textconv|clean|smudge|process|driver)|"
    r"uploadpack\.packobjectshook|remote\.[^=]+\.(uploadpack|receivepack)|protocol\.ext\.allow)",
    re.IGNORECASE,
)


def _git(args: list[Arg]) -> list[tuple[str, str]]:
    p = parse_as("git", args, stop_first=True)
    found: list[tuple[str, str]] = []
    for value in p.values("-c"):
        key, _, setting = value.partition("=")
        if key.lower().startswith("alias."):
            if setting.startswith("!"):
                found.append((f"git -c {key}", setting[1:]))
        elif _GIT_COMMAND_KEYS.fullmatch(key) and setting:
            found.append((f"git -c {key}", setting.lstrip("!")))
    return found


def _tar(args: list[Arg]) -> list[tuple[str, str]]:
    p = parse_as("tar", args)
    found = [
        (f"tar {n}", v) for n, v in p.opts if n in ("--to-command", "--use-compress-program", "-I") and v
    ]
    found += [
        ("tar --info-script", v)
        for n, v in p.opts
        if n in ("--info-script", "--new-volume-script", "-F") and v
    ]
    for n, v in p.opts:
        if n == "--checkpoint-action" and v:
            action, _, command = v.partition("=")
            if action in ("exec", "sleep") and action == "exec":
                found.append(("tar --checkpoint-action", command))
    return found


def _helper_programs(name: str, args: list[Arg]) -> list[tuple[str, str]]:
    """The helper a program runs as a command: ``sort --compress-program``, ``zip -TT``."""
    option = {"sort": "--compress-program", "zip": "--unzip-command"}[name]
    found = [(f"{name} {n}", v) for n, v in parse_as(name, args).opts if n == option and v]
    texts = [a.text for a in args]  # zip's -TT is a two-letter option, not -T twice
    found += [("zip -TT", texts[k + 1]) for k, t in enumerate(texts[:-1]) if name == "zip" and t == "-TT"]
    return found


def _wholly_unknown(text: str) -> bool:
    """A script that is nothing but run-time text (``sed "$X"``, ``awk "$PROG"``)."""
    return bool(text) and not text.replace(UNKNOWN, "").replace("\x01", "").strip()


def _sed(args: list[Arg]) -> list[tuple[str, str]]:
    p = parse_as("sed", args)
    scripts = p.values("-e", "--expression") or [a.text for a in p.operands[:1]]
    found: list[tuple[str, str]] = [("sed script", UNKNOWN_COMMAND) for t in scripts if _wholly_unknown(t)]
    for script in scripts:
        for raw in re.split(r"[;\n]", script):
            line = raw.strip()
            m = re.match(r"^(?:[\d$,/\\^.*\[\]a-z]*?)?e\s+(.+)$", line)
            if m and not line.startswith(("s", "y")):
                found.append(("sed e", m.group(1)))
            elif re.match(r"^(?:[\d$,]*)e$", line) or re.match(
                r"^s(.).*\1.*\1[gpIiMm\d]*e[gpIiMm\d]*$", line
            ):
                found.append(("sed e", UNKNOWN_COMMAND))
    return found


def _awk(args: list[Arg]) -> list[tuple[str, str]]:
    p = parse_as("awk", args)
    if not p.operands:
        return []
    program = p.operands[0].text
    if _wholly_unknown(program):
        return [("awk program", UNKNOWN_COMMAND)]
    found = [("awk getline", m.group(1)) for m in re.finditer(r"\"([^\"]*)\"\s*\|&?\s*getline", program)]
    if re.search(r"[\w)\]]\s*\|&?\s*getline", program) or re.search(r"\|&", program):
        found.append(("awk getline", UNKNOWN_COMMAND))
    return found


def _editor(args: list[Arg]) -> list[tuple[str, str]]:
    commands = [a.text[1:] for a in args if a.text.startswith("+")]
    texts = [a.text for a in args]
    for k, t in enumerate(texts):
        if t in ("-c", "--cmd") and k + 1 < len(texts):
            commands.append(texts[k + 1])
    found: list[tuple[str, str]] = []
    for command in commands:
        for piece in command.split("|"):
            m = re.match(r"^\s*:?\s*(?:silent!?\s*|exe(?:cute)?\s*['\"]?)?!\s*(.+?)['\"]?\s*$", piece)
            if m:
                found.append(("vim -c !", m.group(1)))
            elif re.search(r"\bsystem\s*\(|\bterm(?:inal)?\b|\bcall\s+job_start", piece):
                found.append(("vim -c", UNKNOWN_COMMAND))
    return found


def _crontab(args: list[Arg], stdin: str | None) -> list[tuple[str, str]]:
    operands = [a.text for a in args if not a.text.startswith("-") or a.text == "-"]
    if operands != ["-"] and operands:
        return []
    if stdin is None:
        return []
    found: list[tuple[str, str]] = []
    for raw in stdin.splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or re.match(r"^\w+=", line):
            continue
        fields = line.split(None, 1 if line.startswith("@") else 5)
        if len(fields) > (1 if line.startswith("@") else 5):
            found.append(("crontab line", fields[-1]))
    return found


def _make(args: list[Arg], stdin: str | None) -> list[tuple[str, str]]:
    """``make -f -`` reads its makefile from stdin: each recipe line (after a tab) is shell text."""
    p = parse_as("make", args)
    if "-" not in p.values("-f", "--file", "--makefile") or stdin is None:
        return []
    return [("make recipe", line[1:].lstrip("@-+")) for line in stdin.splitlines() if line.startswith("\t")]


def _awk_commands(args: list[Arg]) -> list[Payload]:
    """awk's ``system("cmd")`` and ``print … | "cmd"`` (the command reads what awk prints)."""
    p = parse_as("awk", args)
    if p.has("-f", "--file") or not p.operands:
        return []
    program = p.operands[0].text
    found = [
        Payload("awk system()", m.group(1)) for m in re.finditer(r"\bsystem\s*\(\s*\"([^\"]*)\"", program)
    ]
    for m in re.finditer(r"\b(?:print|printf)\b[^;{}]*?\|\s*\"([^\"]*)\"", program):
        found.append(Payload("awk print |", m.group(1), stdin_unknown=True))
    return found


def _ssh_options(args: list[Arg]) -> list[tuple[str, str]]:
    """``ssh -o ProxyCommand=…``/``LocalCommand=…``: shell commands run on this machine."""
    texts = [a.text for a in args]
    found: list[tuple[str, str]] = []
    for k, t in enumerate(texts):
        option = (
            t[2:]
            if t.startswith("-o") and len(t) > 2
            else (texts[k + 1] if t == "-o" and k + 1 < len(texts) else "")
        )
        key, _, value = option.partition("=")
        if key.strip().lower() in ("proxycommand", "localcommand") and value.strip():
            found.append((f"ssh -o {key.strip()}", value))
    return found


def _rsync_shell(args: list[Arg]) -> list[tuple[str, str]]:
    texts = [a.text for a in args]
    found: list[tuple[str, str]] = []
    for k, t in enumerate(texts):
        shell = (
            t.split("=", 1)[1]
            if t.startswith("--rsh=")
            else (texts[k + 1] if t in ("-e", "--rsh") and k + 1 < len(texts) else "")
        )
        if shell:
            found.append(("rsync -e", shell))
    return found


def _find_runs(args: list[Arg]) -> tuple[list[tuple[str, list[Arg]]], list[Unknown]]:
    """``find -exec CMD {} ;``: the command run on each file found."""
    texts = [a.text for a in args]
    nested: list[tuple[str, list[Arg]]] = []
    unknown: list[Unknown] = []
    k = 0
    while k < len(texts):
        if texts[k] in FIND_RUNNERS:
            end = k + 1
            while end < len(texts) and texts[end] not in (";", "+"):
                end += 1
            argv = args[k + 1 : end]
            if argv and "{}" in argv[0].text:
                unknown.append(
                    Unknown(
                        "command",
                        f"find {texts[k]} runs each file it finds as the program, so what runs is only known "
                        "at run time; name the program and pass the file as its argument",
                    )
                )
            elif argv:
                nested.append((f"find {texts[k]}", argv))
            k = end
        k += 1
    return nested, unknown


def _option_texts(name: str, args: list[Arg], stdin: str | None) -> list[tuple[str, str]]:
    """(label, shell text) for each command ``name`` runs because its options or script say so."""
    if name == "git":
        return _git(args)
    if name in ("tar", "bsdtar"):
        return _tar(args)
    if name == "sed":
        return _sed(args)
    if name in ("sort", "zip"):
        return _helper_programs(name, args)
    if is_a(name, "awk"):
        return _awk(args)
    if is_a(name, "vim"):
        return _editor(args)
    if name == "crontab":
        return _crontab(args, stdin)
    if name in ("make", "gmake"):
        return _make(args, stdin)
    if name in ("less", "more", "most"):
        return [("less !", a.text.split("!", 1)[1]) for a in args if a.text.startswith("+") and "!" in a.text]
    if name in ("ssh", "scp", "sftp"):
        return _ssh_options(args)
    if name == "rsync":
        return _rsync_shell(args)
    return []


@dataclass
class Runs:
    """What a program runs besides itself: shell text, argument lists, and what it runs that the
    guard cannot know."""

    texts: list[Payload] = field(default_factory=list)
    argvs: list[tuple[str, list[Arg]]] = field(default_factory=list)
    unknown: list[Unknown] = field(default_factory=list)


def program_runs(name: str, args: list[Arg], stdin: str | None) -> Runs:
    """Everything ``name`` runs because of its arguments or its static ``stdin``."""
    runs = Runs()
    if name == "find":
        runs.argvs, runs.unknown = _find_runs(args)
    if is_a(name, "awk"):
        runs.texts.extend(_awk_commands(args))
    runs.texts.extend(Payload(label, text) for label, text in _option_texts(name, args, stdin))
    return runs
