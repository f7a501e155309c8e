"""Looking through wrappers: what command a word list finally runs, and what text it runs as a script.

``resolve(argv, stdin)`` follows sudo, env, timeout, nice, xargs, shells given ``-c`` and the rest
until it reaches the binary that runs. Text run as a script (a ``-c`` payload, ``eval``'s
arguments, ``env -S``, ``watch``'s command, a shell's static stdin) is handed back to be read and
screened like the command itself; argument lists run by another program (``find -exec``,
``xargs``) are handed back to be screened as commands.
"""

from __future__ import annotations

import base64
import binascii
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field

from wslmcp.shell.guard.effects import Payload, Resolved
from wslmcp.shell.guard.registry.options import parse, parse_as
from wslmcp.shell.guard.registry.tables import LAUNCH_VERBS, family, strip_windows_extension
from wslmcp.shell.guard.values import UNKNOWN, Arg, basename


@dataclass
class _Step:
    """One wrapper's verdict: the command it runs next (``argv``), or text it runs (``script``)."""

    argv: list[Arg] | None = None
    script: str | None = None
    positional: list[str] | None = None
    privileged: str | None = None
    cwd: str | None = None
    writes: list[Arg] = field(default_factory=list)
    nested: list[Arg] | None = None
    same_shell: bool = False
    environment: list[tuple[str, str]] = field(default_factory=list)
    also: list[Payload] = field(default_factory=list)  # text the wrapper runs besides its command


Handler = Callable[[str, list[Arg], str | None], _Step | None]


def _last(values: list[str]) -> str | None:
    return values[-1] if values else None


def _joined(args: list[Arg]) -> str:
    return " ".join(a.text for a in args)


SUDO_RUNS_NOTHING = tuple(
    [
        "-l",
        "--list",
        "-v",
        "--validate",
        "-k",
        "-K",
        "--reset-timestamp",
        "--remove-timestamp",
        "-V",
        "--version",
        "-h",
        "--help",
    ]
)


def _sudo(name: str, args: list[Arg], stdin: str | None) -> _Step | None:
    p = parse_as(name, args, stop_first=True)
    cwd = _last(p.values("-D", "--chdir"))
    if p.has("-e", "--edit"):
        return _Step(argv=[Arg("sudoedit"), *p.rest], privileged=name)
    if p.has(*SUDO_RUNS_NOTHING):
        return None
    if p.has("-s", "--shell", "-i", "--login"):
        if p.rest:
            return _Step(script=_joined(p.rest), privileged=name, cwd=cwd)
        if stdin is not None:
            return _Step(script=stdin, privileged=name, cwd=cwd)
        return None
    if not p.rest:
        return None
    rest, environment = _leading_assignments(p.rest)
    return _Step(argv=rest, privileged=name, cwd=cwd, environment=environment) if rest else None


def _leading_assignments(args: list[Arg]) -> tuple[list[Arg], list[tuple[str, str]]]:
    """``NAME=VALUE`` words before a command (``env``, ``sudo``): the command, and what they set."""
    environment: list[tuple[str, str]] = []
    k = 0
    while k < len(args) and re.match(r"[A-Za-z_][A-Za-z0-9_]*(%%)?=", args[k].text):
        var, _, value = args[k].text.partition("=")
        environment.append((var, value))
        k += 1
    return args[k:], environment


def _doas(name: str, args: list[Arg], stdin: str | None) -> _Step | None:
    p = parse_as(name, args, stop_first=True)
    if p.has("-s") and not p.rest:
        return _Step(script=stdin, privileged=name) if stdin is not None else None
    return _Step(argv=p.rest, privileged=name) if p.rest else None


def _pkexec(name: str, args: list[Arg], stdin: str | None) -> _Step | None:
    p = parse_as(name, args, stop_first=True)
    return _Step(argv=p.rest, privileged=name) if p.rest else None


def _su_like(name: str, args: list[Arg], stdin: str | None) -> _Step | None:
    p = parse_as(name, args)
    commands = p.values("-c", "--command", "--session-command")
    if commands:
        return _Step(script=commands[-1], privileged=name)
    if name == "runuser" and p.values("-u", "--user") and p.operands:
        return _Step(argv=p.operands, privileged=name)
    if name == "runuser" and p.values("-u", "--user"):
        return None
    if stdin is not None:
        return _Step(script=stdin, privileged=name)
    return None


