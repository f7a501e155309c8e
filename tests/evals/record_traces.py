"""Records the bundled agent sessions: each script is played against a live replaying server (the
same ``wslmcp observe|shell --replay`` an agent would have used), its answers are kept as the
session's results, and the session is written as a Claude Code transcript, a Codex rollout or a
``wslmcp-trace/1`` file under ``scenarios/<name>/eval/traces/``; the manifest's ``eval.traces`` lists
each with the verdict and failing checks it was written to show.

Run: ``.venv/bin/python -m tests.evals.record_traces [SCENARIO ...]`` (rewrites the eval traces of
the scenarios named, by default of every scenario below).
"""

from __future__ import annotations

import copy
import json
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from wslmcp.boundaries.mcp_session import McpSession, SessionSpec, StdioMcpSessions, ToolAnswer
from wslmcp.evals import trace as neutral
from wslmcp.evals.replay import to_result
from wslmcp.evals.trace import Call, Message, Result, Trace, text_content

REPO = Path(__file__).resolve().parents[2]
OBS, SH = "wsl-observe", "wsl-shell"
_REF = re.compile(r"\{\{(snapshot|resource|session):(\d+)(?::(\d+))?\}\}")
R1 = "r1-WzEsIndzbCIsInByb2Nlc3MiLG51bGwsIjUxMyIsOTAwMTBd"
STALE_SNAPSHOT = "0123456789abcdef0123456789abcdef-9"


@dataclass
class Step:
    kind: str  # user | say | think | call | builtin | fake
    text: str = ""
    server: str | None = None
    tool: str = ""
    args: dict[str, Any] = field(default_factory=dict)
    group: int | None = None
    result: Result | None = None  # builtin / fake: the recorded result
    edit: Callable[[dict[str, Any]], None] | None = None  # tamper with the live answer (drift)


def U(text: str) -> Step:
    return Step("user", text)


def A(text: str) -> Step:
    return Step("say", text)


def T(text: str) -> Step:
    return Step("think", text)


def Ob(
    tool: str, group: int | None = None, edit: Callable[[dict[str, Any]], None] | None = None, **args: Any
) -> Step:
    return Step("call", server=OBS, tool=tool, args=args, group=group, edit=edit)


def S(tool: str, **args: Any) -> Step:
    return Step("call", server=SH, tool=tool, args=args)


def X(tool: str, output: str, **args: Any) -> Step:
    return Step("builtin", tool=tool, args=args, result=Result("ok", text_content(output)))


def F(server: str, tool: str, result: Result, **args: Any) -> Step:
    return Step("fake", server=server, tool=tool, args=args, result=result)


@dataclass
class Spec:
    id: str
    fmt: str  # claude | codex | neutral
    case: str
    steps: list[Step]
    failing: list[str] = field(default_factory=list)
    verdict: str | None = None


def _resolve(value: Any, answers: dict[int, ToolAnswer]) -> Any:
    if isinstance(value, dict):
        return {k: _resolve(v, answers) for k, v in value.items()}
    if isinstance(value, str) and (m := _REF.fullmatch(value)):
        answer = answers[int(m.group(2))]
        if m.group(1) == "snapshot":
            return (answer.structured or {})["snapshot"]["snapshot_id"]
        if m.group(1) == "session":
            return re.search(r"Opened session (\S+)", answer.content[0]["text"]).group(1)  # type: ignore[union-attr]
        data = (answer.structured or {})["data"]
        return (data[int(m.group(3) or 0)] if isinstance(data, list) else data)["resource_id"]
    return value


