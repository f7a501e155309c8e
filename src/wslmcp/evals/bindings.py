"""Handles and ID binding by role (pure).

After a call, its result *registers* handles at paths (``snapshot.snapshot_id``,
``data[i].resource_id``, ``data[i].parent_ids[j]``, ``session``, ``sessions[i]``). An ID argument of a
later call is *bound* to the earliest call that registered its recorded value, and on replay is
rewritten to the value at the same path of that call's replayed result; when that path is absent
there it is sent verbatim and marked ``unresolved``; a value no earlier call produced is ``unbound``
and sent verbatim, so a fabricated or stale ID fails the way it did live. Mixing is reproduced
argument by argument, never repaired.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

OBSERVE_TOOLS = ("get_system_summary", "list_resources", "inspect_resource", "list_children")
#: observe's history tools: no snapshot is selected (the snapshot discipline does not apply), but
#: get_history names the latest snapshot and resource IDs in it
HISTORY_TOOLS = ("get_history", "get_metric_series")
OBSERVE_ID_ARGUMENTS = ("snapshot_id", "resource_id", "parent")
SHELL_ID_ARGUMENTS = ("session",)
_SESSION_OPENED = re.compile(r"^Opened session (\S+)", re.MULTILINE)
_SESSION_LINE = re.compile(r"^(\S+#\d+)\s+→", re.MULTILINE)


def id_arguments(kind: str) -> tuple[str, ...]:
    return OBSERVE_ID_ARGUMENTS if kind == "observe" else SHELL_ID_ARGUMENTS if kind == "shell" else ()


def handles(
    kind: str, tool: str, structured: Mapping[str, Any] | None, text: str
) -> Iterator[tuple[str, str]]:
    """(path, value) of every handle a result registers."""
    if kind == "observe" and structured is not None:
        snapshot = structured.get("snapshot")
        if isinstance(snapshot, dict) and isinstance(snapshot.get("snapshot_id"), str):
            yield "snapshot.snapshot_id", snapshot["snapshot_id"]
        data = structured.get("data")
        if tool in ("list_resources", "list_children") and isinstance(data, list):
            for i, item in enumerate(data):
                yield from _resource(f"data[{i}]", item)
        elif tool == "inspect_resource" and isinstance(data, dict):
            yield from _resource("data", data)
        elif tool == "get_history":
            yield from _history(structured)
    elif kind == "shell":
        if tool == "wsl_connect" and (m := _SESSION_OPENED.search(text)):
            yield "session", m.group(1)
        elif tool == "wsl_list_sessions":
            for i, m in enumerate(_SESSION_LINE.finditer(text)):
                yield f"sessions[{i}]", m.group(1)


def _history(structured: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    if isinstance(structured.get("snapshot_id"), str):
        yield "snapshot_id", structured["snapshot_id"]
    top = structured.get("top")
    for i, item in enumerate(top if isinstance(top, list) else []):
        if isinstance(item, dict) and isinstance(item.get("resource_id"), str):
            yield f"top[{i}].resource_id", item["resource_id"]


def _resource(prefix: str, item: object) -> Iterator[tuple[str, str]]:
    if not isinstance(item, dict):
        return
    if isinstance(item.get("resource_id"), str):
        yield f"{prefix}.resource_id", item["resource_id"]
    parents = item.get("parent_ids")
    if isinstance(parents, list):
        for j, parent in enumerate(parents):
            if isinstance(parent, str):
                yield f"{prefix}.parent_ids[{j}]", parent


@dataclass(frozen=True)
class Origin:
    call: int
    path: str


class HandleTable:
    """Which call first produced each handle value, and at which path (per server alias)."""

    def __init__(self) -> None:
        self._first: dict[tuple[str, str], Origin] = {}
        self._by_call: dict[int, dict[str, str]] = {}

    def register(self, alias: str, n: int, found: Iterator[tuple[str, str]]) -> None:
        paths = self._by_call.setdefault(n, {})
        for path, value in found:
            paths.setdefault(path, value)
            self._first.setdefault((alias, value), Origin(n, path))

    def origin(self, alias: str, value: str, before: int) -> Origin | None:
        origin = self._first.get((alias, value))
        return origin if origin is not None and origin.call < before else None

    def at(self, n: int, path: str) -> str | None:
        return self._by_call.get(n, {}).get(path)


def bind(
    alias: str, kind: str, n: int, arguments: Any, *, recorded: HandleTable, replayed: HandleTable
) -> tuple[Any, list[dict[str, Any]]]:
    """The arguments to send on replay, and one binding report per ID argument."""
    if not isinstance(arguments, dict):
        return arguments, []
    sent = dict(arguments)
    reports: list[dict[str, Any]] = []
    for name in id_arguments(kind):
        value = arguments.get(name)
        if not isinstance(value, str):
            continue
        origin = recorded.origin(alias, value, n)
        if origin is None:
            reports.append(
                {"argument": name, "recorded": value, "origin": None, "replayed": value, "state": "unbound"}
            )
            continue
        new = replayed.at(origin.call, origin.path)
        where = {"call": origin.call, "path": origin.path}
        if new is None:
            reports.append(
                {
                    "argument": name,
                    "recorded": value,
                    "origin": where,
                    "replayed": value,
                    "state": "unresolved",
                }
            )
            continue
        sent[name] = new
        reports.append(
            {"argument": name, "recorded": value, "origin": where, "replayed": new, "state": "bound"}
        )
    return sent, reports
