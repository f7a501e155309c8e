"""Assembling a grader from what wiring built: trace files are read through the client files, the
servers are replayed through the eval sessions, and the judge plug-in (a command the user names)
runs as a real process, in a replay too."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from wslmcp.boundaries.bundle import Boundaries, Host
from wslmcp.boundaries.process import run_process
from wslmcp.evals.grading import Harness, Job, Options, grade_job


@dataclass(frozen=True)
class Grader:
    """Grades jobs with one set of options; ``close`` releases the sessions (a fork server)."""

    harness: Harness
    options: Options

    async def grade(self, job: Job) -> dict[str, Any]:
        return await grade_job(self.harness, job, self.options)

    def close(self) -> None:
        self.harness.sessions.close()


def build(boundaries: Boundaries, host: Host, options: Options) -> Grader:
    """``host`` states nothing grading needs (a trace names its own scenario); it is taken as every
    area's assembly takes it."""
    if boundaries.mcp_sessions is None:
        raise ValueError("wiring gave no eval sessions to replay traces with")
    return Grader(Harness(boundaries.client_files, boundaries.mcp_sessions, run_process), options)