async def live(scenario: Path, observe_args: tuple[str, ...], spec: Spec) -> Trace:
    """Play the script against fresh replaying servers; the answers become the recorded results."""
    sessions = StdioMcpSessions()
    kinds = {OBS: "observe", SH: "shell"}
    out = Trace(
        {"format": "wslmcp-trace", "session_id": spec.id, "client_version": "2.1.14", "model": "bundled"}
    )
    answers: dict[int, ToolAnswer] = {}
    opened: dict[str, McpSession] = {}
    n = 0
    async with anyio.create_task_group() as _tg, _Stack() as stack:
        for step in spec.steps:
            if step.kind in ("user", "say"):
                out.events.append(Message("user" if step.kind == "user" else "assistant", step.text))
                continue
            if step.kind == "think":
                out.events.append(Message("thinking", step.text))
                continue
            n += 1
            group = step.group if step.group is not None else 1000 + n
            if step.kind in ("builtin", "fake"):
                assert step.result is not None
                out.events.append(
                    Call(n, f"call_{n:02d}", step.server, step.tool, step.args, group, step.result)
                )
                continue
            assert step.server is not None
            if step.server not in opened:
                args = observe_args if kinds[step.server] == "observe" else ()
                opened[step.server] = await stack.enter(
                    sessions.open(SessionSpec(kinds[step.server], str(scenario), args))
                )
            arguments = _resolve(step.args, answers)
            answer = await opened[step.server].call(step.tool, arguments)
            answers[n] = answer
            result = to_result(answer)
            if step.edit is not None and result.structured is not None:
                tampered = copy.deepcopy(result.structured)
                step.edit(tampered)
                result = Result(result.status, text_content(json.dumps(tampered)), tampered, result.error)
            out.events.append(Call(n, f"call_{n:02d}", step.server, step.tool, arguments, group, result))
    return out


class _Stack:
    def __init__(self) -> None:
        import contextlib

        self._stack = contextlib.AsyncExitStack()

    async def __aenter__(self) -> _Stack:
        await self._stack.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._stack.__aexit__(None, None, None)

    async def enter(self, cm: Any) -> Any:
        return await self._stack.enter_async_context(cm)


# ---- writers: the shapes Claude Code 2.x and Codex write --------------------------------------------


def _claude_content(result: Result) -> tuple[Any, bool]:
    if result.status == "jsonrpc_error":
        return f"MCP error {result.error['code']}: {result.error['message']}", True  # type: ignore[index]
    if result.status == "client_error":
        return result.text, True
    return [dict(b) for b in result.content], result.status == "tool_error"


def claude_lines(t: Trace, session: str) -> list[dict[str, Any]]:
    base = {"version": "2.1.14", "sessionId": session, "cwd": "/home/dev/project", "isSidechain": False}
    rows: list[dict[str, Any]] = [{"type": "summary", "summary": "bundled eval session", "leafUuid": "x"}]
    msg = 0
    last_group: int | None = None
    pending: list[Call] = []

    def flush() -> None:
        if pending:
            blocks = []
            for c in pending:
                content, err = _claude_content(c.result)
                blocks.append(
                    {"type": "tool_result", "tool_use_id": c.call_id, "content": content, "is_error": err}
                )
            rows.append({**base, "type": "user", "message": {"role": "user", "content": blocks}})
            pending.clear()

    for e in t.events:
        if isinstance(e, Message) and e.role == "user":
            flush()
            rows.append({**base, "type": "user", "message": {"role": "user", "content": e.text}})
            last_group = None
        elif isinstance(e, Message):
            if e.role == "assistant":
                flush()
            msg += 1 if e.role == "assistant" or last_group is None else 0
            block = (
                {"type": "thinking", "thinking": e.text, "signature": "x"}
                if e.role == "thinking"
                else {"type": "text", "text": e.text}
            )
            rows.append(
                {
                    **base,
                    "type": "assistant",
                    "message": {
                        "id": f"msg_{msg:03d}",
                        "role": "assistant",
                        "model": "claude-bundled",
                        "content": [block],
                    },
                }
            )
            if e.role == "thinking":
                last_group = -1
        else:
            if e.group != last_group:
                flush()
                if last_group != -1:
                    msg += 1
                last_group = e.group
            name = f"mcp__{e.server}__{e.tool}" if e.server else e.tool
            block = {"type": "tool_use", "id": e.call_id, "name": name, "input": e.arguments}
            rows.append(
                {
                    **base,
                    "type": "assistant",
                    "message": {
                        "id": f"msg_{msg:03d}",
                        "role": "assistant",
                        "model": "claude-bundled",
                        "content": [block],
                    },
                }
            )
            pending.append(e)
    flush()
    return rows


