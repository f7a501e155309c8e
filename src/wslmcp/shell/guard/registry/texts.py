"""Commands programs run because their own options, configuration, environment or scripts say so.

``program_runs(name, args, stdin, environment, settings)`` finds the shell text a program runs and
the argument lists it runs. Per program (``_TEXTS``): ``tar --to-command``/``-I``/
``--checkpoint-action=exec=``/``--rsh-command``; ``git`` (``git.py``); ``make --eval``, recipes of a
makefile read from stdin, and the variables it runs (``CC=…``, ``SHELL=…``); ``npm``/``npx``/
``yarn``/``pnpm`` ``-c``/``--call``/``--script-shell`` and scripts set on the command line;
``zip -TT``; ``sort --compress-program``; ``rsync -e``/``--rsync-path``; ``ssh``/``scp``/``sftp``
``-o ProxyCommand``/``LocalCommand``/``KnownHostsCommand`` and ``-S``; ``strace -o '|cmd'``;
``gdb -ex 'shell …'``/``pipe``/``python``; ``sed``'s ``e``; ``awk``'s ``system()``, ``| getline``
and ``print | "cmd"``; the shell escapes of ``sqlite3``, ``mysql``, ``psql``, ``ed`` and ``ex``
(``.shell``, ``\\!``, ``!cmd``, ``.once |cmd``); ``apt``/``dpkg`` hooks (``DPkg::Pre-Invoke``,
``--pre-invoke``); ``man -P``/``-H``; ``less +!cmd``; ``vim`` commands (``!``, ``r !``, ``w !``,
filters, ``py3``/``lua``); ``emacs --eval``; ``socat EXEC:``/``SYSTEM:``; ``nc -e``/``-c``;
``crontab -`` lines; ``find -exec``. A program's configuration file written earlier in the same
command is read as such (``config_files``). Text only known at run time is ``UNKNOWN`` (the flow
pass fails closed on it).
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from wslmcp.shell.guard.effects import Payload, Unknown
from wslmcp.shell.guard.paths import normalize
from wslmcp.shell.guard.registry.git import config_text_commands, git_runs, included_files
from wslmcp.shell.guard.registry.listings import find_narrows, find_roots
from wslmcp.shell.guard.registry.options import parse, parse_as
from wslmcp.shell.guard.registry.tables import FIND_RUNNERS, is_a
from wslmcp.shell.guard.values import UNKNOWN, Arg, listed_name

UNKNOWN_COMMAND = UNKNOWN
"""A payload text standing for "runs a command only known at run time"."""

Found = list[tuple[str, str]]
Texts = Callable[[str, list[Arg], str | None], Found]


def _wholly_unknown(text: str) -> bool:
    """A script that is nothing but run-time text (``sed "$X"``, ``awk "$PROG"``)."""
    return bool(text) and not text.replace(UNKNOWN, "").replace("\x01", "").strip()


def _split(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:
        return [UNKNOWN]


# --------------------------------------------------------------------- options that run commands


def _tar(name: str, args: list[Arg], stdin: str | None) -> Found:
    p = parse_as("tar", args)
    commands = ("--to-command", "--use-compress-program", "-I", "--rsh-command", "--info-script", "--new-volume-script", "-F")  # fmt: skip
    found = [(f"tar {n}", v) for n, v in p.opts if n in commands and v]
    for n, v in p.opts:
        if n == "--checkpoint-action" and v:
            action, _, command = v.partition("=")
            if action == "exec":
                found.append(("tar --checkpoint-action", command))
    return found


def _helper_programs(name: str, args: list[Arg], stdin: str | None) -> Found:
    """The helper a program runs as a command: ``sort --compress-program``, ``zip -TT``."""
    option = {"sort": "--compress-program", "zip": "--unzip-command"}[name]
    found = [(f"{name} {n}", v) for n, v in parse_as(name, args).opts if n == option and v]
    texts = [a.text for a in args]  # zip's -TT is a two-letter option, not -T twice
    found += [("zip -TT", texts[k + 1]) for k, t in enumerate(texts[:-1]) if name == "zip" and t == "-TT"]
    return found


def _sed(name: str, args: list[Arg], stdin: str | None) -> Found:
    p = parse_as("sed", args)
    scripts = p.values("-e", "--expression") or [a.text for a in p.operands[:1]]
    found: Found = [("sed script", UNKNOWN_COMMAND) for t in scripts if _wholly_unknown(t)]
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


def _awk(name: str, args: list[Arg], stdin: str | None) -> Found:
    p = parse_as("awk", args)
    if p.has("-f", "--file") or not p.operands:
        return []
    program = p.operands[0].text
    if _wholly_unknown(program):
        return [("awk program", UNKNOWN_COMMAND)]
    found = [("awk system()", m.group(1)) for m in re.finditer(r"\bsystem\s*\(\s*\"([^\"]*)\"", program)]
    found += [("awk getline", m.group(1)) for m in re.finditer(r"\"([^\"]*)\"\s*\|&?\s*getline", program)]
    if re.search(r"[\w)\]]\s*\|&?\s*getline", program) or re.search(r"\|&", program):
        found.append(("awk getline", UNKNOWN_COMMAND))
    return found


def _awk_pipes(args: list[Arg]) -> list[Payload]:
    """awk's ``print … | "cmd"``: the command reads what awk prints (only known at run time)."""
    p = parse_as("awk", args)
    if p.has("-f", "--file") or not p.operands:
        return []
    program = p.operands[0].text
    return [
        Payload("awk print |", m.group(1), stdin_unknown=True)
        for m in re.finditer(r"\b(?:print|printf)\b[^;{}]*?\|\s*\"([^\"]*)\"", program)
    ]


