"""Drift between the recorded and the replayed answers (``replay.no_drift``), and its normalization.

Each stream (recorded, replayed) is normalized separately over the whole trace: ``snapshot_id``
values become ``<snapshot K>``, ``resource_id``/``parent_ids`` entries ``<resource K>`` (K in order of
first appearance); in texts also snapshot-like and resource-like tokens, sessions (``Ubuntu#3``),
durations (``183ms``) and ISO-8601 timestamps. A figure whose formula changed for the better reads
as recorded where today's lies within what the change can move it (``scenario.figure_versions``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from wslmcp.evals.rubric.base import Checks, Outcome, fail, ok, skip
from wslmcp.evals.session import Session
from wslmcp.evals.trace import Result
from wslmcp.scenario.figure_versions import as_recorded

CHECKS = Checks()


TEXT_TOKENS = (
    ("snapshot", re.compile(r"[0-9a-f]{32}-\d+")),
    ("resource", re.compile(r"r1-[A-Za-z0-9_-]+")),
    ("session", re.compile(r"[A-Za-z0-9._-]+#\d+")),
)
_MS = re.compile(r"\d+ms\b")
_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?")


class Normalizer:
    def __init__(self) -> None:
        self.names: dict[str, dict[str, str]] = {"snapshot": {}, "resource": {}, "session": {}}

    def name(self, kind: str, value: str) -> str:
        table = self.names[kind]
        return table.setdefault(value, f"<{kind} {len(table) + 1}>")

    def value(self, value: Any, key: str = "") -> Any:
        if isinstance(value, dict):
            return {k: self.value(v, k) for k, v in value.items()}
        if isinstance(value, list):
            if key == "parent_ids":
                return [self.name("resource", v) if isinstance(v, str) else v for v in value]
            return [self.value(v) for v in value]
        if isinstance(value, str):
            if key == "snapshot_id":
                return self.name("snapshot", value)
            if key == "resource_id":
                return self.name("resource", value)
            return self.text(value)
        return value

    def text(self, text: str) -> str:
        for kind, pattern in TEXT_TOKENS:
            text = pattern.sub(lambda m, k=kind: self.name(k, m.group(0)), text)  # type: ignore[misc]
        return _TIME.sub("<time>", _MS.sub("<ms>", text))

    def result(self, result: Result, structured: bool) -> Any:
        return self.value(result.structured) if structured else self.text(result.text)


def compare(pairs: Iterable[tuple[int, Result, Result]]) -> list[dict[str, Any]]:
    """Drift entries ``{call, kind, recorded, replayed}`` for (n, recorded, replayed) in trace order."""
    rec, rep = Normalizer(), Normalizer()
    out: list[dict[str, Any]] = []
    for n, recorded, replayed in pairs:
        # a client that kept only the text (Claude Code) is compared on the text
        structured = recorded.structured is not None and replayed.structured is not None
        a, b = rec.result(recorded, structured), rep.result(replayed, structured)
        if structured:  # figures an earlier version measured otherwise, within what the change moved
            b = as_recorded(a, b)
        if recorded.rejected_arguments and replayed.rejected_arguments:
            continue  # the same refusal, in either protocol's form
        if recorded.status != replayed.status:
            kind = "rejected_now" if replayed.status == "jsonrpc_error" else "status"
            out.append({"call": n, "kind": kind, "recorded": recorded.status, "replayed": replayed.status})
        elif recorded.status == "jsonrpc_error":
            if recorded.code != replayed.code:
                out.append(
                    {"call": n, "kind": "error_changed", "recorded": recorded.code, "replayed": replayed.code}
                )
        elif a != b:
            path, old, new = first_difference(a, b)
            out.append(
                {
                    "call": n,
                    "kind": "value_changed",
                    "path": path,
                    "recorded": _short(old),
                    "replayed": _short(new),
                }
            )
    return out


def first_difference(a: Any, b: Any, path: str = "") -> tuple[str, Any, Any]:
    """The first path (``data[0].usage.cpu_percent``) where two normalized results differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in [*a, *(k for k in b if k not in a)]:
            if a.get(key, _ABSENT) != b.get(key, _ABSENT):
                return first_difference(
                    a.get(key, _ABSENT), b.get(key, _ABSENT), f"{path}.{key}" if path else key
                )
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            if x != y:
                return first_difference(x, y, f"{path}[{i}]")
        if len(a) != len(b):
            return f"{path}.length", len(a), len(b)
    return path or "(result)", a, b


_ABSENT = "(absent)"


def _short(value: Any) -> Any:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= 300 else text[:297] + "..."


@CHECKS.add(
    "replay.no_drift",
    applies="replayed traces (skip with --no-replay)",
    rule="fails when a replayed call differs from its recording (against a scenario recorded from this very "
    "session: from what that recording answered): status (rejected_now when the replay is a JSON-RPC error), "
    "JSON-RPC code (error_changed), or the normalized result (value_changed)",
)
def no_drift(s: Session) -> Outcome:
    if s.drift is None:
        return skip("not replayed (--no-replay)")
    if not s.drift:
        return ok("every replayed call answers as recorded")
    first = s.drift[0]
    return fail(
        f"call {first['call']}: {first['kind']}"
        + (f" at {first['path']}" if first.get("path") else "")
        + f" (recorded {first['recorded']!s:.80}, replayed {first['replayed']!s:.80})"
        + (f"; {len(s.drift) - 1} more" if len(s.drift) > 1 else ""),
        list(s.drift),
    )