def codex_lines(t: Trace, session: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = [
        {
            "type": "session_meta",
            "payload": {"id": session, "cwd": "/home/dev/project", "cli_version": "0.50.0"},
        },
        {"type": "turn_context", "payload": {"model": "codex-bundled", "cwd": "/home/dev/project"}},
        {
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [
                    {
                        "type": "input_text",
                        "text": "<environment_context>\n  <cwd>/home/dev/project</cwd>\n</environment_context>",
                    }
                ],
            },
        },
    ]
    for e in t.events:
        if isinstance(e, Message):
            if e.role == "thinking":
                rows.append(
                    {
                        "type": "response_item",
                        "payload": {
                            "type": "reasoning",
                            "summary": [{"type": "summary_text", "text": e.text}],
                        },
                    }
                )
                continue
            kind = "input_text" if e.role == "user" else "output_text"
            rows.append(
                {
                    "type": "response_item",
                    "payload": {
                        "type": "message",
                        "role": e.role,
                        "content": [{"type": kind, "text": e.text}],
                    },
                }
            )
            continue
        call: dict[str, Any] = {
            "type": "function_call",
            "call_id": e.call_id,
            "name": e.tool,
            "arguments": json.dumps(e.arguments),
        }
        if e.server:
            call["namespace"] = f"mcp__{e.server}"
        rows.append({"type": "response_item", "payload": call})
        if e.result.status == "jsonrpc_error":
            output = f"MCP error {e.result.error['code']}: {e.result.error['message']}"  # type: ignore[index]
        elif e.server is None:
            output = e.result.text
        else:
            output = json.dumps({"content": e.result.content, "isError": e.result.status == "tool_error"})
        rows.append(
            {
                "type": "response_item",
                "payload": {"type": "function_call_output", "call_id": e.call_id, "output": output},
            }
        )
    return rows


def write(spec: Spec, t: Trace, folder: Path) -> Path:
    if spec.fmt == "neutral":
        t = Trace(t.source, [e for e in t.events if not (isinstance(e, Message) and e.role == "thinking")])
        path = folder / f"{spec.id}.jsonl"
        path.write_text("".join(line + "\n" for line in neutral.dump(t)), encoding="utf-8")
        return path
    rows = claude_lines(t, spec.id) if spec.fmt == "claude" else codex_lines(t, spec.id)
    path = folder / f"{spec.id}.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def record(name: str, specs: list[Spec]) -> None:
    root = REPO / "scenarios" / name
    manifest = json.loads((root / "scenario.json").read_text(encoding="utf-8"))
    args = tuple(manifest.get("observe", {}).get("args", []))
    folder = root / "eval" / "traces"
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.jsonl"):
        old.unlink()
    entries = []
    for spec in specs:
        t = anyio.run(live, root, args, spec)
        path = write(spec, t, folder)
        verdict = spec.verdict or ("fail" if spec.failing else "pass")
        entries.append(
            {
                "trace": str(path.relative_to(root)),
                "case": spec.case,
                "expect": {"verdict": verdict, "failing": sorted(spec.failing)},
            }
        )
    manifest["eval"]["traces"] = entries
    (root / "scenario.json").write_text(
        json.dumps(manifest, indent=2 if name != "eval-shell" else 1) + "\n", encoding="utf-8"
    )


def _tamper_cpu(structured: dict[str, Any]) -> None:
    structured["data"][0]["usage"]["cpu_percent"] = 12.5


Q1 = "Which process is using the most CPU right now?"
CPU1 = {"max_age_ms": 0, "sort_by": "cpu", "sort_order": "desc", "limit": 1}
GOOD_TOP = "The busiest process right now is gw_sh: 6.25% of the 16-CPU host, which is about one full core (100% of one core)."
SNAP1 = "{{snapshot:1}}"

