"""``mcp-top-diff/v1``: what changed between two snapshots.

Snapshots are read through their one type (``snapshot.Snapshot.read``: strict, every problem one
``DiffInputError`` naming the file and the field). When the two windows differ in size, age or
project scope (or both are project-filtered), usage and recorded-result deltas are marked
incomparable instead of pretending the populations match.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from wslmcp.boundaries.client_files import ClientFiles
from wslmcp.profile.snapshot import Cli, Server, Snapshot, SnapshotError, Tokens, Window

SCHEMA = "mcp-top-diff/v1"
INCOMPARABLE_REASON = "population/scope differs"


class DiffInputError(Exception):
    """A snapshot file that cannot be diffed; the message is user-facing."""


def load(files: ClientFiles, path: str) -> Snapshot:
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
    try:
        return Snapshot.read(payload)
    except SnapshotError as err:
        raise DiffInputError(f"{path}: {err}") from None


def diff(old: Snapshot, new: Snapshot) -> dict[str, Any]:
    old_clis = {c.cli: c for c in old.clis}
    new_clis = {c.cli: c for c in new.clis}
    return {
        "schema": SCHEMA,
        "old_generated_at": old.generated_at,
        "new_generated_at": new.generated_at,
        "clis": [
            _cli(name, old_clis.get(name), new_clis.get(name))
            for name in sorted(set(old_clis) | set(new_clis))
        ],
    }


def _cli(name: str, old: Cli | None, new: Cli | None) -> dict[str, Any]:
    old_servers = {s.server: s for s in (old.servers if old else ())}
    new_servers = {s.server: s for s in (new.servers if new else ())}
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
        old_w, new_w = _settings(old.window), _settings(new.window)
        if old_w != new_w:
            window = {"old": old_w, "new": new_w}
        considered = _int_delta(old.window.sessions_considered, new.window.sessions_considered)
    return {
        "cli": name,
        "added": sorted(set(new_servers) - set(old_servers)),
        "removed": sorted(set(old_servers) - set(new_servers)),
        "window": window,
        "sessions_considered": considered,
        "changed": changed,
        "unchanged": unchanged,
    }


def _settings(window: Window) -> dict[str, Any]:
    return {
        "sessions": window.sessions,
        "days": window.days,
        "project_filter_active": window.project_filter_active,
    }


def _population_differs(old: Cli | None, new: Cli | None) -> bool:
    if old is None or new is None:
        return False
    a, b = old.window, new.window
    if a.sessions != b.sessions or a.days != b.days:
        return True
    if a.project_filter_active != b.project_filter_active:
        return True
    return a.project_filter_active and b.project_filter_active


def _footprint_total(server: Server) -> Tokens | None:
    fp = server.recorded_result_footprint
    return None if fp is None else fp.total_tokens


def _server(name: str, old: Server, new: Server, incomparable: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"server": name}
    for key in ("advertised_max_tokens", "upfront_floor_tokens"):
        delta = _token_delta(getattr(old, key), getattr(new, key))
        if delta is not None:
            out[key] = delta
    calls = _incomparable(old.calls, new.calls) if incomparable else _int_delta(old.calls, new.calls)
    if calls is not None:
        out["calls"] = calls
    old_fp, new_fp = _footprint_total(old), _footprint_total(new)
    if incomparable:
        footprint = _incomparable(_token_json(old_fp), _token_json(new_fp))
    else:
        footprint = _token_delta(old_fp, new_fp)
    if footprint is not None:
        out["recorded_result_total_tokens"] = footprint
    for key in ("loading_regime", "verdict"):
        if getattr(old, key) != getattr(new, key):
            out[key] = {"old": getattr(old, key), "new": getattr(new, key)}
    return out


def _token_json(token: Tokens | None) -> dict[str, Any] | None:
    return None if token is None else {"value": token.value, "exact": token.exact}


def _token_delta(old: Tokens | None, new: Tokens | None) -> dict[str, Any] | None:
    if old == new:
        return None
    delta = None if old is None or new is None else new.value - old.value
    return {
        "old": _token_json(old),
        "new": _token_json(new),
        "delta": delta,
        "estimated": (old is not None and not old.exact) or (new is not None and not new.exact),
    }


def _incomparable(old: Any, new: Any) -> dict[str, Any] | None:
    if old == new:
        return None
    return {"old": old, "new": new, "incomparable": True, "reason": INCOMPARABLE_REASON}


def _int_delta(old: Any, new: Any) -> dict[str, Any] | None:
    if old == new:
        return None
    delta = new - old if isinstance(old, int) and isinstance(new, int) else None
    return {"old": old, "new": new, "delta": delta}


def render(doc: dict[str, Any], totals: tuple[Mapping[str, int], Mapping[str, int]] | None = None) -> str:
    """The diff for people; ``totals`` (each client's advertised tokens in the old and the new
    snapshot, ``gates.advertised_totals``) adds how much the definitions grew."""
    lines = [
        "Snapshot diff",
        f"old generated_at: {_ascii(str(doc.get('old_generated_at')))}",
        f"new generated_at: {_ascii(str(doc.get('new_generated_at')))}",
    ]
    for cli in doc["clis"]:
        lines.append("")
        lines.append(f"=== {_ascii(cli['cli'])} ===")
        if totals is not None:
            lines.append(
                f"  advertised tokens: {_growth(totals[0].get(cli['cli'], 0), totals[1].get(cli['cli'], 0))}"
            )
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


def _growth(old: int, new: int) -> str:
    """``~1,200 -> ~1,500 (+300, +25.0%)``: chars/4 estimates, as mcp-top counts them."""
    change = f"{_signed(new - old)}" + (f", {_signed_percent((new - old) * 100 / old)}" if old else "")
    return f"~{old:,} -> ~{new:,} ({change})"


def _signed_percent(value: float) -> str:
    return f"+{value:.1f}%" if value >= 0 else f"{value:.1f}%"


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