_VIM_SHELL = re.compile(
    r"^\s*:?\s*(?:silent!?\s*|exe(?:cute)?\s*['\"]?)?(?:[%.$\d,']*\s*)?(?:r(?:ead)?\s*|w(?:rite)?\s+)?!\s*(.+?)['\"]?\s*$"
)
_VIM_CODE = re.compile(r"^\s*:?\s*(py3?|python3?|pyx|pythonx|lua|perl|ruby)(?:do|file)?\s+(.*)$", re.S)
_VIM_UNKNOWN = re.compile(r"\bsystem(?:list)?\s*\(|\bterm(?:inal)?\b|\bjob_start|\bjobstart|\blibcall")
_INTERPRETER_OF = {"py": "python3", "py3": "python3", "python": "python3", "python3": "python3", "pyx": "python3",
                   "pythonx": "python3", "lua": "lua", "perl": "perl", "ruby": "ruby"}  # fmt: skip


def ex_commands(text: str) -> Found:
    """Shell text in vi/ex commands: ``!cmd``, ``r !cmd``, ``w !cmd``, a filter (``%!cmd``),
    ``silent !``; interpreter code (``py3 …``) as ``code:<interpreter>``; ``system()`` and the like
    as unknown. Commands are separated by ``|``, except that a shell command takes the rest."""
    found: Found = []
    for line in text.splitlines():
        pieces = line.split("|")
        for k, piece in enumerate(pieces):
            shell = _VIM_SHELL.match("|".join(pieces[k:]))
            code = _VIM_CODE.match("|".join(pieces[k:]))
            if shell:
                found.append(("vim !", shell.group(1)))
                break
            if code:
                found.append((f"code:{_INTERPRETER_OF[code.group(1)]}", code.group(2)))
                break
            if _VIM_UNKNOWN.search(piece):
                found.append(("vim command", UNKNOWN_COMMAND))
    return found


def _vim(name: str, args: list[Arg], stdin: str | None) -> Found:
    commands = [a.text[1:] for a in args if a.text.startswith("+")]
    texts = [a.text for a in args]
    commands += [texts[k + 1] for k, t in enumerate(texts[:-1]) if t in ("-c", "--cmd")]
    if (stdin is not None and any(t in ("-e", "-es", "-E", "-s", "-Es") for t in texts)) or name == "ex":
        commands.append(stdin or "")
    return [f for command in commands for f in ex_commands(command)]


