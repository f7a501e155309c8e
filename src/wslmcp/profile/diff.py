"""``mcp-top-diff/v1``: what changed between two snapshots.

Loading is strict (exact key sets, real ints and bools, minimums, no duplicate names) and every
problem is one ``DiffInputError`` naming the file and the field. When the two windows differ in
size, age or project scope (or both are project-filtered), usage and recorded-result deltas are
marked incomparable instead of pretending the populations match.
"""

from __future__ import annotations

import json
from typing import Any

from wslmcp.boundaries.client_files import ClientFiles
from wslmcp.profile.snapshot import SCHEMA as SNAPSHOT_SCHEMA

SCHEMA = "mcp-top-diff/v1"
INCOMPARABLE_REASON = "population/scope differs"

_TOP = {"schema", "generated_at", "identifiers_redacted", "clis"}
_CLI = {"cli", "window", "recorded_results", "servers"}
_WINDOW = {"sessions", "days", "sessions_considered", "project_filter_active"}
_RECORDED_ORDER = (
    "servers_queried_ok",
    "servers_unsupported",
    "paired",
    "partial",
    "unsupported",
    "unmeasurable",
    "unpaired_results",
    "unpaired_calls",
)
_RECORDED = set(_RECORDED_ORDER)
_SERVER = {
    "server",
    "scope",
    "transport",
    "loading_regime",
    "advertised_max_tokens",
    "upfront_floor_tokens",
    "tool_count",
    "calls",
    "usage_status",
    "verdict",
    "called_tools",
    "recorded_result_footprint",
}
_TOKEN = {"value", "exact"}
_FOOTPRINT = {
    "results",
    "total_bytes",
    "total_tokens",
    "max_tokens",
    "p50_tokens",
    "p90_tokens",
    "lower_bound",
    "basis",
    "token_estimate",
}


class DiffInputError(Exception):
    """A snapshot file that cannot be diffed; the message is user-facing."""