def _chroot(name: str, args: list[Arg], stdin: str | None) -> _Step | None:
    p = parse_as(name, args, stop_first=True)
    if not p.rest:
        return None
    command = p.rest[1:]
    if not command:
        return _Step(script=stdin, privileged=name) if stdin is not None else None
    return _Step(argv=command, privileged=name)


def _privileged() -> Handler:
    """A privilege wrapper whose command starts at its first operand."""

    def handler(name: str, args: list[Arg], stdin: str | None) -> _Step | None:
        p = parse_as(name, args, stop_first=True)
        return _Step(argv=p.rest, privileged=name) if p.rest else None

    return handler


def _env(name: str, args: list[Arg], stdin: str | None) -> _Step | None:
    p = parse_as(name, args, stop_first=True)
    cwd = _last(p.values("-C", "--chdir"))
    split = p.values("-S", "--split-string")
    rest, environment = _leading_assignments(list(p.rest))
    if rest and rest[0].text == "-":
        rest.pop(0)
    if split:
        return _Step(script=" ".join([*split, *(a.text for a in rest)]), cwd=cwd, environment=environment)
    return _Step(argv=rest, cwd=cwd, environment=environment) if rest else None


def _plain(numeric: bool = False) -> Handler:
    def handler(name: str, args: list[Arg], stdin: str | None) -> _Step | None:
        p = parse_as(name, args, stop_first=True, numeric_options=numeric)
        return _Step(argv=p.rest) if p.rest else None

    return handler


def _writing_output() -> Handler:
    """A wrapper whose ``-o``/``--output`` names a file it writes; its command follows its options."""

    def handler(name: str, args: list[Arg], stdin: str | None) -> _Step | None:
        p = parse_as(name, args, stop_first=True)
        outputs = p.values("-o", "--output")
        writes = [Arg(v) for v in outputs if v[:1] not in ("|", "!")]
        # strace -o '|cmd' (or '!cmd') pipes its trace into a command
        also = [Payload(f"{name} -o |", v[1:]) for v in outputs if v[:1] in ("|", "!")]
        return _Step(argv=p.rest, writes=writes, also=also) if p.rest else None

    return handler


_time = _writing_output()


def _positional_then_command(count: int) -> Handler:
    def handler(name: str, args: list[Arg], stdin: str | None) -> _Step | None:
        p = parse_as(name, args, stop_first=True)
        if p.has("-p", "--pid", "--all-tasks") and name in ("taskset", "chrt", "renice"):
            return None
        rest = p.rest[count:]
        return _Step(argv=rest) if rest else None

    return handler


def _flock(name: str, args: list[Arg], stdin: str | None) -> _Step | None:
    p = parse_as(name, args, stop_first=True)
    commands = p.values("-c", "--command")
    if commands:
        return _Step(script=commands[-1])
    rest = p.rest[1:]
    if len(rest) >= 2 and rest[0].text in ("-c", "--command"):
        return _Step(script=rest[1].text)
    return _Step(argv=rest) if rest else None


def _watch(name: str, args: list[Arg], stdin: str | None) -> _Step | None:
    p = parse_as(name, args, stop_first=True)
    if not p.rest:
        return None
    rest = p.rest
    if len(rest) > 1 and re.fullmatch(r"\d+(\.\d+)?", rest[0].text):
        rest = rest[1:]
    if p.has("-x", "--exec"):
        return _Step(argv=rest)
    return _Step(script=_joined(rest))


def _xargs(name: str, args: list[Arg], stdin: str | None) -> _Step | None:
    p = parse_as(name, args, stop_first=True)
    command = list(p.rest) or [Arg("echo")]
    if stdin is None or p.has("-a", "--arg-file"):
        return _Step(nested=command)
    replace = _last(p.values("-I", "--replace"))
    if replace is None and (p.has("-i") or p.has("--replace")):
        replace = "{}"
    words = stdin.split("\n") if replace or p.has("-d", "--delimiter", "-0", "--null") else stdin.split()
    words = [w for w in words if w]
    if replace:
        first = words[0] if words else ""
        command = [Arg(a.text.replace(replace, first), a.glob) for a in command]
    else:
        command = command + [Arg(w, bool(re.search(r"[*?\[]", w))) for w in words]
    return _Step(nested=command)


