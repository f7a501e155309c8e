"""What git runs besides itself, and which of its configuration writes plant a command for later.

git runs commands from its configuration (``-c KEY=VALUE``, ``GIT_CONFIG_COUNT``/``KEY_n``/
``VALUE_n``, ``GIT_CONFIG_PARAMETERS``, and settings made earlier in the same command): aliases
(``!cmd`` is shell text; any other alias is git's own words), pagers, editors, ``sshCommand``,
filters, diff and merge drivers, credential helpers, hooks. Some subcommands run a command given
as an option: ``rebase --exec``, ``submodule foreach``, ``bisect run``, ``filter-branch`` filters,
``difftool --extcmd``, ``--upload-pack``/``--receive-pack``, ``grep -O``, ``ext::`` URLs.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping

from wslmcp.shell.guard.registry.options import parse, parse_as
from wslmcp.shell.guard.values import UNKNOWN, Arg

# Configuration whose value git runs (or reads code or configuration from) later, as globs over the
# lowercased key (``*``: a subsection, dots included), from git's own list (``git help --config``).
# Shared with the sandbox, which undoes such a setting a command added (``shell.sandbox_launcher``).
COMMAND_SETTINGS: tuple[str, ...] = (
    *(f"core.{k}" for k in ["pager", "editor", "sshcommand", "fsmonitor", "askpass", "hookspath", "gitproxy", "alternaterefscommand"]),
    "sequence.editor", "diff.external", "interactive.difffilter", "pager.*",
    "gpg.program", "gpg.*.program", "gpg.ssh.defaultkeycommand", "credential.helper", "credential.*.helper",
    "diff.*.command", "diff.*.textconv", "merge.*.driver", "filter.*.clean", "filter.*.smudge", "filter.*.process",
    *(f"{tool}.*.{k}" for tool in ("difftool", "mergetool", "browser", "man") for k in ("cmd", "path")),
    "man.viewer", "help.browser", "web.browser", "instaweb.httpd", "guitool.*.cmd",
    "tar.*.command", "trailer.*.command", "trailer.*.cmd", "hook.*.command",
    "uploadpack.packobjectshook", "remote.*.uploadpack", "remote.*.receivepack", "remote.*.proxy", "remote.*.vcs",
    "protocol.allow", "protocol.ext.allow",
    "sendemail.smtpserver", "sendemail.sendmailcmd", "sendemail.tocmd", "sendemail.cccmd", "sendemail.headercmd",
    "init.templatedir", "include.path", "includeif.*.path",
)  # fmt: skip
# Settings that run their value only when it is shell text (``!cmd``).
COMMAND_WHEN_BANG: tuple[str, ...] = ("alias.*", "submodule.*.update")

COMMAND_KEYS = re.compile(
    "|".join(re.escape(g).replace(r"\*", ".+") for g in COMMAND_SETTINGS), re.IGNORECASE
)
"""Configuration whose value git runs (or reads code from) later; an alias counts when it is shell
text (``!cmd``)."""
_BANG_KEYS = re.compile("|".join(re.escape(g).replace(r"\*", ".+") for g in COMMAND_WHEN_BANG), re.IGNORECASE)


def runs_setting(key: str, value: str) -> bool:
    """Does git run (or read code from) this configuration entry's value?"""
    return bool(COMMAND_KEYS.fullmatch(key)) or (bool(_BANG_KEYS.fullmatch(key)) and value.startswith("!"))


_SUBCOMMAND_VALUES = "mFcCbBeoSuxO"


def _pairs(text: str) -> list[tuple[str, str]]:
    """``GIT_CONFIG_PARAMETERS``: ``'key'='value'`` pairs, separated by blanks."""
    return [(k, v) for k, v in re.findall(r"'([^']*)'='([^']*)'", text)]


def environment_settings(environment: Mapping[str, str]) -> list[tuple[str, str]]:
    """The configuration git reads from its environment."""
    found = _pairs(environment.get("GIT_CONFIG_PARAMETERS", ""))
    count = environment.get("GIT_CONFIG_COUNT", "")
    if count.isdigit():
        for n in range(min(int(count), 64)):
            key = environment.get(f"GIT_CONFIG_KEY_{n}")
            if key is not None:
                found.append((key, environment.get(f"GIT_CONFIG_VALUE_{n}", UNKNOWN)))
    return found