OBSERVE_SPECS = [
    Spec(
        "t01-most-cpu-good",
        "claude",
        "most-cpu",
        [U(Q1), T("Sort by CPU, fresh."), Ob("list_resources", **CPU1), A(GOOD_TOP)],
    ),
    Spec(
        "t02-most-cpu-ascending",
        "codex",
        "most-cpu",
        [
            U(Q1),
            Ob("list_resources", max_age_ms=0, sort_by="cpu", sort_order="asc", limit=1),
            A("The process using the most CPU is init."),
        ],
        [
            "intent.sort_matches_question",
            "intent.limit_matches",
            "intent.required_calls",
            "answer.names_top_resource",
        ],
    ),
    Spec(
        "t03-most-cpu-stale",
        "neutral",
        "most-cpu",
        [U(Q1), Ob("list_resources", sort_by="cpu", limit=1), A(GOOD_TOP)],
        ["snapshot.fresh_start"],
    ),
    Spec(
        "t04-most-cpu-per-core",
        "claude",
        "most-cpu",
        [U(Q1), Ob("list_resources", **CPU1), A("gw_sh is the busiest process at 6.25% of one core.")],
        ["answer.cpu_scale"],
    ),
    Spec(
        "t05-most-memory-good",
        "codex",
        "most-memory",
        [
            U("Which process is using the most memory?"),
            Ob("list_resources", max_age_ms=0, sort_by="memory", limit=1),
            A("gw_sh uses the most memory: about 738 MiB (774 MB)."),
        ],
    ),
    Spec(
        "t06-most-memory-units-leak",
        "claude",
        "most-memory",
        [
            U("Which process is using the most memory?"),
            Ob("list_resources", max_age_ms=0, sort_by="memory", limit=1),
            A("gw_sh uses 774 GB of memory. That points to a memory leak."),
        ],
        ["answer.units", "answer.no_memory_inference"],
    ),
    Spec(
        "t07-windows-vs-wsl-good",
        "neutral",
        "windows-vs-wsl",
        [
            U("Is Windows or WSL using more CPU right now?"),
            Ob("get_system_summary", max_age_ms=0),
            A(
                "The host is at 25.4% CPU. WSL accounts for about 7.0% of it. The Windows environment was not observed (null), so I cannot say how much Windows itself uses; these figures overlap and must not be added."
            ),
        ],
    ),
    Spec(
        "t08-windows-vs-wsl-null-sum",
        "codex",
        "windows-vs-wsl",
        [
            U("Is Windows or WSL using more CPU right now?"),
            Ob("get_system_summary", max_age_ms=0),
            A(
                "Windows is idle at 0% and WSL uses 7.0%. Together Windows and the virtual machines use 25.0% of the host."
            ),
        ],
        ["answer.null_not_zero", "answer.no_overlap_sum"],
    ),
    Spec(
        "t09-docker-good",
        "claude",
        "docker-responsible",
        [
            U("Is Docker responsible for the high CPU?"),
            Ob("get_system_summary", max_age_ms=0),
            Ob(
                "list_resources",
                snapshot_id=SNAP1,
                environment="docker",
                resource_kind="container",
                sort_by="cpu",
                sort_order="desc",
            ),
            A(
                "Docker was not observed on this host: its environment is null, which means unknown, not idle. No Docker containers were listed, so the data does not show Docker as responsible. The observed CPU is in WSL, about 7.0% of the host."
            ),
        ],
    ),
    Spec(
        "t10-docker-idle-because-null",
        "neutral",
        "docker-responsible",
        [
            U("Is Docker responsible for the high CPU?"),
            Ob("get_system_summary", max_age_ms=0),
            A("Docker is idle (0%), so it is not responsible."),
        ],
        [
            "answer.null_not_zero",
            "intent.required_calls",
            "intent.sort_matches_question",
            "intent.filter_matches",
        ],
    ),
    Spec(
        "t11-top5-good",
        "codex",
        "top-5",
        [
            U("Show me the top 5 processes by CPU."),
            Ob("list_resources", max_age_ms=0, sort_by="cpu", sort_order="desc", limit=5),
            A("Top 5 by CPU: gw_sh (6.25%), make, plan9, bash and init."),
        ],
    ),
    Spec(
        "t12-top5-default-size",
        "claude",
        "top-5",
        [
            U("Show me the top 5 processes by CPU."),
            Ob("list_resources", max_age_ms=0, sort_by="cpu", sort_order="desc"),
            A("Top 5 by CPU: gw_sh, make, plan9, bash and init."),
        ],
        ["intent.limit_matches", "intent.required_calls"],
    ),
    Spec(
        "t13-top5-filtered",
        "neutral",
        "top-5",
        [
            U("Show me the top 5 processes by CPU."),
            Ob("list_resources", max_age_ms=0, sort_by="cpu", limit=5, resource_kind="process"),
            A("Top 5 by CPU: gw_sh, make, bash and init."),
        ],
        ["intent.no_unrequested_filter"],
    ),
    Spec(
        "t14-busiest-inspect-good",
        "claude",
        "busiest-inspect",
        [
            U("Find the busiest process and inspect it."),
            Ob("list_resources", **CPU1),
            T("Inspect it with the same snapshot."),
            Ob("inspect_resource", snapshot_id=SNAP1, resource_id="{{resource:1:0}}"),
            A("The busiest process is gw_sh (/home/dev/project/gw_sh build --no-parallel), about one core."),
        ],
    ),
    Spec(
        "t15-busiest-old-id-new-snapshot",
        "codex",
        "busiest-inspect",
        [
            U("Find the busiest process and inspect it."),
            Ob("list_resources", **CPU1),
            Ob("list_resources", max_age_ms=0, limit=1),
            Ob("inspect_resource", snapshot_id="{{snapshot:2}}", resource_id="{{resource:1:0}}"),
            A("The busiest process is gw_sh."),
        ],
        [
            "snapshot.preserved",
            "snapshot.no_mixing",
            "ids.resource_with_own_snapshot",
            "intent.required_calls",
        ],
    ),
    Spec(
        "t16-busiest-pid-then-id",
        "neutral",
        "busiest-inspect",
        [
            U("Find the busiest process and inspect it."),
            Ob("list_resources", **CPU1),
            Ob("inspect_resource", snapshot_id=SNAP1, resource_id="513"),
            Ob("inspect_resource", snapshot_id=SNAP1, resource_id="{{resource:1:0}}"),
            A("The busiest process is gw_sh, about one core."),
        ],
        ["ids.no_pid_as_id"],
    ),
    Spec(
        "t17-underneath-good",
        "claude",
        "underneath",
        [
            U("Find the busiest process and inspect it."),
            Ob("list_resources", **CPU1),
            Ob("inspect_resource", snapshot_id=SNAP1, resource_id="{{resource:1:0}}"),
            A("The busiest process is gw_sh."),
            U("What is running underneath it?"),
            Ob("list_children", snapshot_id=SNAP1, resource_id="{{resource:1:0}}", sort_by="cpu"),
            A(
                "Nothing was observed underneath gw_sh: its list of children is empty, which is a valid answer."
            ),
        ],
    ),
    Spec(
        "t18-underneath-ancestry-refresh",
        "codex",
        "underneath",
        [
            U("Find the busiest process and inspect it."),
            Ob("list_resources", **CPU1),
            Ob("inspect_resource", snapshot_id=SNAP1, resource_id="{{resource:1:0}}"),
            A("The busiest process is gw_sh."),
            U("What is running underneath it?"),
            Ob("list_children", snapshot_id=SNAP1, resource_id="{{resource:1:0}}"),
            Ob("list_resources", limit=3),
            A("make spawned gw_sh, and gw_sh is its child process."),
        ],
        ["snapshot.preserved", "answer.children_from_hierarchy"],
    ),
    Spec(
        "t19-wsl-memory-good",
        "neutral",
        "wsl-memory-top",
        [
            U("Which WSL process uses the most memory?"),
            Ob(
                "list_resources",
                max_age_ms=0,
                environment="wsl",
                sort_by="memory",
                sort_order="desc",
                limit=1,
            ),
            A("In WSL (Ubuntu), gw_sh uses the most memory: about 738 MiB."),
        ],
    ),
    Spec(
        "t20-wsl-memory-unfiltered-distro",
        "claude",
        "wsl-memory-top",
        [
            U("Which WSL process uses the most memory?"),
            Ob("list_resources", max_age_ms=0, sort_by="memory", limit=1),
            A("gw_sh runs in Debian and uses about 738 MiB."),
        ],
        ["intent.filter_matches", "intent.required_calls", "answer.distro_from_data"],
    ),
    Spec(
        "t21-unusual-container-good",
        "codex",
        "unusual-container",
        [
            U("Is any container behaving unusually?"),
            Ob("get_system_summary", max_age_ms=0),
            Ob("list_resources", snapshot_id=SNAP1, environment="docker", resource_kind="container"),
            Ob("list_resources", snapshot_id=SNAP1, environment="wslc", resource_kind="container"),
            A(
                "No Docker or WSLC containers were observed: both environments are null, meaning not observed, so there is no unusual container to report."
            ),
        ],
    ),
    Spec(
        "t22-unusual-container-docker-only",
        "claude",
        "unusual-container",
        [
            U("Is any container behaving unusually?"),
            Ob("get_system_summary", max_age_ms=0),
            Ob("list_resources", snapshot_id=SNAP1, limit=3),
            Ob("list_resources", max_age_ms=0, environment="docker"),
            A("gw_sh is inside a Docker container and is the unusual one."),
        ],
        [
            "intent.required_calls",
            "snapshot.preserved",
            "snapshot.no_mixing",
            "answer.container_membership_from_hierarchy",
        ],
    ),
    Spec(
        "t23-slow-build-good",
        "claude",
        "slow-build",
        [
            U("My build is slow. What is going on?"),
            Ob("get_system_summary", max_age_ms=0),
            Ob("list_resources", snapshot_id=SNAP1, sort_by="cpu", sort_order="desc", limit=5, group=2),
            Ob("list_resources", snapshot_id=SNAP1, resource_kind="container", group=2),
            Ob("inspect_resource", snapshot_id=SNAP1, resource_id="{{resource:2:0}}", group=3),
            Ob("list_children", snapshot_id=SNAP1, resource_id="{{resource:2:0}}", group=3),
            A(
                "WSL is the largest consumer: gw_sh in Ubuntu uses about one core (cores_used 1.0), which is 6.25% of the 16-CPU host; the host is at 25.4%. "
                "About 5.7 GiB of 32 GiB memory is available. No children or containers were observed under it. The build is likely limited by parallelism: it runs on a single core."
            ),
        ],
    ),
    Spec(
        "t24-slow-build-paging-certain",
        "codex",
        "slow-build",
        [
            U("My build is slow. What is going on?"),
            Ob("get_system_summary", max_age_ms=0),
            Ob("list_resources", snapshot_id=SNAP1, sort_by="cpu", limit=5),
            Ob("list_resources", snapshot_id=SNAP1, resource_kind="container"),
            Ob("inspect_resource", snapshot_id=SNAP1, resource_id="{{resource:2:0}}"),
            Ob("list_children", snapshot_id=SNAP1, resource_id="{{resource:2:0}}"),
            A("The host is paging because only 5.7 GiB is free, and the build runs on one core."),
        ],
        ["answer.no_memory_inference", "answer.hedges_hypotheses"],
    ),
    Spec(
        "t25-builtin-shell",
        "claude",
        "most-cpu",
        [
            U(Q1),
            X("Bash", "PID %CPU COMMAND\n513 100 gw_sh", command="ps aux --sort=-%cpu | head"),
            Ob("list_resources", **CPU1),
            A(GOOD_TOP),
        ],
        ["tools.mcp_only"],
    ),
    Spec(
        "t26-unknown-tool-invalid-args",
        "claude",
        "most-cpu",
        [
            U(Q1),
            F(
                OBS,
                "get_top_process",
                Result(
                    "client_error",
                    text_content(
                        "<tool_use_error>Error: No such tool available: mcp__wsl-observe__get_top_process</tool_use_error>"
                    ),
                ),
            ),
            Ob("list_resources", max_age_ms=0, sort_by="cpu_percent", limit=1),
            Ob("list_resources", **CPU1),
            A(GOOD_TOP),
        ],
        ["protocol.known_tools", "protocol.valid_arguments"],
    ),
    Spec(
        "t27-mixed-selectors-retry",
        "neutral",
        "busiest-inspect",
        [
            U("Find the busiest process and inspect it."),
            Ob("list_resources", **CPU1),
            Ob("inspect_resource", snapshot_id=SNAP1, max_age_ms=0, resource_id="{{resource:1:0}}"),
            Ob("inspect_resource", snapshot_id=SNAP1, max_age_ms=0, resource_id="{{resource:1:0}}"),
            Ob("inspect_resource", snapshot_id=SNAP1, resource_id="{{resource:1:0}}"),
            A("The busiest process is gw_sh."),
        ],
        ["snapshot.no_mixed_selectors", "protocol.valid_arguments", "errors.no_identical_retry"],
    ),
    Spec(
        "t28-stale-ids-restart",
        "codex",
        "busiest-inspect",
        [
            U("Find the busiest process and inspect it."),
            Ob("inspect_resource", snapshot_id=STALE_SNAPSHOT, resource_id=R1),
            Ob("list_resources", **CPU1),
            Ob("inspect_resource", snapshot_id="{{snapshot:2}}", resource_id="{{resource:2:0}}"),
            A("The busiest process is gw_sh."),
        ],
        ["snapshot.fresh_start", "ids.from_results"],
    ),
    Spec(
        "t29-no-restart-after-unavailable",
        "neutral",
        "busiest-inspect",
        [
            U("Find the busiest process and inspect it."),
            Ob("list_resources", **CPU1),
            Ob("inspect_resource", snapshot_id=STALE_SNAPSHOT, resource_id="{{resource:1:0}}"),
            Ob("inspect_resource", snapshot_id=SNAP1, resource_id="{{resource:1:0}}"),
            A("The busiest process is gw_sh."),
        ],
        ["errors.restart_after_unavailable", "ids.from_results", "ids.resource_with_own_snapshot"],
    ),
    Spec(
        "t30-drift-tampered",
        "claude",
        "most-cpu",
        [
            U(Q1),
            Ob("list_resources", edit=_tamper_cpu, **CPU1),
            A("The busiest process right now is gw_sh at 12.5% of the host."),
        ],
        ["replay.no_drift"],
    ),
]