def _ed(name: str, args: list[Arg], stdin: str | None) -> Found:
    """ed reads its commands from stdin: ``!cmd``, ``r !cmd``, ``w !cmd``, ``e !cmd``."""
    return [
        ("ed !", m.group(1)) for m in re.finditer(r"(?m)^\s*(?:[.$\d,]*[rweE]\s*)?!\s*(.+)$", stdin or "")
    ]


def _emacs(name: str, args: list[Arg], stdin: str | None) -> Found:
    """``emacs --eval EXPR``: ``shell-command``/``call-process``/``start-process`` of literal text."""
    texts = [a.text for a in args]
    exprs = [texts[k + 1] for k, t in enumerate(texts[:-1]) if t in ("--eval", "-eval")]
    exprs += [t.split("=", 1)[1] for t in texts if t.startswith("--eval=")]
    found: Found = []
    for expr in exprs:
        found += [
            ("emacs shell-command", m.group(1))
            for m in re.finditer(r"\((?:async-)?shell-command(?:-to-string)?\s+\"([^\"]*)\"", expr)
        ]
        for m in re.finditer(
            r"\((call-process|process-lines|start-process|make-process)\s+((?:\"[^\"]*\"\s*|nil\s*|t\s*)+)",
            expr,
        ):
            words = re.findall(r"\"([^\"]*)\"", m.group(2))
            if m.group(1) in ("start-process", "make-process"):
                words = words[1:]  # the process's name comes first
            found.append(("emacs process", " ".join(shlex.quote(w) for w in words)))
        if re.search(
            r"\((?:shell-command|call-process|start-process|process-lines|make-process|async-shell-command)\b(?!\s+\")",
            expr,
        ):
            found.append(("emacs process", UNKNOWN_COMMAND))
    return found


def _crontab(name: str, args: list[Arg], stdin: str | None) -> Found:
    operands = [a.text for a in args if not a.text.startswith("-") or a.text == "-"]
    if (operands != ["-"] and operands) or stdin is None:
        return []
    return crontab_lines(stdin)


def crontab_lines(text: str) -> Found:
    found: Found = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or re.match(r"^\w+=", line):
            continue
        fields = line.split(None, 1 if line.startswith("@") else 5)
        if len(fields) > (1 if line.startswith("@") else 5):
            found.append(("crontab line", fields[-1]))
    return found


MAKE_COMMANDS = frozenset(
    [
        "SHELL",
        "MAKE",
        "CC",
        "CXX",
        "CPP",
        "FC",
        "LD",
        "AR",
        "AS",
        "RM",
        "LEX",
        "YACC",
        "M2C",
        "PC",
        "CO",
        "GET",
        "LINT",
        "MAKEINFO",
        "TEX",
        "TEXI2DVI",
        "WEAVE",
        "CWEAVE",
        "TANGLE",
        "CTANGLE",
        "INSTALL",
        "PYTHON",
        "PERL",
    ]
)
"""Variables make runs as commands in its built-in and usual rules."""


def makefile_commands(text: str) -> Found:
    """Shell text in a makefile: recipe lines (after a tab or ``;``) and ``$(shell …)`` calls."""
    found: Found = [
        ("make recipe", line[1:].lstrip("@-+")) for line in text.splitlines() if line.startswith("\t")
    ]
    found += [
        ("make recipe", m.group(1).lstrip("@-+"))
        for m in re.finditer(r"(?m)^[^\t#\n=]+:[^=\n;]*;\s*(.+)$", text)
    ]
    found += [("make $(shell)", m.group(1)) for m in re.finditer(r"\$[({]shell\s+([^)}]*)[)}]", text)]
    return found


def _make(name: str, args: list[Arg], stdin: str | None) -> Found:
    p = parse_as("make", args)
    found: Found = []
    if "-" in p.values("-f", "--file", "--makefile") and stdin is not None:
        found += makefile_commands(stdin)
    for text in p.values("-E", "--eval"):
        found += makefile_commands(text)
    for operand in p.operands:
        var, eq, value = operand.text.partition("=")
        if eq and var.rstrip("+:?") in MAKE_COMMANDS and value:
            found.append((f"make {var}=", value))
    return found


