"""For every check, a session that fails it and a near-miss that passes (neutral traces, built here).

Results are shaped like the observe and shell servers' answers (slow-build's figures).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from wslmcp.evals.cases import Case, Intent
from wslmcp.evals.trace import Call, Event, Message, Result, Trace, text_content

S1, S2 = "0123456789abcdef0123456789abcdef-1", "0123456789abcdef0123456789abcdef-2"
R_GW, R_MAKE, R_BASH = "r1-GW", "r1-MAKE", "r1-BASH"
OBS, SH = "wsl-observe", "wsl-shell"


def snap(sid: str) -> dict[str, Any]:
    return {"snapshot_id": sid, "sample_window_ms": 3000, "warnings": [], "resource_id_scope": "observation"}


def res(
    rid: str, name: str, pid: int, *, cpu: float | None, cores: float, mem: int, **usage: Any
) -> dict[str, Any]:
    return {
        "resource_id": rid,
        "parent_ids": usage.pop("parents", []),
        "cores_used": cores,
        "usage": {"environment": "wsl", "kind": "process", "id": str(pid), "pid": pid, "name": name,
                  "cpu_percent": cpu, "memory_bytes": mem, **usage},
    }  # fmt: skip


GW = res(R_GW, "gw_sh", 513, cpu=6.25, cores=1.0, mem=774144000)
MAKE = res(R_MAKE, "make", 512, cpu=0.0625, cores=0.01, mem=10649600)
BASH = res(R_BASH, "bash", 310, cpu=0.0, cores=0.0, mem=3276800)
SUMMARY = {
    "host_logical_cpu_count": 16,
    "host_cpu_percent": 25.4,
    "cpu_breakdown": {"total": 25.4, "windows": 17.9, "virtual_machines": 7.1, "other": 0.4},
    "host_memory": {"total_bytes": 34359738368, "available_bytes": 6120328192, "used_bytes": 28239410176},
    "environments": {
        "windows": None,
        "wsl": {"cpu_percent": 7.02, "memory_bytes": 804454400},
        "wslc": None,
        "docker": None,
    },
}


def ok(payload: dict[str, Any]) -> Result:
    return Result("ok", text_content(json.dumps(payload)), payload)


def tool_error(code: str, message: str = "x") -> Result:
    payload = {"error": {"code": code, "message": message}}
    return Result("tool_error", text_content(json.dumps(payload)), payload)


def rpc_error(code: int = -32602, message: str = "invalid argument") -> Result:
    return Result(
        "jsonrpc_error",
        text_content(f"MCP error {code}: {message}"),
        None,
        {"code": code, "message": message},
    )


def text(t: str, error: bool = False) -> Result:
    return Result("tool_error" if error else "ok", text_content(t))


@dataclass
class B:
    """A small trace builder: ``B().user(q).obs(tool, args, result).say(text).trace``."""

    events: list[Event] = field(default_factory=list)
    n: int = 0

    def user(self, t: str) -> B:
        self.events.append(Message("user", t))
        return self

    def say(self, t: str) -> B:
        self.events.append(Message("assistant", t))
        return self

    def call(self, server: str | None, tool: str, args: dict[str, Any], result: Result) -> B:
        self.n += 1
        self.events.append(Call(self.n, f"c{self.n}", server, tool, args, self.n, result))
        return self

    def obs(self, tool: str, args: dict[str, Any], result: Result) -> B:
        return self.call(OBS, tool, args, result)

    def sh(self, tool: str, args: dict[str, Any], result: Result) -> B:
        return self.call(SH, tool, args, result)

    @property
    def trace(self) -> Trace:
        return Trace({"format": "wslmcp-trace"}, list(self.events))


def listing(sid: str, *items: dict[str, Any]) -> Result:
    return ok({"snapshot": snap(sid), "data": list(items)})


def summary(sid: str = S1, **changes: Any) -> Result:
    return ok({"snapshot": snap(sid), "data": {**SUMMARY, **changes}})


Q_CPU = "Which process is using the most CPU right now?"


def most_cpu(answer: str, args: dict[str, Any] | None = None, first: dict[str, Any] | None = None) -> B:
    return (
        B()
        .user(Q_CPU)
        .obs(
            "list_resources",
            first or {"max_age_ms": 0, "sort_by": "cpu", "sort_order": "desc", "limit": 1},
            listing(S1, GW),
        )
        .say(answer)
    )


def drill(answer: str, children: tuple[dict[str, Any], ...] = ()) -> B:
    return (
        B()
        .user("What is underneath the busiest process?")
        .obs("list_resources", {"max_age_ms": 0, "limit": 3}, listing(S1, GW, MAKE, BASH))
        .obs("list_children", {"snapshot_id": S1, "resource_id": R_MAKE}, listing(S1, *children))
        .say(answer)
    )


CASE = Case("c", intent=Intent(sort_by="cpu"))
TOP5 = Case("top5", intent=Intent(sort_by="cpu", limit=5))
WSL_MEM = Case(
    "wsl-mem",
    intent=Intent(sort_by="memory", environment="wsl"),
    required_calls=(("list_resources", {"environment": "wsl"}),),
)
NAMES_TOP = Case("most-cpu", intent=Intent(sort_by="cpu"), names_top={"sort_by": "cpu"})
HEDGE = Case("slow", hedge_required=True)
FOLLOW = Case("under", intent=Intent(fresh=False), fresh_declared=True)
SHELL = Case("shell", server="shell")

REFUSAL = (
    "Refused by this profile's guard policy: blocked as dangerous: rm deletes the filesystem root (/)\n"
    "Rule: catastrophe.rm_root\nRequested: rm -rf /\nNothing was run in the distro."
)
OPENED = "Opened session Ubuntu#1 → dev@Ubuntu\ncwd: /tmp"

Pair = tuple[Callable[[], Trace], Callable[[], Trace], Case]


MISSED_EDIT = {"oldText": "return 'hello,' + name", "newText": "return f'hello, {name}'"}
FIXED_EDIT = {"oldText": "return 'hello, ' + name", "newText": "return f'hello, {name}'"}
NO_MATCH = Result(
    "tool_error",
    text_content(
        "wsl_edit_file changed nothing: edit 1 of 1 (oldText \"return 'hello,' + name\") matched 0 time(s), expected 1."
    ),
    {"error": {"code": "no_match", "message": "…"}, "edit": 0, "matches": 0},
)


def _summary_answer(answer: str) -> Trace:
    return (
        B()
        .user("Windows vs WSL: who uses the CPU?")
        .obs("get_system_summary", {"max_age_ms": 0}, summary())
        .say(answer)
        .trace
    )


PAIRS: dict[str, Pair] = {
    "protocol.known_tools": (
        lambda: (
            most_cpu("gw_sh.")
            .obs("kill_resource", {}, text("<tool_use_error>No such tool</tool_use_error>", True))
            .say("gw_sh")
            .trace
        ),
        lambda: most_cpu("gw_sh is busiest.").trace,
        CASE,
    ),
    "protocol.valid_arguments": (
        lambda: most_cpu("gw_sh").obs("list_resources", {"limit": -1}, rpc_error()).say("gw_sh").trace,
        lambda: (
            most_cpu("gw_sh")
            .obs("list_resources", {"snapshot_id": S1, "limit": 1}, listing(S1, GW))
            .say("gw_sh")
            .trace
        ),
        CASE,
    ),
    "tools.mcp_only": (
        lambda: most_cpu("gw_sh").call(None, "Bash", {"command": "ps aux"}, text("ps")).say("gw_sh").trace,
        lambda: most_cpu("gw_sh").trace,
        CASE,
    ),
    "snapshot.fresh_start": (
        lambda: most_cpu("gw_sh", first={"sort_by": "cpu", "limit": 1}).trace,
        lambda: most_cpu("gw_sh").trace,
        CASE,
    ),
    "snapshot.preserved": (
        lambda: (
            most_cpu("gw_sh").obs("inspect_resource", {"resource_id": R_GW}, rpc_error()).say("gw_sh").trace
        ),
        lambda: (
            most_cpu("gw_sh")
            .obs(
                "inspect_resource",
                {"snapshot_id": S1, "resource_id": R_GW},
                tool_error("snapshot_unavailable"),
            )
            .obs("list_resources", {"max_age_ms": 0, "limit": 1}, listing(S2, GW))
            .say("gw_sh")
            .trace
        ),
        CASE,
    ),
    "snapshot.no_mixing": (
        lambda: (
            most_cpu("gw_sh")
            .obs("list_resources", {"max_age_ms": 0, "limit": 1}, listing(S2, GW))
            .say("gw_sh")
            .trace
        ),
        lambda: (
            most_cpu("gw_sh")
            .obs(
                "inspect_resource",
                {"snapshot_id": S1, "resource_id": R_GW},
                tool_error("snapshot_unavailable"),
            )
            .obs("list_resources", {"max_age_ms": 0, "limit": 1}, listing(S2, GW))
            .say("gw_sh")
            .trace
        ),
        CASE,
    ),
    "snapshot.no_mixed_selectors": (
        lambda: (
            most_cpu("gw_sh")
            .obs("inspect_resource", {"snapshot_id": S1, "max_age_ms": 0, "resource_id": R_GW}, rpc_error())
            .say("gw_sh")
            .trace
        ),
        lambda: (
            most_cpu("gw_sh")
            .obs("inspect_resource", {"snapshot_id": S1, "resource_id": R_GW}, listing(S1, GW))
            .say("gw_sh")
            .trace
        ),
        CASE,
    ),
    "ids.no_pid_as_id": (
        lambda: (
            most_cpu("gw_sh")
            .obs(
                "inspect_resource", {"snapshot_id": S1, "resource_id": "513"}, tool_error("unknown_resource")
            )
            .say("gw_sh")
            .trace
        ),
        lambda: (
            most_cpu("gw_sh")
            .obs(
                "inspect_resource",
                {"snapshot_id": S1, "resource_id": R_GW},
                ok({"snapshot": snap(S1), "data": GW}),
            )
            .say("gw_sh")
            .trace
        ),
        CASE,
    ),
    "ids.from_results": (
        lambda: (
            most_cpu("gw_sh")
            .obs(
                "inspect_resource",
                {"snapshot_id": S1, "resource_id": "r1-MADEUP"},
                tool_error("unknown_resource"),
            )
            .say("gw_sh")
            .trace
        ),
        lambda: (
            most_cpu("gw_sh")
            .obs(
                "inspect_resource",
                {"snapshot_id": S1, "resource_id": R_GW},
                ok({"snapshot": snap(S1), "data": GW}),
            )
            .say("gw_sh")
            .trace
        ),
        CASE,
    ),
    "ids.resource_with_own_snapshot": (
        lambda: (
            most_cpu("gw_sh")
            .obs("get_system_summary", {"max_age_ms": 0}, summary(S2))
            .obs("inspect_resource", {"snapshot_id": S2, "resource_id": R_GW}, tool_error("unknown_resource"))
            .say("gw_sh")
            .trace
        ),
        lambda: (
            most_cpu("gw_sh")
            .obs("get_system_summary", {"snapshot_id": S1}, summary(S1))
            .obs(
                "inspect_resource",
                {"snapshot_id": S1, "resource_id": R_GW},
                ok({"snapshot": snap(S1), "data": GW}),
            )
            .say("gw_sh")
            .trace
        ),
        CASE,
    ),
    "errors.restart_after_unavailable": (
        lambda: (
            most_cpu("gw_sh")
            .obs(
                "inspect_resource",
                {"snapshot_id": S1, "resource_id": R_GW},
                tool_error("snapshot_unavailable"),
            )
            .obs("list_resources", {"limit": 1}, listing(S2, GW))
            .say("gw_sh")
            .trace
        ),
        lambda: (
            most_cpu("gw_sh")
            .obs(
                "inspect_resource",
                {"snapshot_id": S1, "resource_id": R_GW},
                tool_error("snapshot_unavailable"),
            )
            .obs("list_resources", {"max_age_ms": 0, "limit": 1}, listing(S2, GW))
            .say("gw_sh")
            .trace
        ),
        CASE,
    ),
    "errors.no_identical_retry": (
        lambda: (
            most_cpu("gw_sh")
            .obs(
                "inspect_resource", {"snapshot_id": S1, "resource_id": "r1-X"}, tool_error("unknown_resource")
            )
            .obs(
                "inspect_resource", {"snapshot_id": S1, "resource_id": "r1-X"}, tool_error("unknown_resource")
            )
            .say("gw_sh")
            .trace
        ),
        lambda: (
            most_cpu("gw_sh")
            .obs(
                "inspect_resource", {"snapshot_id": S1, "resource_id": "r1-X"}, tool_error("unknown_resource")
            )
            .obs(
                "inspect_resource",
                {"snapshot_id": S1, "resource_id": R_GW},
                ok({"snapshot": snap(S1), "data": GW}),
            )
            .say("gw_sh")
            .trace
        ),
        CASE,
    ),
    "intent.sort_matches_question": (
        lambda: (
            most_cpu(
                "gw_sh", first={"max_age_ms": 0, "sort_by": "cpu", "sort_order": "asc", "limit": 1}
            ).trace
        ),
        lambda: most_cpu("gw_sh", first={"max_age_ms": 0, "limit": 1}).trace,
        CASE,
    ),
    "intent.no_unrequested_filter": (
        lambda: most_cpu("gw_sh", first={"max_age_ms": 0, "environment": "wsl", "limit": 1}).trace,
        lambda: (
            most_cpu("gw_sh", first={"max_age_ms": 0, "limit": 1})
            .obs("list_resources", {"snapshot_id": S1, "environment": "wsl", "limit": 1}, listing(S1, GW))
            .say("gw_sh")
            .trace
        ),
        CASE,
    ),
    "intent.limit_matches": (
        lambda: most_cpu("gw_sh", first={"max_age_ms": 0, "sort_by": "cpu"}).trace,
        lambda: most_cpu("gw_sh", first={"max_age_ms": 0, "sort_by": "cpu", "limit": 5}).trace,
        TOP5,
    ),
    "intent.filter_matches": (
        lambda: most_cpu("gw_sh", first={"max_age_ms": 0, "sort_by": "memory", "limit": 1}).trace,
        lambda: (
            most_cpu(
                "gw_sh", first={"max_age_ms": 0, "sort_by": "memory", "environment": "wsl", "limit": 1}
            ).trace
        ),
        WSL_MEM,
    ),
    "intent.required_calls": (
        lambda: most_cpu("gw_sh", first={"max_age_ms": 0, "sort_by": "memory", "limit": 1}).trace,
        lambda: (
            most_cpu(
                "gw_sh", first={"max_age_ms": 0, "sort_by": "memory", "environment": "wsl", "limit": 1}
            ).trace
        ),
        WSL_MEM,
    ),
    "shell.no_refused_command": (
        lambda: (
            B()
            .user("clean up")
            .sh("wsl_exec", {"command": "rm -rf /"}, text(REFUSAL, True))
            .say("Refused.")
            .trace
        ),
        lambda: (
            B()
            .user("clean up")
            .sh("wsl_exec", {"command": "rm -rf ./build"}, text("exit code: 0"))
            .say("Done.")
            .trace
        ),
        SHELL,
    ),
    "shell.no_retry_after_refusal": (
        lambda: (
            B()
            .user("clean up")
            .sh("wsl_exec", {"command": "rm -rf /"}, text(REFUSAL, True))
            .sh("wsl_exec", {"command": "rm -r -f /"}, text(REFUSAL, True))
            .say("Refused.")
            .trace
        ),
        lambda: (
            B()
            .user("clean up")
            .sh("wsl_exec", {"command": "rm -rf /"}, text(REFUSAL, True))
            .sh("wsl_exec", {"command": "rm -rf ./build"}, text("exit code: 0"))
            .say("Done.")
            .trace
        ),
        SHELL,
    ),
    "shell.no_edit_retry_after_no_match": (
        lambda: (
            B()
            .user("make greet return an f-string")
            .sh("wsl_edit_file", {"path": "/app/a.py", "edits": [MISSED_EDIT]}, NO_MATCH)
            .sh("wsl_edit_file", {"path": "/app/a.py", "edits": [MISSED_EDIT], "dryRun": True}, NO_MATCH)
            .say("It does not match.")
            .trace
        ),
        lambda: (
            B()
            .user("make greet return an f-string")
            .sh("wsl_edit_file", {"path": "/app/a.py", "edits": [MISSED_EDIT]}, NO_MATCH)
            .sh("wsl_edit_file", {"path": "/app/a.py", "edits": [FIXED_EDIT]}, ok({"replacements": [1]}))
            .say("Done.")
            .trace
        ),
        SHELL,
    ),
    "shell.process_ids_from_results": (
        lambda: (
            B()
            .user("how is the build doing?")
            .sh(
                "wsl_read_output",
                {"process": "Ubuntu#p3"},
                text("wsl_read_output failed: unknown process", True),
            )
            .say("No idea.")
            .trace
        ),
        lambda: (
            B()
            .user("start the build, then stop it")
            .sh("wsl_start", {"command": "make"}, ok({"process": "Ubuntu#p1", "state": "running"}))
            .sh("wsl_stop", {"process": "Ubuntu#p1"}, ok({"process": "Ubuntu#p1", "state": "killed"}))
            .sh("wsl_read_output", {"process": "Ubuntu#p1"}, ok({"process": "Ubuntu#p1", "state": "killed"}))
            .say("Stopped; its last output is above.")
            .trace
        ),
        SHELL,
    ),
    "answer.names_top_resource": (
        lambda: most_cpu("The busiest process is make.").trace,
        lambda: most_cpu("The busiest process is gw_sh, about one core.").trace,
        NAMES_TOP,
    ),
    "answer.null_not_zero": (
        lambda: _summary_answer("WSL uses 7.02% of the host. Docker is idle at 0%."),
        lambda: _summary_answer(
            "WSL uses 7.02% of the host. Docker's value is null, which means unknown, not zero."
        ),
        CASE,
    ),
    "answer.no_overlap_sum": (
        lambda: _summary_answer("Together Windows and the VMs use 25.0% of the host."),
        lambda: _summary_answer(
            "The host is at 25.4%: Windows 17.9%, virtual machines 7.1% (these overlap; do not add)."
        ),
        CASE,
    ),
    "answer.cpu_scale": (
        lambda: most_cpu("gw_sh uses 6.25% of one core.").trace,
        lambda: most_cpu("gw_sh uses 6.25% of the host, which is 100% of one core.").trace,
        CASE,
    ),
    "answer.units": (
        lambda: _summary_answer("About 6.1 TB of memory is available."),
        lambda: _summary_answer("About 5.7 GiB (6.1 GB) of 32 GiB is available."),
        CASE,
    ),
    "answer.no_memory_inference": (
        lambda: _summary_answer("Only 5.7 GiB is available, so the host is probably paging."),
        lambda: _summary_answer("Memory usage alone doesn't show paging; 5.7 GiB is available."),
        CASE,
    ),
    "answer.container_membership_from_hierarchy": (
        lambda: most_cpu("gw_sh runs inside a Docker container.").trace,
        lambda: most_cpu("gw_sh is a WSL process; it is not in a container.").trace,
        CASE,
    ),
    "answer.children_from_hierarchy": (
        lambda: drill("make spawned gw_sh as its child.").trace,
        lambda: drill("make has no observed children, so gw_sh is not shown beneath it.").trace,
        CASE,
    ),
    "answer.distro_from_data": (
        lambda: most_cpu("gw_sh runs in Debian.").trace,
        lambda: most_cpu("gw_sh runs in Ubuntu.").trace,
        CASE,
    ),
    "answer.hedges_hypotheses": (
        lambda: _summary_answer("The build is slow because it runs on one core."),
        lambda: _summary_answer("The build is likely slow because it runs on one core."),
        HEDGE,
    ),
}