def _trap(name: str, args: list[Arg], stdin: str | None) -> _Step | None:
    """``trap [--] 'command' SIGNAL…`` runs the command later, in this shell, on any signal or
    pseudo-signal (EXIT, ERR, DEBUG, RETURN); ``-p``/``-l`` print, ``-`` resets, ``''`` ignores."""
    rest = args[1:] if args and args[0].text == "--" else args
    if len(rest) < 2 or rest[0].text in ("-", "-p", "-l", "-P"):
        return None
    return _Step(script=rest[0].text, same_shell=True)


def _ip(name: str, args: list[Arg], stdin: str | None) -> _Step | None:
    """``ip netns exec NAME CMD…`` and ``ip vrf exec NAME CMD…`` run CMD."""
    words = [a.text for a in args[:2]]
    if words in (["netns", "exec"], ["vrf", "exec"]) and len(args) > 3:
        return _Step(argv=args[3:])
    return None


_BWRAP_TWO = frozenset(
    [
        "--bind",
        "--bind-try",
        "--ro-bind",
        "--ro-bind-try",
        "--dev-bind",
        "--dev-bind-try",
        "--symlink",
        "--setenv",
        "--file",
        "--bind-data",
        "--ro-bind-data",
        "--chmod",
    ]
)
_BWRAP_ONE = frozenset(
    [
        "--args",
        "--argv0",
        "--userns",
        "--userns2",
        "--pidns",
        "--uid",
        "--gid",
        "--hostname",
        "--chdir",
        "--unsetenv",
        "--lock-file",
        "--sync-fd",
        "--remount-ro",
        "--exec-label",
        "--file-label",
        "--proc",
        "--dev",
        "--tmpfs",
        "--mqueue",
        "--dir",
        "--seccomp",
        "--add-seccomp-fd",
        "--block-fd",
        "--userns-block-fd",
        "--info-fd",
        "--json-status-fd",
        "--cap-add",
        "--cap-drop",
        "--perms",
        "--size",
    ]
)


def _bwrap(name: str, args: list[Arg], stdin: str | None) -> _Step | None:
    """bubblewrap runs the command after its options (some take one value, some two)."""
    k = 0
    while k < len(args) and args[k].text.startswith("--"):
        if args[k].text == "--":
            k += 1
            break
        k += 1 + (2 if args[k].text in _BWRAP_TWO else 1 if args[k].text in _BWRAP_ONE else 0)
    return _Step(argv=args[k:]) if k < len(args) else None


def _expect(name: str, args: list[Arg], stdin: str | None) -> _Step | None:
    """``expect -c 'spawn CMD…'``: the commands it spawns are screened as shell text."""
    p = parse_as(name, args)
    texts = p.values("-c")
    spawned = [m.group(1) for t in texts for m in re.finditer(r"\bspawn\s+(?:-\S+\s+)*([^;\]\n]+)", t)]
    spawned += [m.group(1) for t in texts for m in re.finditer(r"\bexec\s+([^;\]\n]+)", t)]
    return _Step(script="\n".join(spawned)) if spawned else None


def _at(name: str, args: list[Arg], stdin: str | None) -> _Step | None:
    """``at``/``batch`` run their standard input (or ``-f FILE``) later, as a shell script."""
    p = parse_as(name, args)
    if p.has("-l", "-d", "-r", "-c", "-V") or p.values("-f"):
        return None
    return _Step(script=stdin) if stdin is not None else None


def _sg(name: str, args: list[Arg], stdin: str | None) -> _Step | None:
    p = parse_as(name, args, stop_first=True)
    commands = p.values("-c")
    if commands:
        return _Step(script=commands[-1], privileged=name)
    rest = p.rest[1:]
    if len(rest) >= 2 and rest[0].text == "-c":
        return _Step(script=rest[1].text, privileged=name)
    return _Step(script=_joined(rest), privileged=name) if rest else None


def _script(name: str, args: list[Arg], stdin: str | None) -> _Step | None:
    p = parse_as(name, args)
    commands = p.values("-c", "--command")
    return _Step(script=commands[-1]) if commands else None


def _parallel(name: str, args: list[Arg], stdin: str | None) -> _Step | None:
    """GNU parallel runs, through a shell, its command with each input appended (or put in place of
    ``{}``); inputs come after ``:::`` or from stdin, and with no command each input is a command."""
    texts = [a.text for a in args]
    cut = texts.index(":::") if ":::" in texts else len(args)
    p = parse_as(name, args[:cut], stop_first=True)
    command = _joined(p.rest)
    inputs = [a.text for a in args[cut + 1 :] if a.text not in (":::", "::::")]
    if cut == len(args):
        if stdin is None:
            return _Step(nested=p.rest) if p.rest else None
        inputs = [line for line in stdin.split("\n") if line]
    if not inputs:
        return _Step(nested=p.rest) if p.rest else None
    lines = []
    for item in inputs[:MAX_PARALLEL_INPUTS]:
        if not command:
            lines.append(item)
        elif "{}" in command:
            lines.append(command.replace("{}", shlex.quote(item)))
        else:
            lines.append(f"{command} {shlex.quote(item)}")
    return _Step(script="\n".join(lines))