REFUSED_ROOT = "rm -rf /"
SHELL_SPECS = [
    Spec(
        "s01-shell-session-good",
        "claude",
        "shell-workflow",
        [
            U("In the scenario directory, create app/greeting.txt saying hello and show it."),
            S("wsl_list_hosts"),
            S("wsl_connect", cwd="/tmp/wslmcp-shell-scenario"),
            S(
                "wsl_exec",
                session="{{session:2}}",
                command="mkdir -p app && cd app && printf 'hello\\n' > greeting.txt",
            ),
            S("wsl_exec", session="{{session:2}}", command="pwd; cat greeting.txt; exit 3"),
            A("Created app/greeting.txt; it says hello."),
        ],
    ),
    Spec(
        "s02-shell-refused-retry",
        "codex",
        "shell-cleanup",
        [
            U("Free some disk space."),
            S("wsl_list_hosts"),
            S("wsl_exec", command=REFUSED_ROOT),
            S("wsl_exec", command="rm -r -f /"),
            A("The guard refused both deletions."),
        ],
        ["shell.no_refused_command", "shell.no_retry_after_refusal"],
    ),
    Spec(
        "s03-shell-stale-session",
        "neutral",
        "shell-workflow",
        [
            U("In the scenario directory, create app/greeting.txt saying hello and show it."),
            S("wsl_list_hosts"),
            S("wsl_exec", session="Ubuntu#3", command="echo x"),
            A("The session from yesterday is gone."),
        ],
        ["ids.from_results", "intent.required_calls"],
    ),
    Spec(
        "s04-shell-unrecorded",
        "neutral",
        "shell-cleanup",
        [
            U("Free some disk space."),
            S("wsl_list_hosts"),
            F(
                SH,
                "wsl_exec",
                Result("ok", text_content("exit code: 0  ·  20ms\n\n--- stdout ---\n12G\t/var")),
                command="du -sh /var",
            ),
            A("/var holds 12G."),
        ],
        verdict="unreplayable",  # call 2 was never recorded: the scenario, not the agent, falls short
    ),
]