def _npm(name: str, args: list[Arg], stdin: str | None) -> Found:
    """npm/npx/yarn/pnpm: ``-c``/``--call`` text, ``--script-shell``, scripts set on the command line
    (``npm pkg set scripts.x=…``, ``npm set-script x …``)."""
    texts = [a.text for a in args]
    p = parse(args, "c", ("call", "script-shell", "shell"))
    found: Found = [(f"{name} -c", v) for v in p.values("-c", "--call")]
    found += [(f"{name} --script-shell", v) for v in p.values("--script-shell", "--shell")]
    if texts[:2] == ["pkg", "set"]:
        found += [
            (f"{name} pkg set {t.split('=', 1)[0]}", t.split("=", 1)[1])
            for t in texts[2:]
            if t.startswith("scripts.") and "=" in t
        ]
    if texts[:1] == ["set-script"] and len(texts) >= 3:
        found.append((f"{name} set-script {texts[1]}", texts[2]))
    return found


def _rsync(name: str, args: list[Arg], stdin: str | None) -> Found:
    p = parse(args, "e", ("rsh", "rsync-path"))
    return [("rsync -e", v) for v in p.values("-e", "--rsh")] + [
        ("rsync --rsync-path", v) for v in p.values("--rsync-path")
    ]


_SSH_COMMANDS = ("proxycommand", "localcommand", "knownhostscommand", "remotecommand")


def ssh_config_commands(text: str) -> Found:
    """Commands in ssh configuration text: ``ProxyCommand``, ``LocalCommand``,
    ``KnownHostsCommand``, ``Match exec "…"``."""
    found: Found = []
    for raw in text.splitlines():
        line = raw.strip()
        option = re.match(r"(\w+)\s*(?:=\s*|\s+)(.+)$", line)
        if option and option.group(1).lower() in _SSH_COMMANDS:
            found.append((f"ssh {option.group(1)}", option.group(2)))
        m = re.match(r"(?i)match\b.*\bexec\s+(?:\"([^\"]*)\"|(\S+))", line)
        if m:
            found.append(("ssh Match exec", m.group(1) or m.group(2)))
    return found


def _ssh(name: str, args: list[Arg], stdin: str | None) -> Found:
    p = parse(args, "bcDEeFIiJLlmOoPpQRSWw" if name == "ssh" else "cFiJloPSD")
    found = [f for option in p.values("-o") for f in ssh_config_commands(option)]
    if name in ("scp", "sftp"):
        found += [(f"{name} -S", v) for v in p.values("-S")] + [(f"{name} -D", v) for v in p.values("-D")]
    if "/dev/stdin" in p.values("-F") and stdin is not None:
        found += ssh_config_commands(stdin)
    return found


def _strace(name: str, args: list[Arg], stdin: str | None) -> Found:
    p = parse_as(name, args, stop_first=True)
    return [(f"{name} -o |", v[1:]) for v in p.values("-o", "--output") if v[:1] in ("|", "!")]


def gdb_commands(text: str) -> Found:
    """Shell text in gdb commands: ``shell CMD``, ``!CMD``, ``pipe … | CMD``; ``python …`` code."""
    found: Found = []
    for line in text.splitlines():
        m = re.match(r"^\s*(?:shell\s+|!)(.+)$", line)
        pipe = re.match(r"^\s*(?:pipe|\|)\s+.*?\|\s*(.+)$", line)
        code = re.match(r"^\s*(?:python|py|python-interactive|pi)\s+(.+)$", line)
        if m:
            found.append(("gdb shell", m.group(1)))
        elif pipe:
            found.append(("gdb pipe", pipe.group(1)))
        elif code:
            found.append(("code:python3", code.group(1)))
    return found