MAX_PARALLEL_INPUTS = 64


def _exec(name: str, args: list[Arg], stdin: str | None) -> _Step | None:
    p = parse_as(name, args, stop_first=True)
    return _Step(argv=p.rest) if p.rest else None


def _command(name: str, args: list[Arg], stdin: str | None) -> _Step | None:
    p = parse(args, stop_first=True)
    if p.has("-v", "-V"):
        return None
    return _Step(argv=p.rest) if p.rest else None


def _eval(name: str, args: list[Arg], stdin: str | None) -> _Step | None:
    return _Step(script=_joined(args), same_shell=True) if args else None


def _launcher(name: str, args: list[Arg], stdin: str | None) -> _Step | None:
    """``poetry run CMD``, ``bundle exec CMD``, ``npm exec -- CMD``, ``direnv exec DIR CMD``,
    ``mise exec -- CMD``, ``nix develop -c CMD``: a tool verb that runs the command after it."""
    verbs = LAUNCH_VERBS.get(name, ())
    if not args or args[0].text not in verbs:
        return None
    p = parse_as(f"{name}+{args[0].text}", args[1:], stop_first=True)
    rest = p.rest
    if name == "direnv" and rest:
        rest = rest[1:]  # the directory whose environment is loaded
    if name == "nix" and args[0].text == "develop":
        commands = p.values("-c", "--command")
        return _Step(argv=[Arg(commands[-1]), *p.rest]) if commands else None
    return _Step(argv=rest) if rest else None


def _hyperfine(name: str, args: list[Arg], stdin: str | None) -> _Step | None:
    """hyperfine runs each operand, and its --prepare/--setup/--cleanup commands, through a shell."""
    p = parse_as(name, args)
    texts = [a.text for a in p.operands] + p.values(
        "-p", "--prepare", "-s", "--setup", "-c", "--cleanup", "--conclude"
    )
    return _Step(script="\n".join(texts)) if texts else None


def _tmux(name: str, args: list[Arg], stdin: str | None) -> _Step | None:
    """``tmux new -d 'CMD'``, ``tmux new-window 'CMD'``, ``tmux send-keys 'CMD' Enter``: shell text."""
    texts = [a.text for a in args]
    commands: list[str] = []
    for k, t in enumerate(texts):
        if t in (
            "new",
            "new-session",
            "new-window",
            "neww",
            "split-window",
            "splitw",
            "respawn-pane",
            "run-shell",
            "run",
        ):
            p = parse_as("tmux+new", args[k + 1 :])
            commands += [" ".join(a.text for a in p.operands)] if p.operands else []
        elif t in ("send-keys", "send"):
            p = parse_as("tmux+send-keys", args[k + 1 :])
            keys = [a.text for a in p.operands if a.text not in ("Enter", "C-m", "KPEnter")]
            commands += [" ".join(keys)] if keys else []
    commands = [c for c in commands if c]
    return _Step(script="\n".join(commands)) if commands else None


def _screen(name: str, args: list[Arg], stdin: str | None) -> _Step | None:
    p = parse_as(name, args, stop_first=True)
    return _Step(argv=p.rest) if p.rest else None


def _nix_shell(name: str, args: list[Arg], stdin: str | None) -> _Step | None:
    p = parse_as(name, args)
    commands = p.values("--run", "--command")
    return _Step(script=commands[-1]) if commands else None


def _gdb(name: str, args: list[Arg], stdin: str | None) -> _Step | None:
    """``gdb -ex 'shell CMD'`` / ``-ex '!CMD'`` run shell text; ``gdb --args PROG…`` runs PROG."""
    texts = [a.text for a in args]
    shells = [
        re.sub(r"^\s*(?:shell|!)\s*", "", texts[k + 1])
        for k, t in enumerate(texts)
        if t in ("-ex", "--ex", "-eval-command", "--eval-command")
        and k + 1 < len(texts)
        and re.match(r"^\s*(?:shell\b|!)", texts[k + 1])
    ]
    if shells:
        return _Step(script="\n".join(shells))
    if "--args" in texts:
        rest = args[texts.index("--args") + 1 :]
        return _Step(argv=rest) if rest else None
    return None


