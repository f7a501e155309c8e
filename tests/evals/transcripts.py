"""Builders of Claude Code and Codex transcript lines, in the shapes those clients write."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def cc_user(text: str) -> dict[str, Any]:
    return {
        "type": "user",
        "version": "2.1.14",
        "sessionId": "s1",
        "message": {"role": "user", "content": text},
    }


def cc_block(msg_id: str, block: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "type": "assistant",
        "version": "2.1.14",
        "message": {"id": msg_id, "role": "assistant", "model": "claude-x", "content": [block]},
        **extra,
    }


def cc_use(msg_id: str, use_id: str, name: str, args: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return cc_block(msg_id, {"type": "tool_use", "id": use_id, "name": name, "input": args}, **extra)


def cc_text(msg_id: str, text: str) -> dict[str, Any]:
    return cc_block(msg_id, {"type": "text", "text": text})


def cc_result(use_id: str, content: Any, is_error: bool = False) -> dict[str, Any]:
    block = {"type": "tool_result", "tool_use_id": use_id, "content": content, "is_error": is_error}
    return {"type": "user", "version": "2.1.14", "message": {"role": "user", "content": [block]}}


def cx_meta() -> dict[str, Any]:
    return {
        "type": "session_meta",
        "payload": {"id": "rollout-1", "cwd": "/home/dev", "cli_version": "0.50.0"},
    }


def cx_msg(role: str, text: str) -> dict[str, Any]:
    kind = "input_text" if role == "user" else "output_text"
    return {
        "type": "response_item",
        "payload": {"type": "message", "role": role, "content": [{"type": kind, "text": text}]},
    }


def cx_call(call_id: str, name: str, args: dict[str, Any], namespace: str | None = None) -> dict[str, Any]:
    payload: dict[str, Any] = {"type": "function_call", "call_id": call_id, "name": name}
    payload["arguments"] = json.dumps(args)
    if namespace is not None:
        payload["namespace"] = namespace
    return {"type": "response_item", "payload": payload}


def cx_output(call_id: str, output: str) -> dict[str, Any]:
    return {
        "type": "response_item",
        "payload": {"type": "function_call_output", "call_id": call_id, "output": output},
    }
