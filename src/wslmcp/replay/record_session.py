"""``wslmcp scenario record --from-session TRANSCRIPT``: record what an agent session will ask.

The session (Claude Code, Codex or ``wslmcp-trace/1``, read by the eval's reader: one reader per
client) is replayed against this host, its observe and shell calls sent in order to servers that
run in process on recording boundaries, so everything they read lands in the scenario in the format
the twins replay. The servers run on the time their replays will have (``wiring.recording``: virtual
time from 0 whose sleeps also take real time, one clock per server, as each replaying server has its
own), so a replay asks exactly what was recorded; between calls the recording waits as the session
did (up to ``max_wait_s``), so the host moves on as it did then. IDs in the session's arguments are
bound to the recording's own answers by role, as ``wslmcp eval`` binds them (``evals.replay``).

A call that would change the host (``shell.changes``: the tools' annotations and the guard's
effects) is not sent unless ``allow_writes`` names a directory it only writes inside; the scenario
says which calls it skipped and why (``eval.session``), and a replay reports them unreplayable.

What the scenario holds: the observe server's options and host (``observe``, with
``first_request_ms`` when the session asks about history: the server then kept history for as long
before its first call, up to ``max_wait_s``), the shell server's environment, transport and calls
with their replies (``shell``, checked by ``shell-exchanges``), and every call of the session with
what this host answered (``eval.session``): ``wslmcp eval`` compares a replay with those answers,
not with the session's own, which were this host's at another moment.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field, replace
from typing import Any

from wslmcp import wiring
from wslmcp.boundaries.mcp_session import ReplayTarget, SessionSpec, ToolAnswer, answer_of
from wslmcp.catalogue import Dispatch, ServerSpec
from wslmcp.evals.bindings import HISTORY_TOOLS
from wslmcp.evals.cases import infer
from wslmcp.evals.replay import ReplayOutcome, replay
from wslmcp.evals.session import Session
from wslmcp.evals.trace import Call, Message, Trace
from wslmcp.replay.client import connect
from wslmcp.replay.recording import ShellTarget, host_section, ran_with, server_env
from wslmcp.scenario.recorder import RecordingRefused, ScenarioWriter
from wslmcp.serving import build_server

MAX_WAIT_S = 60.0
#: The observe server's options, all stated (a default may change; the replay must not); the
#: interval is the session's own when its answers show it (``sample_window_ms``).
OBSERVE_ARGS = ("--interval-ms", "3000", "--history-interval-ms", "5000", "--history-minutes", "60")


@dataclass(frozen=True)
class Plan:
    """What to record: the session, its aliases' kinds, where writes may go, the longest wait."""

    trace: Trace
    kinds: Mapping[str, str]
    allow_writes: str | None = None
    max_wait_s: float = MAX_WAIT_S
    shell: ShellTarget | None = None

    def aliases(self, kind: str) -> list[str]:
        used = {c.server for c in self.trace.calls if c.server is not None}
        return sorted(a for a in used if self.kinds.get(a) == kind)


@dataclass
class Recorded:
    """What a recording did: calls sent per kind, and the calls it skipped (n -> why)."""

    sent: dict[str, int] = field(default_factory=dict)
    skipped: dict[int, str] = field(default_factory=dict)


def check(plan: Plan) -> None:
    """Refuse what one scenario cannot hold (``RecordingRefused``), before anything is written."""
    if not plan.aliases("observe") and not plan.aliases("shell"):
        raise RecordingRefused(
            "the session makes no call to a wslmcp server (observe or shell tools); name a configured "
            "server with --server ALIAS=observe|shell; nothing was written"
        )
    for kind in ("observe", "shell"):
        if len(plan.aliases(kind)) > 1:
            raise RecordingRefused(
                f"the session calls {len(plan.aliases(kind))} {kind} servers ({', '.join(plan.aliases(kind))}); "
                "a scenario holds one host for each kind; nothing was written"
            )


