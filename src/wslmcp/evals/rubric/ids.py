"""ID provenance over the whole trace: no PID as an ID, IDs from results, resource with its own snapshot."""

from __future__ import annotations

from wslmcp.evals.bindings import handles, id_arguments
from wslmcp.evals.rubric.base import Checks, Outcome, first_fail, skip
from wslmcp.evals.session import Session
from wslmcp.evals.trace import Call

CHECKS = Checks()


RESOURCE_ARGUMENTS = ("resource_id", "parent")


def _id_uses(s: Session) -> list[tuple[Call, str, str]]:
    out: list[tuple[Call, str, str]] = []
    for call in s.trace.calls:
        kind = s.kind(call)
        if kind is None or not (s.is_observe(call) or s.is_shell(call)):
            continue
        args = s.args(call)
        out.extend((call, name, args[name]) for name in id_arguments(kind) if isinstance(args.get(name), str))
    return out


def _produced_before(s: Session, call: Call) -> set[str]:
    values: set[str] = set()
    for earlier in s.trace.calls:
        if earlier.n >= call.n or earlier.server != call.server:
            continue
        result = s.result(earlier)
        kind = s.kind(earlier)
        if kind is not None and result.status == "ok":
            values.update(v for _, v in handles(kind, earlier.tool, result.structured, result.text))
    return values


def _pid_like(s: Session, call: Call, value: str) -> bool:
    if value.isdigit():
        return True
    earlier = [e for e in s.trace.calls if e.n < call.n]
    for _, item in s.resources(earlier):  # type: ignore[arg-type]
        usage = item["usage"]
        if value in {str(usage.get(k)) for k in ("pid", "id", "name") if usage.get(k) is not None}:
            return True
    return False


@CHECKS.add(
    "ids.no_pid_as_id",
    applies="observe calls with resource_id or parent",
    rule="fails when the value is all decimal digits, or equals a usage.pid, usage.id or usage.name of a "
    "resource in an earlier result",
)
def no_pid_as_id(s: Session) -> Outcome:
    uses = [(c, n, v) for c, n, v in _id_uses(s) if n in RESOURCE_ARGUMENTS]
    if not uses:
        return skip("no resource_id or parent arguments")
    found = [
        (c.n, f"call {c.n} passes {n}={v!r}, a PID, id or name, as an opaque ID")
        for c, n, v in uses
        if _pid_like(s, c, v)
    ]
    return first_fail(found, f"{len(uses)} resource ID argument(s) are opaque IDs")


@CHECKS.add(
    "ids.from_results",
    applies="ID arguments (observe snapshot_id, resource_id, parent; shell session)",
    rule="fails when an ID argument not already flagged by ids.no_pid_as_id was produced by no earlier call "
    "on that server (fabricated, or carried over from another session)",
)
def from_results(s: Session) -> Outcome:
    uses = _id_uses(s)
    if not uses:
        return skip("no ID arguments")
    found = []
    for call, name, value in uses:
        if name in RESOURCE_ARGUMENTS and s.is_observe(call) and _pid_like(s, call, value):
            continue  # ids.no_pid_as_id's finding
        if value not in _produced_before(s, call):
            found.append((call.n, f"call {call.n} passes {name}={value!r}, produced by no earlier call"))
    return first_fail(found, f"{len(uses)} ID argument(s) come from earlier results")


@CHECKS.add(
    "ids.resource_with_own_snapshot",
    applies="observe calls with resource_id or parent",
    rule="fails when the resource ID was produced only by results whose snapshot differs from the call's snapshot_id",
)
def resource_with_own_snapshot(s: Session) -> Outcome:
    uses = [(c, n, v) for c, n, v in _id_uses(s) if n in RESOURCE_ARGUMENTS and s.is_observe(c)]
    if not uses:
        return skip("no resource_id or parent arguments")
    found = []
    for call, name, value in uses:
        sid = s.args(call).get("snapshot_id")
        producers: dict[str | None, int] = {}
        for earlier in s.trace.calls:
            if (
                earlier.n >= call.n
                or earlier.server != call.server
                or not s.is_observe(earlier)
                or not s.ok(earlier)
            ):
                continue
            result = s.result(earlier)
            if value in {v for _, v in handles("observe", earlier.tool, result.structured, result.text)}:
                producers.setdefault(s.snapshot_of(earlier), earlier.n)
        if producers and sid not in producers:
            origin = min(producers.values())
            found.append(
                (call.n, f"call {call.n} pairs the {name} from call {origin} with another snapshot_id")
            )
    return first_fail(found, "every resource ID is used with the snapshot that produced it")