def _gdb(name: str, args: list[Arg], stdin: str | None) -> Found:
    texts = [a.text for a in args]
    commands = [
        texts[k + 1]
        for k, t in enumerate(texts[:-1])
        if t in ("-ex", "--ex", "-eval-command", "--eval-command", "-iex", "--init-eval-command")
    ]
    files = [
        texts[k + 1] for k, t in enumerate(texts[:-1]) if t in ("-x", "--command", "-ix", "--init-command")
    ]
    if stdin is not None and ("/dev/stdin" in files or "-batch" in texts):
        commands.append(stdin)
    return [f for c in commands for f in gdb_commands(c)]


# Shell escapes of programs that read commands: (program -> (pattern of an escape line, options
# whose value is such text, whether operands after the first are such text, label)).
_ESCAPES: dict[str, tuple[re.Pattern[str], tuple[str, ...], bool]] = {
    "sqlite3": (re.compile(r"(?m)^\s*\.(?:shell|system)\s+(.+)$|^\s*\.(?:once|output|read|import|excel)\s+(?:-\w\s+)?['\"]?\|\s*([^'\"\n]+?)['\"]?(?:\s+\w+)?\s*$"), ("-cmd",), True),
    "mysql": (re.compile(r"(?m)^\s*(?:\\!|system)\s+(.+?);?\s*$"), ("-e", "--execute"), False),
    "mariadb": (re.compile(r"(?m)^\s*(?:\\!|system)\s+(.+?);?\s*$"), ("-e", "--execute"), False),
    "psql": (re.compile(r"(?m)\\!\s*(.+)$|\\[og]\s+\|\s*(.+)$|\\copy\b.*?\bprogram\s+'([^']*)'"), ("-c", "--command"), False),
}  # fmt: skip


def escape_commands(program: str, text: str) -> Found:
    pattern = _ESCAPES[program][0]
    found: Found = [(f"{program} escape", next(g for g in m.groups() if g)) for m in pattern.finditer(text)]
    if program == "sqlite3":
        found += [
            ("sqlite3 writefile", f": > {shlex.quote(m.group(1))}")
            for m in re.finditer(r"\bwritefile\s*\(\s*'([^']*)'", text)
        ]
    return found


def _escapes(name: str, args: list[Arg], stdin: str | None) -> Found:
    _, options, operands = _ESCAPES[name]
    texts = [a.text for a in args]
    sources = [texts[k + 1] for k, t in enumerate(texts[:-1]) if t in options]
    sources += [t.split("=", 1)[1] for t in texts if "=" in t and t.split("=", 1)[0] in options]
    if operands:
        words = [
            t for k, t in enumerate(texts) if not t.startswith("-") and not (k and texts[k - 1] in options)
        ]
        sources += words[1:]
    if stdin is not None:
        sources.append(stdin)
    return [f for text in sources for f in escape_commands(name, text)]


_APT_HOOKS = re.compile(
    r"(?i)(dpkg::(pre|post)-invoke|dpkg::pre-install-pkgs|dpkg::tools::options::.*|apt::update::(pre|post)-invoke(-success)?|"
    r"apt::update::post-invoke-stats|aptlistbugs::.*|dir::bin::.+|apt::key::gpgvcommand|acquire::.*proxy-auto-detect|"
    r"binary::.+::dpkg::.+)(::)?"
)


def _apt(name: str, args: list[Arg], stdin: str | None) -> Found:
    p = parse_as(name, args)
    found: Found = []
    for option in p.values("-o", "--option"):
        key, _, value = option.partition("=")
        if _APT_HOOKS.fullmatch(key) and value:
            found.append((f"{name} -o {key}", value))
    return found


def _dpkg(name: str, args: list[Arg], stdin: str | None) -> Found:
    p = parse(args, "", ("pre-invoke", "post-invoke", "status-logger"))
    return [
        (f"dpkg {n}", v) for n, v in p.opts if n in ("--pre-invoke", "--post-invoke", "--status-logger") and v
    ]


def _man(name: str, args: list[Arg], stdin: str | None) -> Found:
    p = parse(args, "PH", ("pager", "html"))
    found = [("man -P", v) for v in p.values("-P", "--pager")]
    found += [("man -H", v) for n, v in p.opts if n in ("-H", "--html") and v]
    return found