def settings_of(
    args: list[Arg], environment: Mapping[str, str], earlier: Mapping[str, str]
) -> dict[str, str]:
    """Every configuration entry this git run sees: earlier settings, the environment, ``-c``."""
    found = dict(earlier)
    found.update((k.lower(), v) for k, v in environment_settings(environment))
    p = parse_as("git", args, stop_first=True)
    for value in p.values("-c"):
        key, _, setting = value.partition("=")
        found[key.lower()] = setting
    for value in p.values("--config-env"):
        key, _, variable = value.partition("=")
        if variable in environment:  # otherwise it comes from the environment the server inherited
            found[key.lower()] = environment[variable]
    return found


_FILE_KEYS = re.compile(r"include\.path|includeif\..+\.path", re.IGNORECASE)


def included_files(args: list[Arg], environment: Mapping[str, str]) -> list[str]:
    """Configuration files a git run includes (``-c include.path=…``), read as git configuration."""
    return [v for k, v in settings_of(args, environment, {}).items() if _FILE_KEYS.fullmatch(k)]


def config_text_settings(text: str) -> list[tuple[str, str]]:
    """(key, value) of git configuration text (``[core]`` then ``pager = less``)."""
    found: list[tuple[str, str]] = []
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        header = re.match(r"\[\s*([\w.-]+)(?:\s+\"([^\"]*)\")?\s*\](.*)", line)
        if header:
            section = header.group(1) + (f".{header.group(2)}" if header.group(2) else "")
            line = header.group(3).strip()
        entry = re.match(r"([\w-]+)\s*=\s*(.*)", line)
        if entry and section:
            found.append((f"{section}.{entry.group(1)}".lower(), entry.group(2).strip().strip('"')))
    return found


def config_text_commands(text: str) -> list[tuple[str, str]]:
    """Shell text in git configuration text: command settings and ``!`` aliases."""
    return [
        (f"git config {key}", value.removeprefix("!"))
        for key, value in config_text_settings(text)
        if runs_setting(key, value) and not _FILE_KEYS.fullmatch(key)
    ]


def git_runs(
    args: list[Arg], environment: Mapping[str, str], earlier: Mapping[str, str]
) -> tuple[list[tuple[str, str]], list[tuple[str, list[Arg]]]]:
    """(label, shell text) and (label, argv) for what ``git ARGS`` runs."""
    settings = settings_of(args, environment, earlier)
    texts: list[tuple[str, str]] = []
    for key, value in settings.items():
        if COMMAND_KEYS.fullmatch(key) and not _FILE_KEYS.fullmatch(key) and value:
            texts.append((f"git config {key}", value.lstrip("!")))
    p = parse_as("git", args, stop_first=True)
    if not p.rest:
        return texts, []
    verb, rest = p.rest[0].text, p.rest[1:]
    expansion = _expand_alias(verb, rest, settings)
    if expansion is not None:
        label, text, argv = expansion
        return ([*texts, (label, text)], []) if text is not None else (texts, [(label, argv)])
    texts.extend(_subcommand_texts(verb, rest))
    argvs = (
        [("git bisect run", rest[1:])]
        if verb == "bisect" and rest[:1] and rest[0].text == "run" and rest[1:]
        else []
    )
    return texts, argvs


MAX_ALIASES = 16


def _expand_alias(
    verb: str, rest: list[Arg], settings: Mapping[str, str]
) -> tuple[str, str | None, list[Arg]] | None:
    """What an alias expands to, following aliases of aliases: (label, shell text of a ``!``
    alias, or None and the git command it stands for). None when ``verb`` is no alias."""
    words: list[Arg] = [Arg(verb)]
    label = ""
    for _ in range(MAX_ALIASES):
        alias = settings.get(f"alias.{words[0].text.lower()}")
        if alias is None:
            break
        label = label or f"git alias {verb}"
        if alias.startswith("!"):
            tail = " ".join(shlex.quote(a.text) for a in [*words[1:], *rest])
            return label, f"{alias[1:]} {tail}".strip(), []
        words = [*(Arg(w) for w in _split(alias)), *words[1:]]
        if not words or words[0].text.startswith("-"):
            break  # options first: the command it runs is read as a git command again
    return (label, None, [Arg("git"), *words, *rest]) if label else None


