"""The six tools: input and output schemas, descriptions, server instructions and argument
validation.

Validation is complete before anything is collected; a bad call raises ``InvalidArguments``
(``wslmcp.arguments``, the validation path both servers share), answered in the negotiated
protocol's form (``wslmcp.serving``). Lengths are counted in characters (Unicode scalar values),
as the schemas say.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from wslmcp.arguments import InvalidArguments, check_enum, check_int, check_string, quoted
from wslmcp.catalogue import Hints, ServerSpec, ToolSpec, nullable, output_schema
from wslmcp.observe.history import LEVELS
from wslmcp.observe.history_queries import Agg, By, HistoryQuery, SeriesQuery
from wslmcp.observe.model import ENVIRONMENTS, KINDS
from wslmcp.observe.queries import DEFAULT_LIMIT, ListOptions, SortBy, SortOrder

DEFAULT_MAX_AGE_MS = 3000
MAX_ID_CHARS = 16384
MAX_NAME_CHARS = 1024
MAX_LIMIT = 1000
SORT_KEYS: tuple[SortBy, ...] = ("cpu", "memory", "name")
SORT_ORDERS: tuple[SortOrder, ...] = ("asc", "desc")

INSTRUCTIONS = (
    "Read-only, local observations of this Windows/WSL host: CPU and memory of the host, of each "
    "environment (windows, wsl, wslc, docker) and of processes. Nothing here changes the system; "
    "there are no actions and no shell. Start with get_system_summary (max_age_ms=0 for a fresh "
    "observation), keep the returned snapshot.snapshot_id and pass it to every follow-up call of "
    "the same investigation. Resource IDs are opaque and observation-scoped: a resource_id is valid "
    "only together with the snapshot_id it came from; never build one from a PID or name. If a "
    "snapshot is unavailable (they expire after 60 s; 4 are kept), start again and use the new IDs. "
    "CPU percentages use the host-wide scale (all logical CPUs = 100); cores_used gives a "
    "resource's cores; check snapshot.cpu_scope. Host, environment and parent/child usage overlap: "
    "never add them together or subtract one from another. null means not observed, not zero. "
    "Memory usage alone does not establish paging, swapping, disk I/O waits or memory pressure; "
    "separate observed facts from hypotheses. Container membership and parentage come only from "
    "returned parent_ids or list_children, never from names, PIDs or source labels. For the past "
    '("after the fact", "during my build", "a few minutes ago") use get_history: it covers the time '
    "since the server started, ended processes included; a snapshot shows only now. Pressure figures "
    "(summary pressure, history events) are evidence, not proof: weigh them as supporting or "
    "refuting a hypothesis."
)

_SNAPSHOT_ID = {
    "type": "string",
    "minLength": 1,
    "maxLength": MAX_ID_CHARS,
    "description": "Opaque; never parse it.",
}
_MAX_AGE = {
    "type": "integer",
    "minimum": 0,
    "description": (
        "Reuse the latest snapshot up to this age (ms, default 3000); 0 observes afresh. Not with "
        "snapshot_id."
    ),
}
_RESOURCE_ID = {"type": "string", "minLength": 1, "maxLength": MAX_ID_CHARS}
_PARENT = {
    "type": "string",
    "minLength": 1,
    "maxLength": MAX_ID_CHARS,
    "description": "List the immediate children of this resource; requires snapshot_id.",
}
_LISTING = {
    "sort_by": {"type": "string", "enum": list(SORT_KEYS)},
    "sort_order": {"type": "string", "enum": list(SORT_ORDERS)},
    "limit": {"type": "integer", "minimum": 0, "maximum": MAX_LIMIT, "default": DEFAULT_LIMIT},
    "environment": {"type": "string", "enum": list(ENVIRONMENTS)},
    "resource_kind": {"type": "string", "enum": list(KINDS)},
    "name_contains": {
        "type": "string",
        "maxLength": MAX_NAME_CHARS,
        "description": "Case-sensitive name substring.",
    },
}


def _schema(properties: Mapping[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": dict(properties),
        "required": required,
        "additionalProperties": False,
    }


# Read-only; not idempotent: a call may take a new observation, so the answer moves with time.
_OBSERVES = Hints(read_only=True, destructive=False, idempotent=False, open_world=False)
_NUMBER = nullable("number")
_SNAPSHOT_META = {
    "type": "object",
    "properties": {
        "snapshot_id": {"type": "string"},
        "captured_at_unix_ms": {"type": "integer"},
        "sample_window_ms": {"type": "integer"},
        "warnings": {"type": "array", "items": {"type": "string"}},
        "resource_id_scope": {"type": "string"},
        "cpu_scope": {"type": "string"},
    },
    "required": ["snapshot_id", "captured_at_unix_ms", "warnings"],
}
_USAGE_ROW = {
    "type": "object",
    "properties": {
        "resource_id": {"type": "string"},
        "parent_ids": {"type": "array", "items": {"type": "string"}},
        "cores_used": _NUMBER,
        "usage": {"type": "object"},
    },
    "required": ["resource_id", "parent_ids", "usage"],
}
_SUMMARY = {
    "type": "object",
    "properties": {
        "host_logical_cpu_count": nullable("integer"),
        "host_cpu_percent": _NUMBER,
        "cpu_breakdown": nullable("object"),
        "cpu_overlap_unresolved": {"type": "boolean"},
        "host_memory": nullable("object"),
        "environments": {"type": "object"},
        "pressure": {"type": "object"},
    },
}


def _answer_schema(data: Mapping[str, Any]) -> dict[str, Any]:
    """``{snapshot, data}``, or an error ``{"error": {code, message}}``."""
    return output_schema({"snapshot": _SNAPSHOT_META, "data": dict(data)}, ("snapshot", "data"))


_ROWS = {"type": "array", "items": _USAGE_ROW}

WINDOW_S = (10, 3600, 300)  # least, most, default
TOP = (1, 50, 10)
POINTS = (2, 120, 30)
BY: tuple[By, ...] = ("cpu", "memory")
AGGS: tuple[Agg, ...] = ("avg", "max")
_WINDOW = {
    "type": "integer",
    "minimum": WINDOW_S[0],
    "maximum": WINDOW_S[1],
    "default": WINDOW_S[2],
    "description": "Seconds before now.",
}
_STATS = {
    "anyOf": [
        {"type": "object", "properties": {"avg": _NUMBER, "p95": _NUMBER, "max": _NUMBER}},
        {"type": "null"},
    ]
}
_HISTORY_META = {
    "type": "object",
    "properties": {
        "from_unix_ms": {"type": "integer"},
        "to_unix_ms": {"type": "integer"},
        "interval_ms": {"type": "integer"},
        "samples": {"type": "integer"},
        "uptime_s": {"type": "number"},
        "before_server_start": {"type": "boolean"},
        "gaps": {"type": "array", "items": {"type": "object"}},
        "why_empty": {"type": "string"},
    },
    "required": ["from_unix_ms", "to_unix_ms", "interval_ms", "samples", "uptime_s", "gaps"],
}
_CONSUMER = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "environment": {"type": "string"},
        "kind": {"type": "string"},
        "cpu_seconds": {"type": "number"},
        "avg_cores": {"type": "number"},
        "avg_host_percent": {"type": "number"},
        "peak_memory_bytes": {"type": "integer"},
        "first_seen_s_ago": {"type": "integer"},
        "last_seen_s_ago": {"type": "integer"},
        "alive": {"type": "boolean"},
        "resource_id": {"type": "string"},
    },
    "required": ["name", "environment", "kind", "first_seen_s_ago", "last_seen_s_ago", "alive"],
}
_HISTORY_OUTPUT = output_schema(
    {
        "history": _HISTORY_META,
        "usage": {
            "type": "object",
            "additionalProperties": {
                "anyOf": [
                    {"type": "object", "properties": {"cpu_percent": _STATS, "memory_bytes": _STATS}},
                    {"type": "null"},
                ]
            },
        },
        "top": {"type": "array", "items": _CONSUMER},
        "snapshot_id": {"type": "string"},
        "unattributed": {"type": "object", "additionalProperties": _NUMBER},
        "events": {"type": "array", "items": {"type": "object"}},
    },
    ("history", "usage", "top", "unattributed", "events"),
)
_SERIES_OUTPUT = output_schema(
    {
        "metric": {"type": "string"},
        "unit": {"type": "string"},
        "t0_unix_ms": {"type": "integer"},
        "step_ms": {"type": "integer"},
        "values": {"type": "array", "items": _NUMBER},
        "why_empty": {"type": "string"},
        "metrics": {"type": "array", "items": {"type": "string"}},  # an unknown metric's error lists them
    },
    ("metric", "unit", "t0_unix_ms", "step_ms", "values"),
)

TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "get_system_summary",
        "Summarise host CPU and memory",
        "Start CPU/memory diagnosis here: host and per-environment (windows, wsl, wslc, docker) CPU and "
        "memory, and the snapshot. Host and environments overlap: never sum them; null is not zero. "
        "Memory usage alone does not show paging, disk I/O or pressure. max_age_ms=0 observes afresh; "
        "reuse the returned snapshot_id.",
        _schema({"snapshot_id": _SNAPSHOT_ID, "max_age_ms": _MAX_AGE}, []),
        _answer_schema(_SUMMARY),
        _OBSERVES,
    ),
    ToolSpec(
        "list_resources",
        "List resources by CPU or memory",
        "Find processes, applications, containers or infrastructure by CPU or memory (filters apply "
        "before sort and limit). Resource IDs belong to their snapshot_id: reuse it. Attribute only by "
        "the returned hierarchy (parent_ids, list_children), never by names or labels.",
        _schema({"snapshot_id": _SNAPSHOT_ID, "max_age_ms": _MAX_AGE, "parent": _PARENT, **_LISTING}, []),
        _answer_schema(_ROWS),
        _OBSERVES,
    ),
    ToolSpec(
        "inspect_resource",
        "Inspect one resource",
        "One resource found by list_resources or list_children: its resource_id with the snapshot_id "
        "it came from.",
        _schema(
            {"snapshot_id": _SNAPSHOT_ID, "resource_id": _RESOURCE_ID},
            ["snapshot_id", "resource_id"],
        ),
        _answer_schema(_USAGE_ROW),
        _OBSERVES,
    ),
    ToolSpec(
        "list_children",
        "List a resource's children",
        "A container's, application's or host's immediate observed children (its resource_id and "
        "snapshot_id). Child usage overlaps the parent's: do not add them. Empty: none observed.",
        _schema(
            {"snapshot_id": _SNAPSHOT_ID, "resource_id": _RESOURCE_ID, **_LISTING},
            ["snapshot_id", "resource_id"],
        ),
        _answer_schema(_ROWS),
        _OBSERVES,
    ),
    ToolSpec(
        "get_history",
        "What was busy since the server started",
        'What was busy since the server started: use it after the fact ("during my build", "the last '
        'five minutes"); a snapshot shows only now. Over window_s: CPU avg/p95/max and memory avg/max of '
        "host and environments, top consumers by CPU seconds or peak memory (applications: processes by "
        "name; ended ones count; exited_children: too brief to sample), CPU no process explains, "
        "pressure events (evidence, not proof). Live consumers carry resource_id and snapshot_id.",
        _schema(
            {
                "window_s": _WINDOW,
                "top": {"type": "integer", "minimum": TOP[0], "maximum": TOP[1], "default": TOP[2]},
                "by": {"type": "string", "enum": list(BY)},
                "environment": {"type": "string", "enum": list(ENVIRONMENTS)},
                "resource_kind": {"type": "string", "enum": list(LEVELS), "default": "application"},
            },
            [],
        ),
        _HISTORY_OUTPUT,
        _OBSERVES,
    ),
    ToolSpec(
        "get_metric_series",
        "One metric over time",
        "One metric over window_s in at most `points` steps (avg or max; null: no sample), "
        "e.g. when a build started or whether memory kept growing. Metrics: "
        "{host,windows,wsl,wslc,docker}.{cpu_percent,memory_bytes}, "
        "memory.linux_{total,available,used,cache}_bytes, memory.swap_{in,out}_bytes_per_s, "
        "memory.{major_faults_per_s,windows_hard_faults_per_s,wsl_vm_working_set_bytes}, "
        "memory.windows_{committed,commit_limit}_bytes, {memory,io}.psi_{some,full}_avg10, "
        "io.{linux,windows}_disk_{busy_percent,read_bytes_per_s,write_bytes_per_s}, "
        "cpu.{psi_some_avg10,procs_blocked,hyperv_wait_per_dispatch_ns}.",
        _schema(
            {
                "metric": {"type": "string", "minLength": 1, "maxLength": 100},
                "window_s": _WINDOW,
                "points": {
                    "type": "integer",
                    "minimum": POINTS[0],
                    "maximum": POINTS[1],
                    "default": POINTS[2],
                },
                "agg": {"type": "string", "enum": list(AGGS), "default": "avg"},
            },
            ["metric"],
        ),
        _SERIES_OUTPUT,
        _OBSERVES,
    ),
)
SERVER = ServerSpec("wslmcp-observe", INSTRUCTIONS, TOOLS, json_text=True)
TOOL_NAMES = tuple(t.name for t in TOOLS)


@dataclass(frozen=True)
class Call:
    tool: str
    snapshot_id: str | None = None
    max_age_ms: int = DEFAULT_MAX_AGE_MS
    resource_id: str | None = None  # inspect_resource / list_children, or list_resources' parent
    listing: ListOptions = field(default_factory=ListOptions)
    history: HistoryQuery | None = None  # get_history
    series: SeriesQuery | None = None  # get_metric_series (the metric name is checked when answered)


def parse_call(tool: str, arguments: Mapping[str, Any] | None) -> Call:
    """Validate one ``tools/call``; raises ``InvalidArguments`` naming the first problem."""
    spec = next((t for t in TOOLS if t.name == tool), None)
    if spec is None:
        raise InvalidArguments(f"unknown tool: {quoted(tool)}")
    args = dict(arguments or {})
    allowed = spec.input_schema["properties"]
    for key, value in args.items():
        if key not in allowed:
            raise InvalidArguments(f"{quoted(key)} is not accepted by {tool}")
        if value is None:
            raise InvalidArguments(f"{quoted(key)} must not be null")
    if tool == "get_history":
        return Call(tool, history=_history_query(args))
    if tool == "get_metric_series":
        return Call(tool, series=_series_query(args))
    snapshot_id = (
        check_string("snapshot_id", args["snapshot_id"], 1, MAX_ID_CHARS) if "snapshot_id" in args else None
    )
    max_age = (
        check_int("max_age_ms", args["max_age_ms"], 0, None) if "max_age_ms" in args else DEFAULT_MAX_AGE_MS
    )
    if snapshot_id is not None and "max_age_ms" in args:
        raise InvalidArguments("snapshot_id and max_age_ms are mutually exclusive")
    for key in spec.input_schema["required"]:
        if key not in args:
            raise InvalidArguments(f"missing required argument: {key}")
    resource_id = None
    if "resource_id" in args:
        resource_id = check_string("resource_id", args["resource_id"], 1, MAX_ID_CHARS)
    if "parent" in args:
        if snapshot_id is None:
            raise InvalidArguments("parent requires snapshot_id")
        resource_id = check_string("parent", args["parent"], 1, MAX_ID_CHARS)
    listing = ListOptions(
        sort_by=cast(
            SortBy, check_enum("sort_by", args["sort_by"], SORT_KEYS) if "sort_by" in args else "cpu"
        ),
        sort_order=cast(
            SortOrder,
            check_enum("sort_order", args["sort_order"], SORT_ORDERS) if "sort_order" in args else "desc",
        ),
        limit=check_int("limit", args["limit"], 0, MAX_LIMIT) if "limit" in args else DEFAULT_LIMIT,
        environment=check_enum("environment", args["environment"], ENVIRONMENTS)
        if "environment" in args
        else None,
        resource_kind=check_enum("resource_kind", args["resource_kind"], KINDS)
        if "resource_kind" in args
        else None,
        name_contains=(
            check_string("name_contains", args["name_contains"], 0, MAX_NAME_CHARS)
            if "name_contains" in args
            else None
        ),
    )
    return Call(
        tool=tool, snapshot_id=snapshot_id, max_age_ms=max_age, resource_id=resource_id, listing=listing
    )


def _window(args: Mapping[str, Any]) -> int:
    return (
        check_int("window_s", args["window_s"], WINDOW_S[0], WINDOW_S[1])
        if "window_s" in args
        else WINDOW_S[2]
    )


def _history_query(args: Mapping[str, Any]) -> HistoryQuery:
    return HistoryQuery(
        window_s=_window(args),
        top=check_int("top", args["top"], TOP[0], TOP[1]) if "top" in args else TOP[2],
        by=cast(By, check_enum("by", args["by"], BY)) if "by" in args else "cpu",
        environment=check_enum("environment", args["environment"], ENVIRONMENTS)
        if "environment" in args
        else None,
        resource_kind=check_enum("resource_kind", args["resource_kind"], LEVELS)
        if "resource_kind" in args
        else "application",
    )


def _series_query(args: Mapping[str, Any]) -> SeriesQuery:
    if "metric" not in args:
        raise InvalidArguments("missing required argument: metric")
    return SeriesQuery(
        metric=check_string("metric", args["metric"], 1, 100),
        window_s=_window(args),
        points=check_int("points", args["points"], POINTS[0], POINTS[1]) if "points" in args else POINTS[2],
        agg=cast(Agg, check_enum("agg", args["agg"], AGGS)) if "agg" in args else "avg",
    )
