"""Helpers of the record/replay/grade loop tests: the product command as a subprocess, and a replaying
server driven over real stdio."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tests.stdio_client import Server


def wslmcp(
    *args: str, env: Mapping[str, str] | None = None, cwd: Path | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """``wslmcp ARGS...`` as a user runs it (a real process, stdin closed)."""
    return subprocess.run(
        [sys.executable, "-m", "wslmcp", *args],
        env=dict(env) if env is not None else None,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def replay_calls(
    kind: str,
    scenario: Path,
    calls: Sequence[tuple[str, Mapping[str, Any]]],
    env: Mapping[str, str] | None = None,
) -> tuple[list[dict[str, Any]], str]:
    """``wslmcp KIND --replay SCENARIO`` with no other option, over stdio: the JSON-RPC answers to
    ``calls`` (a ``{{snapshot}}`` argument is the latest snapshot ID answered) and the server's stderr."""
    server = Server([sys.executable, "-m", "wslmcp", kind, "--replay", str(scenario)], env=env)
    answers = []
    try:
        server.handshake()
        snapshot = None
        for i, (tool, arguments) in enumerate(calls, start=1):
            sent = {k: (snapshot if v == "{{snapshot}}" else v) for k, v in arguments.items()}
            answer = server.call(i, tool, sent)
            answers.append(answer)
            structured = answer.get("result", {}).get("structuredContent") or {}
            snapshot = (structured.get("snapshot") or {}).get("snapshot_id", snapshot)
    finally:
        server.close()
    return answers, server.stderr.decode("utf-8", "replace")


def failures(answers: Sequence[Mapping[str, Any]]) -> list[str]:
    """Every answer that is a JSON-RPC error or a tool error, as one line each."""
    out = []
    for i, answer in enumerate(answers, start=1):
        if "error" in answer:
            out.append(f"call {i}: JSON-RPC {answer['error']}")
        elif answer.get("result", {}).get("isError"):
            out.append(f"call {i}: {json.dumps(answer['result'].get('structuredContent'))[:300]}")
    return out


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without the shell server's variables, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WSL_", "WSLMCP_WSL", "DOCKER_"))}
    return {**env, **extra}