def _pager(name: str, args: list[Arg], stdin: str | None) -> Found:
    return [(f"{name} !", a.text.split("!", 1)[1]) for a in args if a.text.startswith("+") and "!" in a.text]


def _socat(name: str, args: list[Arg], stdin: str | None) -> Found:
    found: Found = []
    for a in args:
        m = re.match(
            r"(?i)(exec|system):(.*?)(?:,(?:pty|stderr|setsid|ctty|sigint|sighup|sigquit|nofork|\w+=\S*))*$",
            a.text,
        )
        if m:
            found.append((f"socat {m.group(1).upper()}", m.group(2)))
    return found


def _netcat(name: str, args: list[Arg], stdin: str | None) -> Found:
    p = parse(args, "ecpsqwiIOTVx", ("exec", "sh-exec", "lua-exec"))
    found = [(f"{name} -c", v) for v in p.values("-c", "--sh-exec")]
    found += [(f"{name} -e", shlex.quote(v)) for v in p.values("-e", "--exec")]
    return found


_TEXTS: dict[str, Texts] = {
    "tar": _tar, "bsdtar": _tar, "sed": _sed, "sort": _helper_programs, "zip": _helper_programs,
    "crontab": _crontab, "make": _make, "gmake": _make, "npm": _npm, "npx": _npm, "yarn": _npm, "pnpm": _npm,
    "rsync": _rsync, "ssh": _ssh, "scp": _ssh, "sftp": _ssh, "strace": _strace, "gdb": _gdb,
    "sqlite3": _escapes, "mysql": _escapes, "mariadb": _escapes, "psql": _escapes, "ed": _ed, "red": _ed,
    "apt": _apt, "apt-get": _apt, "aptitude": _apt, "dpkg": _dpkg, "man": _man,
    "less": _pager, "more": _pager, "most": _pager, "emacs": _emacs, "socat": _socat,
    "nc": _netcat, "ncat": _netcat, "netcat": _netcat,
}  # fmt: skip


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
                nested.extend((f"find {texts[k]}", found) for found in _each_found(args, k, argv))
            k = end
        k += 1
    return nested, unknown


def _each_found(args: list[Arg], action: int, argv: list[Arg]) -> list[list[Arg]]:
    """``argv`` of ``find ROOTS EXPR -exec ARGV``, its ``{}`` standing for the names found under each
    root (every name, unless the expression before the action narrows them: ``listings``)."""
    if not any("{}" in a.text for a in argv):
        return [argv]
    roots, start = find_roots(args)
    every = not find_narrows([a.text for a in args[start:action]])
    return [
        [Arg(a.text.replace("{}", listed_name(normalize(root.text), every)), a.glob) for a in argv]
        for root in roots or [Arg(".")]
    ]


@dataclass
class Runs:
    """What a program runs besides itself: shell text, argument lists, interpreter code
    (``(interpreter, program)``), and what it runs that the guard cannot know."""

    texts: list[Payload] = field(default_factory=list)
    argvs: list[tuple[str, list[Arg]]] = field(default_factory=list)
    code: list[tuple[str, str]] = field(default_factory=list)
    unknown: list[Unknown] = field(default_factory=list)

    def add(self, found: Found) -> None:
        for label, text in found:
            if label.startswith("code:"):
                self.code.append((label[5:], text))
            else:
                self.texts.append(Payload(label, text))


def program_runs(
    name: str,
    args: list[Arg],
    stdin: str | None,
    environment: Mapping[str, str] | None = None,
    settings: Mapping[str, str] | None = None,
) -> Runs:
    """Everything ``name`` runs because of its arguments, its static ``stdin``, the variables it
    reads from its ``environment`` and the ``settings`` made earlier in the same command."""
    runs = Runs()
    if name == "find":
        runs.argvs, runs.unknown = _find_runs(args)
    if name == "git":
        texts, runs.argvs = git_runs(args, environment or {}, settings or {})
        runs.add(texts)
    if is_a(name, "awk"):
        runs.add(_awk(name, args, stdin))
        runs.texts.extend(_awk_pipes(args))
    if is_a(name, "vim"):
        runs.add(_vim(name, args, stdin))
    found = _TEXTS.get(name)
    if found is not None:
        runs.add(found(name, args, stdin))
    if name == "fc" and not any(re.fullmatch(r"-\w*l\w*", a.text) for a in args):
        runs.unknown.append(
            Unknown(
                "payload",
                "'fc' runs commands again from the shell's history, which the guard cannot read; run the commands themselves",
            )
        )
    return runs