def _first_is_command(name: str, args: list[Arg], stdin: str | None) -> _Step | None:
    if not args or args[0].text.startswith("-"):
        return None
    return _Step(argv=args)


def arg_file_options(name: str) -> tuple[str, ...]:
    """The options naming a file a program reads its arguments from (``xargs -a FILE``)."""
    return ("-a", "--arg-file") if name == "xargs" else ()


def shell_input(args: list[Arg]) -> tuple[str, list[Arg]]:
    """What a shell given ``args`` reads its script from: ``("command", [script, $0, $1…])`` for a
    flag cluster holding ``c``, ``("stdin", [])`` for no operand or ``-s``, else ``("file", [file…])``."""
    i = 0
    command_mode = stdin_mode = False
    while i < len(args):
        text = args[i].text
        if text in ("--", "-"):
            i += 1
            break
        if text.startswith("--"):
            if text in ("--rcfile", "--init-file") and i + 1 < len(args):
                i += 1
            i += 1
            continue
        if re.fullmatch(r"[-+][A-Za-z]+", text):
            letters = text[1:]
            if "c" in letters and text[0] == "-":
                command_mode = True
            if "s" in letters and text[0] == "-":
                stdin_mode = True
            if ("o" in letters or "O" in letters) and i + 1 < len(args):
                i += 1
            i += 1
            continue
        break
    operands = args[i:]
    if command_mode:
        return "command", operands
    if operands and not stdin_mode:
        return "file", operands
    return "stdin", []


def shell_step(name: str, args: list[Arg], stdin: str | None) -> _Step | None:
    """sh/bash/dash/zsh…: a flag cluster holding ``c`` makes the first operand the script;
    no operand (or ``-s``) makes stdin the script; otherwise the shell runs a file."""
    mode, operands = shell_input(args)
    if mode == "command":
        if not operands:
            return None
        positional = [a.text for a in operands[1:]]
        return _Step(script=operands[0].text, positional=positional or [name])
    if mode == "stdin" and stdin is not None:
        return _Step(script=stdin)
    return None


def _busybox(name: str, args: list[Arg], stdin: str | None) -> _Step | None:
    if not args or args[0].text.startswith("-"):
        return None
    return _Step(argv=args)


def _cmd_exe(name: str, args: list[Arg], stdin: str | None) -> _Step | None:
    for k, a in enumerate(args):
        if a.text.lower() in ("/c", "/k", "/r"):
            return _Step(script=_joined(args[k + 1 :]))
    return None


def _powershell(name: str, args: list[Arg], stdin: str | None) -> _Step | None:
    for k, a in enumerate(args):
        flag = a.text.lower()
        if flag in ("-command", "-c", "/c", "-cmd"):
            return _Step(script=_joined(args[k + 1 :]))
        if flag in ("-encodedcommand", "-enc", "-e", "-ec") and k + 1 < len(args):
            try:
                text = base64.b64decode(args[k + 1].text, validate=True).decode("utf-16-le", "replace")
            except (binascii.Error, ValueError):
                return None
            return _Step(script=text)
        if flag in ("-file", "-f"):
            return None
        if not flag.startswith(("-", "/")):
            return _Step(script=_joined(args[k:]))
    return None


def _windows_sudo(name: str, args: list[Arg], stdin: str | None) -> _Step | None:
    """Windows ``sudo.exe [--inline|--new-window|--disable-input|--preserve-env|-E|-N] [-D DIR] CMD…``."""
    i = 0
    while i < len(args) and args[i].text.startswith("-"):
        i += 2 if args[i].text in ("-D", "--chdir") else 1
    rest = args[i:]
    return _Step(argv=rest, privileged=name) if rest else None