def load(files: ClientFiles, path: str) -> dict[str, Any]:
    try:
        raw = files.read_bytes(path)
    except FileNotFoundError:
        raise DiffInputError(f"{path}: file not found") from None
    except OSError as err:
        raise DiffInputError(f"{path}: {err.strerror or err}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise DiffInputError(f"{path}: invalid UTF-8") from None
    try:
        payload = json.loads(text)
    except (ValueError, RecursionError):
        raise DiffInputError(f"{path}: invalid JSON") from None
    if not isinstance(payload, dict):
        raise DiffInputError(f"{path}: snapshot must be a JSON object")
    _Validator(path).snapshot(payload)
    return payload


class _Validator:
    def __init__(self, path: str) -> None:
        self.path = path

    def fail(self, field: str, reason: str) -> None:
        raise DiffInputError(f"{self.path}: {field} {reason}")

    def keys(self, value: Any, field: str, expected: set[str]) -> None:
        if not isinstance(value, dict):
            self.fail(field, "must be an object")
        missing = sorted(expected - set(value))
        if missing:
            self.fail(f"{field}.{missing[0]}", "is required")
        extra = sorted(set(value) - expected)
        if extra:
            self.fail(f"{field}.{extra[0]}", "is not allowed")

    def string(self, value: Any, field: str) -> None:
        if not isinstance(value, str):
            self.fail(field, "must be a string")

    def boolean(self, value: Any, field: str) -> None:
        if type(value) is not bool:
            self.fail(field, "must be a boolean")

    def integer(self, value: Any, field: str, minimum: int, nullable: bool = False) -> None:
        if nullable and value is None:
            return
        if type(value) is not int:
            self.fail(field, "must be an integer")
        if value < minimum:
            self.fail(field, "is out of range")

    def token(self, value: Any, field: str) -> None:
        if value is None:
            return
        self.keys(value, field, _TOKEN)
        self.integer(value["value"], f"{field}.value", 0)
        self.boolean(value["exact"], f"{field}.exact")

    def snapshot(self, payload: dict[str, Any]) -> None:
        if payload.get("schema") != SNAPSHOT_SCHEMA:
            raise DiffInputError(f"{self.path}: schema must be {SNAPSHOT_SCHEMA}")
        self.keys(payload, "snapshot", _TOP)
        self.string(payload["generated_at"], "generated_at")
        if payload["generated_at"] == "":
            self.fail("generated_at", "must be nonempty")
        self.boolean(payload["identifiers_redacted"], "identifiers_redacted")
        clis = payload["clis"]
        if not isinstance(clis, list):
            self.fail("clis", "must be a list")
        for index, cli in enumerate(clis):
            self.cli(cli, f"clis[{index}]")
        names = [c["cli"] for c in clis]
        if len(set(names)) != len(names):
            self.fail("clis", "has duplicate cli name")

    def cli(self, value: Any, field: str) -> None:
        self.keys(value, field, _CLI)
        self.string(value["cli"], f"{field}.cli")
        window = value["window"]
        self.keys(window, f"{field}.window", _WINDOW)
        self.integer(window["sessions"], f"{field}.window.sessions", 1)
        self.integer(window["days"], f"{field}.window.days", 1)
        self.integer(window["sessions_considered"], f"{field}.window.sessions_considered", 0, nullable=True)
        self.boolean(window["project_filter_active"], f"{field}.window.project_filter_active")
        recorded = value["recorded_results"]
        if recorded is not None:
            self.keys(recorded, f"{field}.recorded_results", _RECORDED)
            for key in _RECORDED_ORDER:
                self.integer(recorded[key], f"{field}.recorded_results.{key}", 0)
        servers = value["servers"]
        if not isinstance(servers, list):
            self.fail(f"{field}.servers", "must be a list")
        for index, server in enumerate(servers):
            self.server(server, f"{field}.servers[{index}]")
        names = [s["server"] for s in servers]
        if len(set(names)) != len(names):
            self.fail(f"{field}.servers", "has duplicate server name")

    def server(self, value: Any, field: str) -> None:
        self.keys(value, field, _SERVER)
        for key in ("server", "scope", "transport", "loading_regime"):
            self.string(value[key], f"{field}.{key}")
        self.token(value["advertised_max_tokens"], f"{field}.advertised_max_tokens")
        self.token(value["upfront_floor_tokens"], f"{field}.upfront_floor_tokens")
        self.integer(value["tool_count"], f"{field}.tool_count", 0, nullable=True)
        self.integer(value["calls"], f"{field}.calls", 0, nullable=True)
        self.string(value["usage_status"], f"{field}.usage_status")
        self.string(value["verdict"], f"{field}.verdict")
        tools = value["called_tools"]
        if not isinstance(tools, dict):
            self.fail(f"{field}.called_tools", "must be an object")
        for count in tools.values():
            self.integer(count, f"{field}.called_tools.*", 0)
        fp = value["recorded_result_footprint"]
        if fp is None:
            return
        where = f"{field}.recorded_result_footprint"
        self.keys(fp, where, _FOOTPRINT)
        for key in ("total_tokens", "max_tokens", "p50_tokens", "p90_tokens"):
            self.token(fp[key], f"{where}.{key}")
        if any(fp[key] is None for key in ("total_tokens", "max_tokens", "p50_tokens", "p90_tokens")):
            self.fail(where, "token fields must be objects")
        self.integer(fp["results"], f"{where}.results", 0)
        self.integer(fp["total_bytes"], f"{where}.total_bytes", 0)
        self.boolean(fp["lower_bound"], f"{where}.lower_bound")
        self.string(fp["basis"], f"{where}.basis")
        self.string(fp["token_estimate"], f"{where}.token_estimate")


def diff(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    old_clis = {c["cli"]: c for c in old["clis"]}
    new_clis = {c["cli"]: c for c in new["clis"]}
    return {
        "schema": SCHEMA,
        "old_generated_at": old["generated_at"],
        "new_generated_at": new["generated_at"],
        "clis": [
            _cli(name, old_clis.get(name), new_clis.get(name))
            for name in sorted(set(old_clis) | set(new_clis))
        ],
    }


def _cli(name: str, old: dict[str, Any] | None, new: dict[str, Any] | None) -> dict[str, Any]:
    old_servers = {s["server"]: s for s in (old or {}).get("servers", [])}
    new_servers = {s["server"]: s for s in (new or {}).get("servers", [])}
    incomparable = _population_differs(old, new)
    changed = []
    unchanged = 0
    for server in sorted(set(old_servers) & set(new_servers)):
        delta = _server(server, old_servers[server], new_servers[server], incomparable)
        if len(delta) == 1:
            unchanged += 1
        else:
            changed.append(delta)
    window = None
    considered = None
    if old is not None and new is not None:
        old_w, new_w = _settings(old["window"]), _settings(new["window"])
        if old_w != new_w:
            window = {"old": old_w, "new": new_w}
        considered = _int_delta(old["window"]["sessions_considered"], new["window"]["sessions_considered"])
    return {
        "cli": name,
        "added": sorted(set(new_servers) - set(old_servers)),
        "removed": sorted(set(old_servers) - set(new_servers)),
        "window": window,
        "sessions_considered": considered,
        "changed": changed,
        "unchanged": unchanged,
    }


def _settings(window: dict[str, Any]) -> dict[str, Any]:
    return {
        "sessions": window["sessions"],
        "days": window["days"],
        "project_filter_active": window["project_filter_active"],
    }


def _population_differs(old: dict[str, Any] | None, new: dict[str, Any] | None) -> bool:
    if old is None or new is None:
        return False
    a, b = old["window"], new["window"]
    if a["sessions"] != b["sessions"] or a["days"] != b["days"]:
        return True
    if a["project_filter_active"] != b["project_filter_active"]:
        return True
    return bool(a["project_filter_active"] and b["project_filter_active"])


def _footprint_total(server: dict[str, Any]) -> dict[str, Any] | None:
    fp = server["recorded_result_footprint"]
    return None if fp is None else dict(fp["total_tokens"])


def _server(name: str, old: dict[str, Any], new: dict[str, Any], incomparable: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"server": name}
    for key in ("advertised_max_tokens", "upfront_floor_tokens"):
        delta = _token_delta(old[key], new[key])
        if delta is not None:
            out[key] = delta
    calls = (
        _incomparable(old["calls"], new["calls"]) if incomparable else _int_delta(old["calls"], new["calls"])
    )
    if calls is not None:
        out["calls"] = calls
    old_fp, new_fp = _footprint_total(old), _footprint_total(new)
    footprint = _incomparable(old_fp, new_fp) if incomparable else _token_delta(old_fp, new_fp)
    if footprint is not None:
        out["recorded_result_total_tokens"] = footprint
    for key in ("loading_regime", "verdict"):
        if old[key] != new[key]:
            out[key] = {"old": old[key], "new": new[key]}
    return out


def _token_delta(old: dict[str, Any] | None, new: dict[str, Any] | None) -> dict[str, Any] | None:
    if _token_key(old) == _token_key(new):
        return None
    delta = None if old is None or new is None else new["value"] - old["value"]
    return {
        "old": old,
        "new": new,
        "delta": delta,
        "estimated": (old is not None and not old["exact"]) or (new is not None and not new["exact"]),
    }


def _token_key(token: dict[str, Any] | None) -> tuple[int, bool] | None:
    return None if token is None else (token["value"], token["exact"])


def _incomparable(old: Any, new: Any) -> dict[str, Any] | None:
    if old == new:
        return None
    return {"old": old, "new": new, "incomparable": True, "reason": INCOMPARABLE_REASON}


def _int_delta(old: Any, new: Any) -> dict[str, Any] | None:
    if old == new:
        return None
    delta = new - old if isinstance(old, int) and isinstance(new, int) else None
    return {"old": old, "new": new, "delta": delta}


def render(doc: dict[str, Any]) -> str:
    lines = [
        "Snapshot diff",
        f"old generated_at: {_ascii(str(doc.get('old_generated_at')))}",
        f"new generated_at: {_ascii(str(doc.get('new_generated_at')))}",
    ]
    for cli in doc["clis"]:
        lines.append("")
        lines.append(f"=== {_ascii(cli['cli'])} ===")
        if cli["added"]:
            lines.append("  added: " + ", ".join(map(_ascii, cli["added"])))
        if cli["removed"]:
            lines.append("  removed: " + ", ".join(map(_ascii, cli["removed"])))
        if cli.get("window") is not None:
            lines.append(
                f"  window: {_ascii(_window(cli['window']['old']) + ' -> ' + _window(cli['window']['new']))}"
            )
        if cli.get("sessions_considered") is not None:
            lines.append(f"  sessions_considered: {_ascii(_delta(cli['sessions_considered']))}")
        if cli["changed"]:
            lines.append("  changed:")
            for change in cli["changed"]:
                lines.append(f"    - {_ascii(change['server'])}")
                for key, delta in change.items():
                    if key != "server":
                        lines.append(f"      {key}: {_ascii(_delta(delta))}")
        lines.append(f"  unchanged: {cli['unchanged']} server(s)")
    return "\n".join(lines)


def _window(window: dict[str, Any]) -> str:
    scope = "project-filtered" if window["project_filter_active"] else "home-wide"
    return f"{window['sessions']} session(s), {window['days']} day(s), {scope}"


def _delta(delta: dict[str, Any]) -> str:
    old, new = delta.get("old"), delta.get("new")
    if delta.get("incomparable"):
        return f"{_value(old)} -> {_value(new)} ({delta.get('reason', 'incomparable')})"
    if isinstance(old, dict) or isinstance(new, dict):
        suffix = ""
        if delta.get("delta") is not None:
            suffix = f" ({_signed(delta['delta'])}" + (", estimate" if delta.get("estimated") else "") + ")"
        return f"{_token(old)} -> {_token(new)}{suffix}"
    if "delta" in delta and delta.get("delta") is not None:
        return f"{old} -> {new} ({_signed(delta['delta'])})"
    return f"{old} -> {new}"


def _value(value: Any) -> str:
    return _token(value) if isinstance(value, dict) or value is None else str(value)


def _token(token: Any) -> str:
    if token is None:
        return "null"
    if not isinstance(token, dict):
        return str(token)
    return f"{'' if token.get('exact') else '~'}{token.get('value')}"


def _signed(value: int) -> str:
    return f"+{value}" if value >= 0 else str(value)


def _ascii(text: str) -> str:
    return "".join(ch if 32 <= ord(ch) < 127 else "?" for ch in text)