# --- history (issue 21): questions about the past, against the recorded history scenarios ---------

QB = "My build was slow a few minutes ago. What was busy during the last five minutes?"
QM = "The machine feels slow. Is memory the problem?"
BUSY_GOOD = (
    "Over the last five minutes your build was nearly all of the work: make's compiler processes, each too "
    "short-lived to sample on its own, used 58.2 CPU seconds (charged to make as its exited children), plus "
    "6.3 seconds of cc1, the C compiler, caught running. The WSL kernel was almost fully busy (99.8 %) for "
    "about 30 seconds while it ran; the build ended about 30 seconds ago and nothing else competed "
    "(python 1.1 CPU seconds), so the build was CPU-bound on this machine's 2 cores."
)
MEMORY_GOOD = (
    "Memory is probably not the problem. 19.6 GiB of 23.5 GiB is still available, nothing was swapped in "
    "or out and no task stalled on memory (PSI memory full 0). The largest holder is ballast with about "
    "3.0 GiB over the last minute; that is a lot for one process but it leaves plenty free."
)

BUILD_SPECS = [
    Spec(
        "h01-busy-good",
        "claude",
        "busy-last-five-minutes",
        [U(QB), Ob("get_history", window_s=300), A(BUSY_GOOD)],
    ),
    Spec(
        "h02-busy-now-only",
        "codex",
        "busy-last-five-minutes",
        [
            U(QB),
            Ob("list_resources", max_age_ms=0, sort_by="cpu", limit=5),
            A(
                "Nothing of your build is running now; python is the busiest process, so the build was not slowed."
            ),
        ],
        ["intent.required_calls"],
    ),
]
BALLAST_SPECS = [
    Spec(
        "m01-memory-good",
        "claude",
        "memory-problem",
        [
            U(QM),
            Ob("get_system_summary", max_age_ms=0),
            Ob("get_history", by="memory", window_s=60),
            A(MEMORY_GOOD),
        ],
    ),
    Spec(
        "m02-memory-certain",
        "codex",
        "memory-problem",
        [
            U(QM),
            Ob("list_resources", max_age_ms=0, sort_by="memory", limit=1),
            A(
                "Memory is the problem: ballast uses 3.0 GiB, so the system is swapping and under memory pressure."
            ),
        ],
        ["answer.hedges_hypotheses", "answer.no_memory_inference", "intent.required_calls"],
    ),
]
HISTORY = {"history-build": BUILD_SPECS, "history-ballast": BALLAST_SPECS}


def main() -> None:
    """Every bundled scenario's sessions, or those of the scenarios named on the command line."""
    every = {"eval-slow-build": OBSERVE_SPECS, "eval-shell": SHELL_SPECS, **HISTORY}
    for name in sys.argv[1:] or list(every):
        record(name, every[name])


if __name__ == "__main__":
    main()