def _wsl(name: str, args: list[Arg], stdin: str | None) -> _Step | None:
    i = 0
    privileged: str | None = None
    cwd: str | None = None
    while i < len(args):
        flag = args[i].text
        lowered = flag.lower()
        if lowered in ("-e", "--exec"):
            return _Step(argv=args[i + 1 :], privileged=privileged, cwd=cwd) if i + 1 < len(args) else None
        if flag == "--":
            rest = args[i + 1 :]
            return _Step(script=_joined(rest), privileged=privileged, cwd=cwd) if rest else None
        if lowered in ("-u", "--user") and i + 1 < len(args):
            if args[i + 1].text in ("root", "0"):
                privileged = f"{name} -u root"
            i += 2
            continue
        if lowered == "--cd" and i + 1 < len(args):
            cwd = args[i + 1].text
            i += 2
            continue
        if lowered in ("-d", "--distribution", "--distribution-id", "--system") and i + 1 < len(args):
            i += 2 if lowered != "--system" else 1
            continue
        if flag.startswith("-"):
            return None
        rest = args[i:]
        return _Step(script=_joined(rest), privileged=privileged, cwd=cwd)
    return None


_BY_NAMES: tuple[tuple[str, Handler], ...] = (
    ("sudo", _sudo), ("doas", _doas), ("pkexec", _pkexec), ("su runuser", _su_like), ("chroot", _chroot),
    ("nsenter systemd-run run0 setpriv unshare", _privileged()),
    ("env", _env), ("time strace ltrace", _time),
    ("nohup setsid unbuffer caffeinate firejail proxychains proxychains4 torsocks torify tsocks prlimit cgexec stdbuf ionice numactl ssh-agent systemd-inhibit "
     "fakeroot fakechroot catchsegv valgrind xvfb-run dbus-run-session dbus-launch daemonize chronic rlwrap winpty entr cpulimit chpst", _plain()),
    ("faketime", _positional_then_command(1)),
    ("poetry pipenv uv conda mamba micromamba bundle npm pnpm yarn direnv asdf mise rtx pyenv rbenv nodenv nix", _launcher),
    ("hyperfine", _hyperfine), ("tmux", _tmux), ("screen", _screen), ("nix-shell", _nix_shell), ("gdb", _gdb),
    ("nice", _plain(numeric=True)),
    ("timeout chrt taskset", _positional_then_command(1)),
    ("watch", _watch), ("xargs", _xargs), ("exec", _exec), ("command", _command), ("builtin", _first_is_command),
    ("eval", _eval), ("busybox toybox", _busybox), ("flock", _flock), ("trap", _trap), ("sg", _sg),
    ("script", _script), ("parallel", _parallel), ("expect", _expect), ("at batch", _at),
    ("ip", _ip), ("bwrap", _bwrap),
)  # fmt: skip
WRAPPERS: dict[str, Handler] = {name: handler for names, handler in _BY_NAMES for name in names.split()}

WINDOWS_WRAPPERS: dict[str, Handler] = {
    "cmd": _cmd_exe,
    "powershell": _powershell,
    "pwsh": _powershell,
    "sudo": _windows_sudo,
    "wsl": _wsl,
}
SHELLS = family("shell")
PRIVILEGE_NAMES = family("privilege")

MAX_WRAPPERS = 64


def resolve(argv: list[Arg], stdin: str | None) -> Resolved:
    """Follow wrappers from ``argv`` to the binary that runs."""
    out = Resolved(argv=argv)
    current = argv
    for _ in range(MAX_WRAPPERS):
        if not current:
            break
        name = basename(current[0].text)
        lowered = name.lower()
        handler = WRAPPERS.get(lowered) if lowered == name.lower() and "." not in lowered else None
        if handler is None and lowered in SHELLS:
            handler = shell_step
        if handler is None and strip_windows_extension(lowered) in WINDOWS_WRAPPERS:
            handler = WINDOWS_WRAPPERS[strip_windows_extension(lowered)]
        if handler is None:
            break
        if UNKNOWN in current[0].text:
            break
        step = handler(name, current[1:], stdin)
        if step is None:
            break
        out.wrappers.append(name)
        out.steps.append((name, current[1:]))
        if strip_windows_extension(name) in PRIVILEGE_NAMES:
            out.privileged.append(name)
        if step.privileged and step.privileged != name:
            out.privileged.append(step.privileged)
        if step.cwd is not None:
            out.cwd = step.cwd
        out.writes.extend(step.writes)
        out.environment.extend(step.environment)
        out.payloads.extend(step.also)
        if step.script is not None:
            out.payloads.append(
                Payload(f"{name} payload", step.script, step.positional, same_shell=step.same_shell)
            )
            current = []
            break
        if step.nested is not None:
            out.nested.append((name, step.nested))
            current = []
            break
        current = step.argv or []
        stdin = None if name.lower() in ("xargs",) else stdin
    out.argv = current
    if out.wrappers and not current and not out.payloads and not out.nested:
        out.argv = []
    return out
