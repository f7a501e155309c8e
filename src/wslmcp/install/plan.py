"""Which client files an install touches, and what each would hold afterwards.

``targets`` picks the files: for each client asked for (default: every client found), on each side
whose home is known, the configuration files the client keeps there (the client table). ``plan``
reads one file through the ``ConfigFiles`` boundary and works out its new text, entry by entry; a
file that cannot be edited as a whole (unreadable, malformed, an entry of our name that is not ours,
no way to start wslmcp from that side) is refused and will be left untouched. Nothing here writes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from wslmcp.boundaries.config_files import ConfigFiles
from wslmcp.clients import CLIENTS, Client, ConfigFile, Scope, Side, client, under
from wslmcp.install import json_edit, toml_edit
from wslmcp.install.entries import Installed, Launch, Unreachable, entry, is_ours, launch
from wslmcp.install.json_edit import Malformed

Action = Literal["added", "updated", "unchanged", "removed", "absent"]


@dataclass(frozen=True)
class Home:
    side: Side
    path: str


@dataclass(frozen=True)
class Target:
    client: Client
    config: ConfigFile
    side: Side
    path: str


@dataclass(frozen=True)
class EntryPlan:
    name: str
    server: str
    action: Action
    entry: Mapping[str, Any] | None = None  # what the file holds for it afterwards


@dataclass(frozen=True)
class FilePlan:
    target: Target
    before: bytes | None = None
    after: bytes | None = None
    entries: tuple[EntryPlan, ...] = ()
    refused: str | None = None  # why the file is left untouched
    fix: str | None = None

    @property
    def changes(self) -> bool:
        return self.refused is None and self.after != self.before


@dataclass(frozen=True)
class Request:
    """One install (or ``uninstall``): ``clients`` by name (empty: every client found), ``servers``,
    the entries' name ``prefix``, the ``scope`` (project scope: files under ``project``), the homes
    (this side's first) and the shell's ``WSL_*`` variables."""

    homes: tuple[Home, ...]
    project: str
    clients: tuple[str, ...] = ()
    servers: tuple[str, ...] = ("observe", "shell")
    prefix: str = "wsl-"
    scope: Scope = "user"
    uninstall: bool = False
    shell_env: Mapping[str, str] = field(default_factory=dict)


def _found(files: ConfigFiles, base: str, config: ConfigFile) -> bool:
    return files.exists(under(base, config.path)) or files.exists(under(base, config.marker))


def targets(request: Request, files: ConfigFiles) -> tuple[list[Target], list[str]]:
    """The files to edit, and a note for each client asked for by name that has none."""
    named = [client(name) for name in request.clients]
    chosen: Sequence[Client] = named or CLIENTS
    found: list[Target] = []
    notes: list[str] = []
    for known in chosen:
        mine = _targets_of(known, request, files)
        if not mine and known in named and not request.uninstall:
            mine = _made(known, request)
            if not mine:
                notes.append(
                    f"{known.title} keeps no {request.scope}-scope configuration on a side known here"
                )
        found.extend(mine)
    return found, notes


def _targets_of(known: Client, request: Request, files: ConfigFiles) -> list[Target]:
    found = []
    for home in request.homes:
        installed_here = any(_found(files, home.path, c) for c in known.files("user", home.side))
        if request.scope == "project":
            if home is request.homes[0] and installed_here:
                for config in known.files("project", home.side)[:1]:
                    found.append(Target(known, config, home.side, under(request.project, config.path)))
            continue
        for config in known.files("user", home.side):
            if _found(files, home.path, config):
                found.append(Target(known, config, home.side, under(home.path, config.path)))
    if request.uninstall:
        return [t for t in found if files.exists(t.path)]
    return found


def _made(known: Client, request: Request) -> list[Target]:
    """A client asked for by name and found nowhere: its primary file on the first side that has one."""
    for home in request.homes:
        configs = [c for c in known.files(request.scope, home.side) if not c.only_when_found]
        if configs:
            base = request.project if request.scope == "project" else home.path
            return [Target(known, configs[0], home.side, under(base, configs[0].path))]
        if request.scope == "project":
            break
    return []


def _text(data: bytes | None) -> str:
    if data is None:
        return ""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise Malformed(f"not UTF-8 text: {exc}") from None


def _document(config: ConfigFile, text: str) -> Mapping[str, Any]:
    if not text.strip():
        return {}
    if config.format == "toml":
        return toml_edit.check(text)
    return json_edit.check(text, jsonc=config.format == "jsonc")


def _table(config: ConfigFile, document: Mapping[str, Any]) -> Mapping[str, Any]:
    table = document.get(config.table, {})
    if not isinstance(table, Mapping):
        raise Malformed(
            f"its {config.table!r} is not {'a table' if config.format == 'toml' else 'an object'}"
        )
    return table


def _edited(config: ConfigFile, text: str, changes: Mapping[str, Any]) -> str:
    if config.format == "toml":
        return toml_edit.edit(text, config.table, changes)
    return json_edit.edit(text, config.table, changes, jsonc=config.format == "jsonc")


def held(files: ConfigFiles, target: Target) -> Mapping[str, Any]:
    """The server table ``target`` holds now (``OSError``, ``Malformed`` when it cannot be read)."""
    return _table(target.config, _document(target.config, _text(files.read(target.path))))


REFUSED_FIX = {
    "read": "check the file's owner and permissions, then run again",
    "malformed": "the file was left untouched: fix it by hand (or move it away), then run again",
    "taken": "that entry is someone else's: pick other names with --name PREFIX, or rename it by hand",
}


def plan(
    files: ConfigFiles,
    target: Target,
    request: Request,
    installed: Installed,
) -> FilePlan:
    """What ``target`` holds afterwards, or why it is left untouched."""
    empty = FilePlan(target)
    try:
        before = files.read(target.path)
    except OSError as exc:
        return replace(empty, refused=f"cannot be read: {exc}", fix=REFUSED_FIX["read"])
    try:
        text = _text(before)
        table = _table(target.config, _document(target.config, text))
    except Malformed as exc:
        return replace(empty, before=before, refused=f"malformed ({exc})", fix=REFUSED_FIX["malformed"])
    entries: list[EntryPlan] = []
    changes: dict[str, Any] = {}
    for server in request.servers:
        name = request.prefix + server
        current = table.get(name)
        if current is not None and not is_ours(current, server):
            said = f"an entry {name!r} is there and does not run wslmcp {server}"
            return replace(empty, before=before, refused=said, fix=REFUSED_FIX["taken"])
        if request.uninstall:
            entries.append(EntryPlan(name, server, "absent" if current is None else "removed"))
            if current is not None:
                changes[name] = None
            continue
        try:
            wanted = entry(target.config, _launch(installed, target.side, server, request), current)
        except Unreachable as exc:
            return replace(empty, before=before, refused=str(exc), fix="")
        action: Action = "added" if current is None else "unchanged" if current == wanted else "updated"
        entries.append(EntryPlan(name, server, action, wanted))
        if action != "unchanged":
            changes[name] = wanted
    after = before
    if changes:
        try:
            bom = b"\xef\xbb\xbf" if before is not None and before.startswith(b"\xef\xbb\xbf") else b""
            after = bom + _edited(target.config, text, changes).encode("utf-8")
        except Malformed as exc:
            return replace(empty, before=before, refused=f"malformed ({exc})", fix=REFUSED_FIX["malformed"])
    return FilePlan(target, before, after, tuple(entries))


def _launch(installed: Installed, side: Side, server: str, request: Request) -> Launch:
    return launch(installed, side, server, request.shell_env if server == "shell" else {})