def reads_environment(name: str) -> bool:
    """Does the registry read ``name``'s environment to know what it runs (git's ``GIT_CONFIG_*``)?"""
    return name == "git"


def reads_commands(name: str, args: list[Arg]) -> bool:
    """Does ``name ARGS`` run the commands it reads on its standard input (``sqlite3 DB``,
    ``mysql`` without ``-e``, ``psql`` without ``-c``/``-f``, ``ed``)?"""
    if not is_a(name, "stdin_commands"):
        return False
    texts = [a.text for a in args]
    if name in ("ed", "red"):
        return True
    if name == "sqlite3":
        return (
            len(
                [
                    t
                    for k, t in enumerate(texts)
                    if not t.startswith("-") and not (k and texts[k - 1] in ("-cmd", "-init"))
                ]
            )
            <= 1
        )
    return not any(
        t in ("-e", "--execute", "-c", "--command", "-f", "--file")
        or t.startswith(("--execute=", "--command=", "--file="))
        for t in texts
    )


_RUNS_SCRIPTS = frozenset({"run", "run-script", "test", "start", "install", "ci", "i"})
_CONFIG_OPTIONS: dict[str, tuple[str, tuple[str, ...]]] = {
    "ssh": ("ssh config", ("-F",)),
    "scp": ("ssh config", ("-F",)),
    "sftp": ("ssh config", ("-F",)),
    "gdb": ("gdb commands", ("-x", "--command", "-ix")),
}
"""Per program, the options naming a file of its configuration or commands, and what kind it is."""


def config_files(
    name: str, args: list[Arg], environment: Mapping[str, str] | None = None
) -> list[tuple[str, str]]:
    """(path, kind) for each file of configuration or commands ``name ARGS`` reads and runs, when
    the guard can read such a file that the same command wrote, or its standard input (relative
    paths are the cwd's)."""
    if name == "git":
        env = environment or {}
        found = [(f, "git config") for f in included_files(args, env)]
        return found + [
            (env[v], "git config")
            for v in ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG")
            if v in env
        ]
    if name in ("make", "gmake"):
        named = [f for f in parse_as("make", args).values("-f", "--file", "--makefile") if f != "-"]
        return [(f, "makefile") for f in named or ("GNUmakefile", "makefile", "Makefile")]
    if name in ("npm", "yarn", "pnpm") and args[:1] and args[0].text in _RUNS_SCRIPTS:
        return [("package.json", "package.json")]
    texts = [a.text for a in args]
    options = _CONFIG_OPTIONS.get(name)
    if options is not None:
        kind, names = options
        return [
            (texts[k + 1], kind)
            for k, t in enumerate(texts[:-1])
            if t in names and texts[k + 1] != "/dev/stdin"
        ]
    if name == "crontab":
        operands = [t for t in texts if not t.startswith("-")]
        return [(operands[0], "crontab")] if operands else []
    return []


def config_commands(kind: str, text: str, args: list[Arg]) -> Found:
    """The shell text in a configuration file's ``text``."""
    if kind == "makefile":
        return makefile_commands(text)
    if kind == "package.json":
        return _package_scripts(text, args)
    if kind == "ssh config":
        return ssh_config_commands(text)
    if kind == "gdb commands":
        return gdb_commands(text)
    if kind == "git config":
        return config_text_commands(text)
    return crontab_lines(text)


def _package_scripts(text: str, args: list[Arg]) -> Found:
    try:
        scripts = json.loads(text).get("scripts", {})
    except (ValueError, AttributeError):
        return [("package.json", UNKNOWN_COMMAND)]
    if not isinstance(scripts, dict):
        return []
    return [(f"npm script {k}", str(v)) for k, v in scripts.items()]
