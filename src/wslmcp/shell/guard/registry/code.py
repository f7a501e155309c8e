"""What a one-line Python, Perl, Ruby, Node, PHP or Lua program does: shell commands it hands to a
shell (strings or argument lists), files it deletes or writes (translated to the equivalent ``rm``
and ``>`` so the path rules judge them), and fork bombs.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field

from wslmcp.shell.guard.values import UNKNOWN

UNKNOWN_COMMAND = UNKNOWN
"""A payload text standing for "runs a command only known at run time"."""

_STRING = r"""(?:r|b|u|f)?(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")"""
_SHELL_CALL = re.compile(
    r"(?:os\.system|os\.popen|subprocess\.(?:getoutput|getstatusoutput|run|call|check_call|check_output|Popen)|"
    r"commands\.getoutput|"
    r"\bsystem|\bexecSync|\bexec|\bspawnSync|\bpopen|\bqx|\bshell_exec|\bpassthru|\bproc_open|%x|"
    r"os\.execute|IO\.popen|Open3\.\w+|Kernel\.(?:system|exec|spawn)|\bspawn|\bexecFileSync|\bexecFile|\bpcntl_exec)"
    r"\s*\(?\s*" + _STRING
)
# Perl's piped open: ``open(F, "|cmd")``, ``open(F, "cmd |")``, ``open my $f, "-|", "cmd"``.
_PIPE_OPEN = re.compile(
    r"\bopen\s*\(?\s*(?:my\s+)?[$\w]+\s*,\s*(?:['\"](?:-\||\|-)['\"]\s*,\s*" + _STRING + r"|"
    r"['\"]\s*\|\s*([^'\"]+)['\"]|['\"]([^'\"|<>]+?)\s*\|\s*['\"])"
)
# Names a program binds to a module or a function (``import subprocess as sp``, ``from os import
# system as s``): read back as the module's own names, so the calls above see through them.
_IMPORT_AS = re.compile(r"\bimport\s+([\w.]+)\s+as\s+(\w+)")
_FROM_IMPORT = re.compile(r"\bfrom\s+([\w.]+)\s+import\s+\(?([\w\s,]+)")
_LIST_CALL = re.compile(
    r"(?:subprocess\.(?:run|call|check_call|check_output|Popen)|os\.exec\w*|os\.spawn\w*|os\.posix_spawnp?|"
    r"\bexecFileSync|\bexecFile|\bspawnSync|\bspawn|\bsystem|\bexec|pcntl_exec)\s*\(\s*(?:os\.P_\w+\s*,\s*)?"
    r"(\[[^\]]*\]|(?:" + _STRING + r"\s*,\s*)+\[?[^)\]]*\]?)"
)
_BARE_LIST_CALL = re.compile(r"\b(?:system|exec|spawn)\s+((?:" + _STRING + r"\s*,\s*)+" + _STRING + r")")
_PERCENT_X = re.compile(r"%x\s*(?:\(([^)]*)\)|\{([^}]*)\}|\[([^\]]*)\]|\|([^|]*)\|)")
_QUOTED = re.compile(_STRING)
_DELETE = re.compile(
    r"(?:shutil\.rmtree|os\.(?:remove|unlink|rmdir|removedirs)|FileUtils\.(?:rm_rf|rm_r|rm|remove_dir|rmtree)|"
    r"File\.delete|Dir\.delete|\b(?:rmSync|rmdirSync|unlinkSync)|fs\.(?:rm|rmdir|unlink)|\brmtree|\bunlink|\brmdir)"
    r"\s*\(?\s*" + _STRING
)
_PATH_DELETE = re.compile(r"Path\(\s*" + _STRING + r"\s*\)\s*\.\s*(?:unlink|rmdir)")
_WRITE = re.compile(
    r"(?:\bopen\s*\(\s*" + _STRING + r"\s*,\s*['\"](?:w|a|x|r\+|wb|ab)|"
    r"\b(?:writeFileSync|appendFileSync|writeFile|appendFile|createWriteStream)\s*\(\s*" + _STRING + r"|"
    r"File\.write\s*\(\s*" + _STRING + r"|file_put_contents\s*\(\s*" + _STRING + r"|"
    r"Path\(\s*" + _STRING + r"\s*\)\s*\.\s*write_(?:text|bytes)|"
    r"\bopen\s*\(?\s*\w+\s*,\s*['\"]>>?['\"]\s*,\s*" + _STRING + r"|"
    r"\bopen\s*\(?\s*\w+\s*,\s*['\"]>>?\s*([^'\"]+)['\"])"
)
# A fork inside a loop that never ends, however the fork is reached (``os.fork()``,
# ``__import__("os").fork()``, a bare ``fork``) and whichever way round the loop is written.
_ENDLESS_ITERATOR = r"\bfor\s+\w+\s+in\s+(?:iter\s*\(|(?:itertools\s*\.\s*)?(?:count|cycle|repeat)\s*\()"
_ENDLESS_LOOP = (
    r"(?:\bwhile\s*\(?\s*(?:True|1|true|!0)\s*\)?\s*(?::|\bdo\b|\{)?|\bloop\s*(?:do|\{)|"
    r"\bfor\s*\(\s*;\s*;\s*\)|" + _ENDLESS_ITERATOR + ")"
)
_FORK_BOMB = re.compile(
    _ENDLESS_LOOP + r"[\s\S]{0,120}?\b(?:pcntl_)?fork\b|"
    r"\bfork\b[^\n]{0,80}?" + _ENDLESS_ITERATOR + r"|\bfork\s*(?:\(\s*\))?\s*(?:while|until)\b"
)
_DYNAMIC_CALL = re.compile(
    r"(?:os\.system|subprocess\.\w+|os\.exec\w*|os\.spawn\w*|\bsystem|\bexec(?:Sync)?|\bspawn(?:Sync)?|"
    r"\bpassthru|\bshell_exec|\bpopen)\s*\(\s*(?![\s'\"\[\]]|r['\"]|b['\"])"
)


@dataclass
class Code:
    """What an inline program does, as shell text the engine screens with the same rules."""

    commands: list[str] = field(default_factory=list)
    writes: list[str] = field(default_factory=list)
    danger: str | None = None
    rule: str = "catastrophe.fork_bomb"


def _formatted(call: str) -> bool:
    """Is the string literal of ``call`` an f-string with a replacement field?"""
    return bool(re.search(r"\bf['\"][^'\"]*\{", call))


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def _literal(m: re.Match[str], first: int = 1) -> str | None:
    groups = [g for g in m.groups()[first - 1 :] if g is not None]
    return _unescape(groups[0]) if groups else None


def _dealiased(program: str) -> str:
    """``program`` with the names it imported under another name spelt as their module's."""
    renames: dict[str, str] = {}
    for m in _IMPORT_AS.finditer(program):
        renames[m.group(2)] = m.group(1)
    for m in _FROM_IMPORT.finditer(program):
        for item in m.group(2).split(","):
            name, _, alias = item.strip().partition(" as ")
            if name.strip().isidentifier():
                renames[(alias or name).strip()] = f"{m.group(1)}.{name.strip()}"
    for alias, full in renames.items():
        if alias.isidentifier() and alias != full:
            program = re.sub(rf"(?<![\w.]){re.escape(alias)}\b(?!\s*(?:as\b|,|\)|$))", full, program)
    return program


def code_effects(program: str) -> Code:
    """Shell commands, deletions and writes of a one-line program (see the module docstring)."""
    out = Code()
    if not program:
        return out
    program = _dealiased(program)
    if _FORK_BOMB.search(program):
        out.danger = "forks copies of itself without end (a fork bomb)"
        return out
    out.commands.extend(_argument_lists(program))
    out.commands.extend(_shell_strings(program, out.commands))
    if _DYNAMIC_CALL.search(program) and not out.commands:
        out.commands.append(UNKNOWN_COMMAND)
    for pattern in (_DELETE, _PATH_DELETE):
        for m in pattern.finditer(program):
            path = _literal(m)
            if path:
                out.commands.append(f"rm -rf -- {shlex.quote(path)}")
    for m in _WRITE.finditer(program):
        path = _literal(m)
        if path:
            out.writes.append(path.strip())
    return out


def _argument_lists(program: str) -> list[str]:
    """Argument lists handed to a program (``subprocess.run([...])``, ``system "rm", "-rf"``), as shell text."""
    found: list[str] = []
    for m in _LIST_CALL.finditer(program):
        words = [_unescape(a or b) for a, b in _QUOTED.findall(m.group(1))]
        if words:
            found.append(" ".join(shlex.quote(w) for w in words))
    for m in _BARE_LIST_CALL.finditer(program):
        words = [_unescape(a or b) for a, b in _QUOTED.findall(m.group(1))]
        found.append(" ".join(shlex.quote(w) for w in words))
    found.extend(next(g for g in m.groups() if g is not None) for m in _PERCENT_X.finditer(program))
    return found


def _shell_strings(program: str, already: list[str]) -> list[str]:
    """Strings handed to a shell (``os.system("…")``, backticks, piped ``open``, ``qx{}``); a string
    built at run time (``'r' + 'm'``, ``%``, f-strings, ``.format``) as unknown."""
    found: list[str] = []
    for m in _SHELL_CALL.finditer(program):
        text = _literal(m)
        after = program[m.end() :].lstrip()[:1]
        if text is not None and (after not in ("", ")", ",", ";", "\n") or _formatted(m.group(0))):
            found.append(UNKNOWN_COMMAND)
        elif text is not None and not any(text == shlex.split(c)[0] for c in [*already, *found] if c):
            found.append(text)
    found.extend(m.group(1) for m in re.finditer(r"`([^`]+)`", program))
    found.extend(
        _unescape(next(g for g in m.groups() if g is not None)) for m in _PIPE_OPEN.finditer(program)
    )
    found.extend(m.group(1) for m in re.finditer(r"\bqx\s*[{(\[]([^})\]]+)[})\]]", program))
    return found
