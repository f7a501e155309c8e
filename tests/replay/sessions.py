"""Agent sessions made against this host's live servers, written as the clients write them: a Claude
Code transcript, a Codex rollout or a ``wslmcp-trace/1`` file, every record stamped with its time.

The "agent" is scripted: each step names its server alias, tool and arguments, where
``{{snapshot}}`` is the latest snapshot ID answered, ``{{top}}`` the first resource of the latest
listing and ``{{session}}`` the latest shell session opened.
"""

from __future__ import annotations

import json
import re
import sys
import time
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tests.stdio_client import Server

KINDS = {"observe": "observe", "wsl": "shell"}  # the aliases these sessions use
#: A good session for "which process uses the most CPU": a fresh summary, the top process, its details.
TOP_CPU = (
    [
        ("observe", "get_system_summary", {"max_age_ms": 0}),
        ("observe", "list_resources", {"snapshot_id": "{{snapshot}}", "sort_by": "cpu", "limit": 1}),
        ("observe", "inspect_resource", {"snapshot_id": "{{snapshot}}", "resource_id": "{{top}}"}),
    ],
    "Which process is using the most CPU right now?",
    "{top_name} is using the most CPU right now.",
)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


#: The live observe server's options (a client's config may give it any): a short interval keeps
#: the tests quick, and a recording from the session samples at the interval its answers show.
OBSERVE_OPTIONS = ("--interval-ms", "500")


def live_session(
    steps: Sequence[tuple[str, str, Mapping[str, Any]]],
    question: str,
    answer: str,
    env: Mapping[str, str],
    pause_s: float = 0.0,
) -> list[dict[str, Any]]:
    """Run ``steps`` against live ``wslmcp observe`` / ``wslmcp shell`` servers (started as a client
    starts them, before the question); the session as neutral events with times and results.
    ``answer`` may name ``{top_name}``, the name of the first resource of the latest listing."""
    used = {alias for alias, _, _ in steps}
    argv = {"observe": ["observe", *OBSERVE_OPTIONS], "shell": ["shell"]}
    servers = {
        a: Server([sys.executable, "-m", "wslmcp", *argv[k]], env=env) for a, k in KINDS.items() if a in used
    }
    events: list[dict[str, Any]] = []
    seen: dict[str, Any] = {}
    try:
        for server in servers.values():
            server.handshake()
        events.append({"type": "user", "text": question, "at": _now()})
        for n, (alias, tool, arguments) in enumerate(steps, start=1):
            if n > 1:
                time.sleep(pause_s)
            sent = {k: _fill(v, seen) for k, v in arguments.items()}
            at = _now()
            reply = servers[alias].call(n, tool, sent)
            result = reply.get("result", {})
            _learn(result, seen)
            status = "tool_error" if result.get("isError") else "ok"
            events.append({"type": "call", "n": n, "call_id": f"call_{n:02d}", "server": alias, "tool": tool,
                           "arguments": sent, "at": at,
                           "result": {"status": status, "content": result.get("content", []),
                                      "structured": result.get("structuredContent")}})  # fmt: skip
    finally:
        for server in servers.values():
            server.close()
    events.append(
        {"type": "assistant", "text": answer.format(top_name=seen.get("top_name", "")), "at": _now()}
    )
    return events


def _fill(value: Any, seen: Mapping[str, Any]) -> Any:
    if isinstance(value, str) and (m := re.fullmatch(r"\{\{(\w+)\}\}", value)):
        return seen[m.group(1)]
    return value


def _learn(result: Mapping[str, Any], seen: dict[str, Any]) -> None:
    structured = result.get("structuredContent") or {}
    if isinstance(structured.get("snapshot"), dict):
        seen["snapshot"] = structured["snapshot"]["snapshot_id"]
    data = structured.get("data")
    if isinstance(data, list) and data:
        seen["top"], seen["top_name"] = data[0]["resource_id"], data[0]["usage"]["name"]
    text = "".join(b.get("text", "") for b in result.get("content", []))
    if m := re.search(r"Opened session (\S+)", text):
        seen["session"] = m.group(1)


def write(events: Sequence[Mapping[str, Any]], fmt: str, path: Path) -> Path:
    """``events`` as ``fmt`` ("claude", "codex" or "neutral") writes them."""
    rows = {"claude": _claude, "codex": _codex, "neutral": _neutral}[fmt](events)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def _neutral(events: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [{"schema": "wslmcp-trace/1", "source": {"client": "tests.replay.sessions"}}, *events]


def _claude(events: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    base = {"version": "2.1.14", "sessionId": "0b7d6c4e-loop", "cwd": "/home/dev/app", "isSidechain": False}
    rows: list[dict[str, Any]] = []
    for i, e in enumerate(events):
        if e["type"] == "user":
            rows.append(
                {
                    **base,
                    "type": "user",
                    "timestamp": e["at"],
                    "message": {"role": "user", "content": e["text"]},
                }
            )
        elif e["type"] == "assistant":
            message = {
                "id": f"msg_{i:03d}",
                "role": "assistant",
                "model": "m",
                "content": [{"type": "text", "text": e["text"]}],
            }
            rows.append({**base, "type": "assistant", "timestamp": e["at"], "message": message})
        else:
            use = {
                "type": "tool_use",
                "id": e["call_id"],
                "name": f"mcp__{e['server']}__{e['tool']}",
                "input": e["arguments"],
            }
            rows.append(
                {
                    **base,
                    "type": "assistant",
                    "timestamp": e["at"],
                    "message": {"id": f"msg_{i:03d}", "role": "assistant", "model": "m", "content": [use]},
                }
            )
            back = {
                "type": "tool_result",
                "tool_use_id": e["call_id"],
                "content": e["result"]["content"],
                "is_error": e["result"]["status"] != "ok",
            }
            rows.append(
                {**base, "type": "user", "timestamp": e["at"], "message": {"role": "user", "content": [back]}}
            )
    return rows  # fmt: skip


def _codex(events: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    first = events[0]["at"]
    rows: list[dict[str, Any]] = [
        {"timestamp": first, "type": "session_meta", "payload": {"id": "0b7d6c4e-loop", "cwd": "/home/dev/app", "cli_version": "0.50.0"}},
    ]  # fmt: skip
    for e in events:
        if e["type"] in ("user", "assistant"):
            kind = "input_text" if e["type"] == "user" else "output_text"
            payload = {"type": "message", "role": e["type"], "content": [{"type": kind, "text": e["text"]}]}
            rows.append({"timestamp": e["at"], "type": "response_item", "payload": payload})
            continue
        call = {"type": "function_call", "name": e["tool"], "namespace": f"mcp__{e['server']}",
                "arguments": json.dumps(e["arguments"]), "call_id": e["call_id"]}  # fmt: skip
        output = json.dumps({"content": e["result"]["content"], "isError": e["result"]["status"] != "ok"})
        rows.append({"timestamp": e["at"], "type": "response_item", "payload": call})
        rows.append({"timestamp": e["at"], "type": "response_item",
                     "payload": {"type": "function_call_output", "call_id": e["call_id"], "output": output}})  # fmt: skip
    return rows