def observe_args(plan: Plan) -> list[str]:
    """``OBSERVE_ARGS`` with the interval the session's server sampled at, when an answer says it
    (its sample window, rounded down)."""
    args = list(OBSERVE_ARGS)
    for call in plan.trace.calls:
        snapshot = (
            (call.result.structured or {}).get("snapshot")
            if plan.kinds.get(call.server or "") == "observe"
            else None
        )
        window = snapshot.get("sample_window_ms") if isinstance(snapshot, dict) else None
        if isinstance(window, int) and not isinstance(window, bool) and 100 <= window <= 60000:
            # the window measured is the interval and a read (501 ms at 500, 3004 ms at 3000): down to a
            # multiple of 50 ms, or of 500 ms from a second on
            step = 50 if window < 1000 else 500
            args[args.index("--interval-ms") + 1] = str(max(100, window // step * step))
            break
    return args


def first_request_ms(plan: Plan) -> int | None:
    """How long the observe server kept history before the session's first observe call (from the
    session's first prompt, up to ``max_wait_s``), when the session asks about history."""
    calls = [c for c in plan.trace.calls if plan.kinds.get(c.server or "") == "observe"]
    if not any(c.tool in HISTORY_TOOLS for c in calls):
        return None
    times = [e.at for e in plan.trace.events if isinstance(e, Message | Call) and e.at is not None]
    first = calls[0].at
    waited = 0.0 if first is None or not times else max(0.0, first - min(times))
    return round(min(waited, plan.max_wait_s) * 1000)


async def record_session(
    writer: ScenarioWriter, plan: Plan, environ: Mapping[str, str], start_wall: float
) -> Recorded:
    """Record ``plan``'s session into ``writer`` (whose clock is the observe server's, from
    ``wiring.recording.paced_clock``) and commit; on any failure nothing is left."""
    from wslmcp.shell.config import load_config

    try:
        first = first_request_ms(plan)
        servers = _Servers(writer, plan, environ, start_wall, first)
        session = Session(plan.trace, dict(plan.kinds), infer(""))
        policy = load_config(environ).policy if plan.aliases("shell") else None
        pace = _Pacing(plan, policy)
        target = ReplayTarget(str(writer.root), writer.manifest["name"])
        outcome = await replay(servers, session, target, None, pace=pace)
        recorded = _write(writer, plan, outcome, servers, first)
        writer.commit()
    except BaseException:
        writer.abort()
        raise
    return recorded


class _Pacing:
    """Before each call: wait until the session's relative time for it (each gap at most
    ``max_wait_s``, counted from when the previous call was sent), then say whether it changes the
    host beyond what is allowed."""

    def __init__(self, plan: Plan, policy: Any) -> None:
        self.plan, self.policy = plan, policy
        self._last: tuple[float, float] | None = None  # (session time, real time) of the last call

    async def __call__(self, call: Call, arguments: Any) -> str | None:
        if call.at is not None:
            if self._last is not None:
                gap = min(max(0.0, call.at - self._last[0]), self.plan.max_wait_s)
                await asyncio.sleep(max(0.0, self._last[1] + gap - time.monotonic()))
            self._last = (call.at, time.monotonic())
        if self.plan.kinds.get(call.server or "") != "shell" or self.policy is None:
            return None
        from wslmcp.shell.changes import changes_of

        changes = changes_of(call.tool, arguments if isinstance(arguments, dict) else {}, self.policy)
        if changes.within(self.plan.allow_writes):
            return None
        where = f" outside {self.plan.allow_writes}" if self.plan.allow_writes else ""
        return f"changes the host{where}: {changes.said()}"


class _Servers:
    """The recording servers, one per kind, each opened at most once (as ``McpSessions``)."""

    def __init__(
        self,
        writer: ScenarioWriter,
        plan: Plan,
        environ: Mapping[str, str],
        start_wall: float,
        first: int | None,
    ) -> None:
        self.writer, self.plan, self.variables, self.start_wall, self.first = (
            writer,
            plan,
            environ,
            start_wall,
            first,
        )
        self.host: Any = None
        self.shell_env: dict[str, str] | None = None
        self.replies: list[tuple[str, Mapping[str, Any], dict[str, Any]]] = []

    def close(self) -> None:
        pass

    @contextlib.asynccontextmanager
    async def open(self, spec: SessionSpec) -> AsyncIterator[_Session]:
        lifespan, server = self._observe() if spec.kind == "observe" else self._shell()
        async with lifespan() as dispatch, connect(build_server(server, dispatch)) as client:
            yield _Session(client, self.replies if spec.kind == "shell" else None)

    def _observe(self) -> tuple[Callable[[], AbstractAsyncContextManager[Dispatch]], ServerSpec]:
        from wslmcp.observe.assembly import build
        from wslmcp.observe.handlers import running
        from wslmcp.observe.options import parse_options
        from wslmcp.observe.tools import SERVER
        from wslmcp.wiring.recording import recording

        clock = self.writer.clock
        boundaries = recording(self.writer, self.variables, clock=clock)
        first_s = None if self.first is None else self.first / 1000
        self.host = replace(wiring.real_host(self.variables), real_time=False, first_request_s=first_s)
        service = build(boundaries, self.host, parse_options(observe_args(self.plan)))
        return lambda: running(service), SERVER

    def _shell(self) -> tuple[Callable[[], AbstractAsyncContextManager[Dispatch]], ServerSpec]:
        from wslmcp.shell.assembly import Options, build
        from wslmcp.shell.handlers import running
        from wslmcp.shell.tools import SERVER
        from wslmcp.wiring.recording import recording_shell

        target = self.plan.shell
        if target is None:
            raise RecordingRefused("the session calls shell tools but no shell target was set")
        env = server_env(self.variables)
        run = recording_shell(
            self.writer, {**self.variables, **env}, self.start_wall, target.kind, target.local_user
        )
        service = build(run.boundaries, run.host, Options(quiet=True)).service
        env.update(ran_with(service))  # as it ran (a default may change)
        self.shell_env = env
        self.host = self.host or run.host
        return lambda: running(service), SERVER


class _Session:
    def __init__(
        self, client: Any, replies: list[tuple[str, Mapping[str, Any], dict[str, Any]]] | None
    ) -> None:
        self._client, self._replies = client, replies

    async def list_tools(self) -> list[str]:
        return [t.name for t in (await self._client.list_tools()).tools]

    async def call(self, tool: str, arguments: Mapping[str, Any]) -> ToolAnswer:
        from mcp.shared.exceptions import MCPError

        try:
            result = await self._client.call_tool(tool, dict(arguments))
        except MCPError as exc:
            return ToolAnswer("jsonrpc_error", error={"code": exc.code, "message": exc.error.message})
        if self._replies is not None:  # the shell's calls, replayed by its own check
            text = "\n".join(str(getattr(block, "text", "")) for block in result.content)
            self._replies.append((tool, dict(arguments), {"is_error": bool(result.is_error), "text": text}))
        return answer_of(result)


def _write(
    writer: ScenarioWriter, plan: Plan, outcome: ReplayOutcome, servers: _Servers, first: int | None
) -> Recorded:
    recorded = Recorded(skipped=dict(outcome.skipped))
    calls = []
    for call in plan.trace.calls:
        kind = plan.kinds.get(call.server or "")
        if kind not in ("observe", "shell"):
            continue
        entry: dict[str, Any] = {"n": call.n, "tool": call.tool, "arguments": call.arguments}
        if call.n in outcome.skipped:
            entry["skipped"] = outcome.skipped[call.n]
        elif call.n in outcome.replayed:
            rel = f"expected/session/{call.n:03d}-{call.tool}.json"
            writer.add_file(rel, _json(outcome.replayed[call.n].to_json()))
            entry["answer"] = rel
            recorded.sent[kind] = recorded.sent.get(kind, 0) + 1
        calls.append(entry)
    if servers.host is not None:
        writer.manifest["observe"] = host_section(servers.host)
    if plan.aliases("observe"):
        writer.manifest["observe"]["args"] = observe_args(plan)
        if first is not None:
            writer.manifest["observe"]["first_request_ms"] = first
        if writer.manifest["timeline"]:
            writer.expect({"kind": "procfs-replay"})
    if servers.shell_env is not None and plan.shell is not None:
        _shell_section(writer, plan.shell, servers)
    writer.manifest["eval"] = {"session": {"trace": str(plan.trace.source.get("path", "")), "calls": calls}}
    return recorded


def _shell_section(writer: ScenarioWriter, target: ShellTarget, servers: _Servers) -> None:
    shell_calls = []
    for i, (tool, arguments, reply) in enumerate(servers.replies):
        rel = f"expected/{i:02d}-{tool}.json"
        writer.add_file(rel, _json(reply))
        shell_calls.append({"tool": tool, "args": dict(arguments), "expected": rel})
    transport = {"kind": target.kind, **({"user": target.local_user} if target.local_user else {})}
    writer.manifest["shell"] = {"env": servers.shell_env, "transport": transport}
    if shell_calls:
        writer.manifest["shell"]["calls"] = shell_calls
        writer.expect({"kind": "shell-exchanges"})


def _json(value: Any) -> bytes:
    return (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode()
