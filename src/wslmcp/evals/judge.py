"""The optional LLM-judge plug-in: ``--judge CMD`` gets one JSON request on stdin per trace and answers
JSON on stdout. wslmcp never calls a model itself. A failing, slow or malformed judge marks its
items ``skip`` with the reason; it never crashes the run. Items are ``judge.<name>`` checks with
severity ``warn`` (``error`` with ``--judge-gates``).
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from wslmcp.boundaries.process import Exchange, Streams

REQUEST = "wslmcp-eval-judge-request/1"
RESPONSE = "wslmcp-eval-judge-response/1"
DEFAULT_RUBRIC = (
    {"id": "judge.facts_vs_hypotheses", "text": "Are observed facts separated from hypotheses?"},
    {"id": "judge.answers_the_question", "text": "Does the answer address the question asked?"},
)
Runner = Callable[[Sequence[str], Streams], Awaitable[Exchange]]


def rubric_of(items: Sequence[Mapping[str, str]]) -> list[dict[str, str]]:
    chosen = list(items) or list(DEFAULT_RUBRIC)
    return [
        {"id": i["id"] if i["id"].startswith("judge.") else f"judge.{i['id']}", "text": i["text"]}
        for i in chosen
    ]


async def judge(
    runner: Runner, command: str, request: dict[str, Any], timeout_s: float, gates: bool
) -> list[dict[str, Any]]:
    """One check entry per rubric item."""
    items = request["rubric"]
    severity = "error" if gates else "warn"

    def skipped(reason: str) -> list[dict[str, Any]]:
        return [
            {
                "id": i["id"],
                "status": "skip",
                "severity": severity,
                "message": f"judge: {reason}",
                "evidence": [],
            }
            for i in items
        ]

    try:
        argv = shlex.split(command)
        streams = Streams(stdin=json.dumps(request).encode(), timeout_s=timeout_s, max_output=1 << 20)
        done = await runner(argv, streams)
    except (OSError, ValueError) as exc:
        return skipped(f"could not run {command!r}: {exc}")
    if done.timed_out:
        return skipped(f"no answer within {timeout_s:g} s")
    if done.exit_code != 0:
        return skipped(f"exited with status {done.exit_code}")
    try:
        answer = json.loads(done.stdout.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return skipped("stdout is not JSON")
    if (
        not isinstance(answer, dict)
        or answer.get("schema") != RESPONSE
        or not isinstance(answer.get("items"), list)
    ):
        return skipped(f"the answer is not a {RESPONSE} object")
    given = {str(i.get("id")): i for i in answer["items"] if isinstance(i, dict)}
    out = []
    for item in items:
        got = given.get(item["id"])
        status = got.get("status") if got else None
        if status not in ("pass", "fail", "skip"):
            out.append(
                {
                    "id": item["id"],
                    "status": "skip",
                    "severity": severity,
                    "message": "judge: no verdict for this item",
                    "evidence": [],
                }
            )
            continue
        reason = str(got.get("reason", "")) if got else ""
        out.append(
            {"id": item["id"], "status": status, "severity": severity, "message": reason, "evidence": []}
        )
    return out