def _split(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:
        return [UNKNOWN]


_FILTERS = ("--tree-filter", "--index-filter", "--msg-filter", "--commit-filter", "--env-filter", "--parent-filter", "--tag-name-filter", "--setup")  # fmt: skip


_PACKS = ("--upload-pack", "--receive-pack", "--exec", "-u")
_OPTION_COMMANDS: dict[str, tuple[str, ...]] = {
    "rebase": ("-x", "--exec"),
    "filter-branch": _FILTERS,
    "difftool": ("-x", "--extcmd"),
    **dict.fromkeys(("fetch", "pull", "clone", "ls-remote", "archive", "fetch-pack", "send-pack"), _PACKS),
    "push": ("--receive-pack", "--exec"),
}
"""Per subcommand, the options whose value git runs as a command."""


def _subcommand_texts(verb: str, rest: list[Arg]) -> list[tuple[str, str]]:
    """Commands a git subcommand runs because of its options (``rebase --exec``, ``submodule
    foreach``, filters, ``difftool -x``, ``grep -O``, ``--upload-pack``) or an ``ext::`` URL."""
    sub = parse(
        rest,
        _SUBCOMMAND_VALUES,
        ("exec", "extcmd", "upload-pack", "receive-pack", *(f[2:] for f in _FILTERS)),
    )
    found: list[tuple[str, str]] = []
    options = _OPTION_COMMANDS.get(verb, ())
    found += [(f"git {verb} {n}", v) for n, v in sub.opts if n in options and v]
    if verb == "submodule" and rest[:1] and rest[0].text == "foreach":
        words = [a.text for a in rest[1:] if a.text not in ("--recursive", "--quiet", "-q")]
        found.append(("git submodule foreach", " ".join(words)))
    elif verb == "grep":
        found += [("git grep -O", a.text[2:]) for a in rest if a.text.startswith("-O") and len(a.text) > 2]
        found += [
            ("git grep -O", a.text.split("=", 1)[1])
            for a in rest
            if a.text.startswith("--open-files-in-pager=")
        ]
    found += [("git ext:: URL", a.text[5:]) for a in rest if a.text.startswith("ext::")]
    return found


def config_writes(args: list[Arg]) -> list[tuple[str, str]]:
    """(key, value) set by ``git config KEY VALUE`` (``git config set KEY VALUE``, ``--add``, a scope)."""
    p = parse_as("git", args, stop_first=True)
    if not p.rest or p.rest[0].text != "config":
        return []
    words = [a.text for a in p.rest[1:]]
    if words[:1] == ["set"]:
        words = words[1:]
    elif any(
        w.startswith("--get") or w in ("-l", "--list", "--unset", "--unset-all", "-e", "--edit")
        for w in words
    ):
        return []
    operands: list[str] = []
    k = 0
    while k < len(words):
        if words[k] in ("--file", "-f", "--blob", "--type"):
            k += 2
            continue
        if not words[k].startswith("-"):
            operands.append(words[k])
        k += 1
    return [(operands[0].lower(), operands[1])] if len(operands) >= 2 else []


def plants_command(args: list[Arg]) -> str | None:
    """Why ``git ARGS`` writes configuration or hooks that run a command later, else None."""
    for key, value in config_writes(args):
        if runs_setting(key, value):
            return f"'git config {key}' stores a command (or a file of configuration) that git runs later"
    p = parse_as("git", args, stop_first=True)
    verb = p.rest[0].text if p.rest else ""
    if verb in ("init", "clone"):
        sub = parse(p.rest[1:], "cbou", ("template", "config", "branch", "origin", "upload-pack"))
        if sub.values("--template"):
            return f"'git {verb} --template' installs hooks that git runs later"
        for value in sub.values("-c", "--config"):
            if runs_setting(*value.partition("=")[::2]):
                return f"'git {verb} --config {value.partition('=')[0]}' stores a command that git runs later"
    return None
