"""The sandbox at run time: probed before the first script runs, and failing closed.

``SandboxGate`` is the runner's ``Gate`` when ``WSL_SANDBOX=on``: before the first run it probes the
sandbox in the distro (the launcher's ``probe`` mode: bubblewrap present, the kernel, user
namespaces, one confined run of ``true``) and classifies a failure (``sandbox.probe_failure``). Until
a probe passes, every run is refused with that reason, so nothing runs unconfined; each refused call
probes again, so installing bubblewrap needs no restart. The launcher refuses on its own too when
bubblewrap is missing, whatever the probe said earlier.
"""

from __future__ import annotations

import asyncio

from wslmcp.boundaries.shell_transport import ScriptCall, TransportError
from wslmcp.shell.errors import ToolFailure
from wslmcp.shell.runner import Runner
from wslmcp.shell.sandbox import ProbeFacts, Profile, parse_probe, probe_failure

PROBE_TIMEOUT_S = 30.0


class SandboxGate:
    def __init__(self, profile: Profile, distro: str) -> None:
        self.profile = profile
        self.distro = distro
        self.facts: ProbeFacts | None = None
        self.failure: str | None = None
        self.ready = False
        self._lock = asyncio.Lock()

    @property
    def home(self) -> str | None:
        return (self.facts.home or None) if self.facts is not None else None

    async def probe(self, runner: Runner) -> str | None:
        """Probe now; the classified failure, or None when the sandbox works."""
        try:
            run = await runner.run(
                ScriptCall(
                    "true", timeout_s=PROBE_TIMEOUT_S, max_output=1 << 16, login=False, confine="probe"
                )
            )
        except TransportError as exc:
            self.failure = str(exc)
            return self.failure
        ex = run.exchange
        if ex.timed_out:
            self.failure = f"the sandbox probe did not answer within {PROBE_TIMEOUT_S:g} s"
            return self.failure
        self.facts = parse_probe(ex.stdout.decode("utf-8", "replace"))
        if ex.exit_code != 0 and not self.facts.bwrap:
            said = ex.stderr.decode("utf-8", "replace").strip()
            self.failure = f"the sandbox probe failed (exit code {ex.exit_code}): {said}"
        else:
            self.failure = probe_failure(self.facts, self.distro)
        self.ready = self.failure is None
        return self.failure

    async def check(self, runner: Runner) -> None:
        if self.ready:
            return
        async with self._lock:
            if not self.ready and await self.probe(runner) is not None:
                raise ToolFailure(
                    f"WSL_SANDBOX=on and the sandbox cannot run, so nothing ran: {self.failure}. "
                    "Fix it (see `wslmcp shell --check`), or set WSL_SANDBOX=off and restart the server."
                )
