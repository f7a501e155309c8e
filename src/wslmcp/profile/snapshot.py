"""``mcp-top-snapshot/v1``: a redacted aggregate of a report, safe to commit, as one typed value.

Built from an allowlist: no paths, errors, evidence, recipes, warnings, config values or result
content. Server and called-tool names stay unless ``redact_identifiers`` replaces them with
``srv_``/``tool_`` + the first 12 hex digits of their SHA-256 (unsalted, deterministic).

The types below are the format: ``Snapshot.to_json`` writes it and ``Snapshot.read`` reads it back
(``wslmcp profile diff``), both derived from the same fields. Reading is strict: the exact key set of
every object, real ints and bools, the minimums a field states, no duplicate names; every problem
is one ``SnapshotError`` naming the field.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any

from wslmcp.profile.engine import CliReport, Report
from wslmcp.profile.verdicts import Row

SCHEMA = "mcp-top-snapshot/v1"


class SnapshotError(ValueError):
    """A document that is not a snapshot; the message names the field."""


@dataclass(frozen=True)
class _Min:
    value: int


@dataclass(frozen=True)
class _Unique:
    """No two items of the list share this field."""

    key: str


_NONEMPTY = "nonempty"
Count = Annotated[int, _Min(0)]
Positive = Annotated[int, _Min(1)]


@dataclass(frozen=True)
class Tokens:
    value: Count
    exact: bool


@dataclass(frozen=True)
class Footprint:
    results: Count
    lower_bound: bool
    basis: str
    token_estimate: str
    total_bytes: Count
    total_tokens: Tokens
    max_tokens: Tokens
    p50_tokens: Tokens
    p90_tokens: Tokens


@dataclass(frozen=True)
class Window:
    sessions: Positive
    days: Positive
    sessions_considered: Count | None
    project_filter_active: bool


@dataclass(frozen=True)
class RecordedResults:
    servers_queried_ok: Count
    servers_unsupported: Count
    paired: Count
    partial: Count
    unsupported: Count
    unmeasurable: Count
    unpaired_results: Count
    unpaired_calls: Count


@dataclass(frozen=True)
class Server:
    server: str
    scope: str
    transport: str
    loading_regime: str
    advertised_max_tokens: Tokens | None
    upfront_floor_tokens: Tokens | None
    tool_count: Count | None
    calls: Count | None
    usage_status: str
    verdict: str
    called_tools: dict[str, Count]
    recorded_result_footprint: Footprint | None


@dataclass(frozen=True)
class Cli:
    cli: str
    window: Window
    recorded_results: RecordedResults | None
    servers: Annotated[tuple[Server, ...], _Unique("server")]


@dataclass(frozen=True)
class Snapshot:
    schema: str
    generated_at: Annotated[str, _NONEMPTY]
    identifiers_redacted: bool
    clis: Annotated[tuple[Cli, ...], _Unique("cli")]

    def to_json(self) -> dict[str, Any]:
        value: dict[str, Any] = _write(self)
        return value

    @classmethod
    def read(cls, payload: object) -> Snapshot:
        """``payload`` (parsed JSON) as a snapshot; ``SnapshotError`` names the first bad field."""
        if not isinstance(payload, dict):
            raise SnapshotError("snapshot must be a JSON object")
        if payload.get("schema") != SCHEMA:
            raise SnapshotError(f"schema must be {SCHEMA}")
        snapshot: Snapshot = _read(cls, payload, "")
        return snapshot


def _write(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _write(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple):
        return [_write(v) for v in value]
    if isinstance(value, dict):
        return dict(value)
    return value


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls, include_extras=True)


def _read(cls: type, value: object, path: str) -> Any:
    """An instance of the dataclass ``cls`` from ``value``: exactly its keys, each read by its type."""
    if not isinstance(value, dict):
        raise SnapshotError(f"{path} must be an object")
    hints = _hints(cls)
    owner = path or "snapshot"
    missing = sorted(set(hints) - set(value))
    if missing:
        raise SnapshotError(f"{owner}.{missing[0]} is required")
    extra = sorted(set(value) - set(hints))
    if extra:
        raise SnapshotError(f"{owner}.{extra[0]} is not allowed")
    return cls(
        **{
            name: _value(kind, value[name], f"{path}.{name}" if path else name)
            for name, kind in hints.items()
        }
    )


def _value(kind: Any, value: object, path: str) -> Any:
    """``value`` read as the type ``kind``: ``X | None``, ``Annotated`` (a minimum, non-empty,
    unique names), a tuple of dataclasses, a dict of counts, a dataclass, bool, str or int."""
    rules: tuple[object, ...] = ()
    if typing.get_origin(kind) is Annotated:
        kind, *extras = typing.get_args(kind)
        rules = tuple(extras)
    if typing.get_origin(kind) in (typing.Union, types.UnionType):  # X | None
        if value is None:
            return None
        return _value(next(k for k in typing.get_args(kind) if k is not type(None)), value, path)
    if typing.get_origin(kind) is tuple:
        if not isinstance(value, list):
            raise SnapshotError(f"{path} must be a list")
        items = tuple(_read(typing.get_args(kind)[0], v, f"{path}[{i}]") for i, v in enumerate(value))
        for rule in rules:
            if isinstance(rule, _Unique) and len({getattr(i, rule.key) for i in items}) != len(items):
                raise SnapshotError(f"{path} has duplicate {rule.key} name")
        return items
    if typing.get_origin(kind) is dict:
        if not isinstance(value, dict):
            raise SnapshotError(f"{path} must be an object")
        return {k: _value(typing.get_args(kind)[1], v, f"{path}.*") for k, v in value.items()}
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):
        return _read(kind, value, path)
    return _scalar(kind, rules, value, path)


def _scalar(kind: type, rules: tuple[object, ...], value: object, path: str) -> object:
    if kind not in (bool, str, int):  # a field type this reader does not know: a bug here, not bad input
        raise TypeError(f"{path}: no reader for {kind!r}")
    if kind is bool and type(value) is not bool:
        raise SnapshotError(f"{path} must be a boolean")
    if kind is str and not isinstance(value, str):
        raise SnapshotError(f"{path} must be a string")
    if kind is str and _NONEMPTY in rules and value == "":
        raise SnapshotError(f"{path} must be nonempty")
    if kind is int:
        if type(value) is not int:
            raise SnapshotError(f"{path} must be an integer")
        if any(isinstance(r, _Min) and value < r.value for r in rules):
            raise SnapshotError(f"{path} is out of range")
    return value


def pseudonym(name: str, prefix: str) -> str:
    import hashlib

    return f"{prefix}_{hashlib.sha256(name.encode('utf-8')).hexdigest()[:12]}"


def build(report: Report, generated_at: datetime, *, sessions: int, days: int, redact: bool) -> Snapshot:
    return Snapshot(
        schema=SCHEMA,
        generated_at=generated_at.isoformat(),
        identifiers_redacted=redact,
        clis=tuple(_cli(c, sessions, days, redact) for c in sorted(report.clis, key=lambda c: c.cli)),
    )


def _cli(report: CliReport, sessions: int, days: int, redact: bool) -> Cli:
    window = report.window
    cov = report.coverage
    if window is None:
        win = Window(sessions, days, None, cov.project_filter_active)
    else:
        win = Window(
            window.sessions, window.days, window.sessions_considered, window.project_filter is not None
        )
    recorded = None
    if cov.recorded_results is not None:
        recorded = RecordedResults(
            cov.servers_queried_ok, cov.servers_unsupported, **cov.recorded_results.as_json()
        )
    servers = tuple(_server(row, redact) for row in sorted(report.rows, key=lambda r: r.server))
    return Cli(report.cli, win, recorded, servers)


def _tokens(tokens: Any) -> Tokens | None:
    return None if tokens is None else Tokens(tokens.value, tokens.exact)


def _footprint(row: Row) -> Footprint | None:
    """The report's footprint, read from its JSON form (the two are one format)."""
    fp = row.recorded_result_footprint
    footprint: Footprint | None = (
        None if fp is None else _read(Footprint, fp.as_json(), "recorded_result_footprint")
    )
    return footprint


def _server(row: Row, redact: bool) -> Server:
    tools: dict[str, int] = {}
    for tool, count in sorted(row.called_tools.items()):
        name = pseudonym(tool, "tool") if redact else tool
        tools[name] = tools.get(name, 0) + count
    return Server(
        server=pseudonym(row.server, "srv") if redact else row.server,
        scope=row.scope,
        transport=row.transport,
        loading_regime=row.loading_regime,
        advertised_max_tokens=_tokens(row.advertised_max_tokens),
        upfront_floor_tokens=_tokens(row.upfront_floor_tokens),
        tool_count=row.tool_count,
        calls=row.calls,
        usage_status=row.usage_status,
        verdict=row.verdict,
        called_tools=dict(sorted(tools.items())),
        recorded_result_footprint=_footprint(row),
    )
