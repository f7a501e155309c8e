"""The sandbox at run time: probed before the first script runs; failing closed (``on``) or serving
with the guard alone and saying so (``auto``).

``SandboxGate`` is the runner's ``Gate`` whenever the sandbox may run: before the first run it
probes the sandbox in the distro (the launcher's ``probe`` mode: bubblewrap present, the kernel, user
namespaces, one confined run of ``true``) and classifies a failure (``sandbox.probe_failure``).

- ``WSL_SANDBOX=on`` (``required``): until a probe passes, every run is refused with that reason, so
  nothing runs unconfined; each refused call probes again, so installing bubblewrap needs no
  restart. The launcher refuses on its own too when bubblewrap is missing.
- ``WSL_SANDBOX=auto``: a classified failure turns the sandbox off for the rest of the session (the
  transport runs scripts without the launcher), logged once; ``off_line`` says why and how to turn it
  on, for ``--check``, ``wsl_list_hosts`` and the first command's reply. A probe that could not run at
  all (the transport failed, no answer) decides nothing: that call fails, the next probes again.
"""

from __future__ import annotations

import asyncio

from wslmcp.boundaries.shell_transport import ScriptCall, TransportError
from wslmcp.shell.errors import ToolFailure
from wslmcp.shell.log import Log
from wslmcp.shell.runner import Runner
from wslmcp.shell.sandbox import ProbeFacts, Profile, parse_probe, probe_failure

PROBE_TIMEOUT_S = 30.0


class SandboxGate:
    def __init__(
        self, profile: Profile, distro: str, *, required: bool = True, log: Log | None = None
    ) -> None:
        self.profile = profile
        self.distro = distro
        self.required = required
        self.log = log
        self.facts: ProbeFacts | None = None
        self.failure: str | None = None
        self.off_line: str | None = None  # auto, and the sandbox cannot run: "off: REASON; to turn it on: …"
        self.ready = False
        self._lock = asyncio.Lock()

    @property
    def home(self) -> str | None:
        return (self.facts.home or None) if self.facts is not None else None

    @property
    def off(self) -> bool:
        """``auto`` found that the sandbox cannot run: scripts run without it."""
        return self.off_line is not None

    async def probe(self, runner: Runner) -> str | None:
        """Probe now; the classified failure, or None when the sandbox works."""
        if self.off:
            return self.failure
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
            return self.failure
        classified = probe_failure(self.facts, self.distro)
        self.failure = None if classified is None else str(classified)
        self.ready = classified is None
        if classified is not None and not self.required:
            self.off_line = (
                f"off: {classified.reason}; to turn it on: {classified.remedy}, then restart the server"
            )
            runner.transport.confinement = None  # the guard alone from now on
            if self.log is not None:
                self.log.warn(f"sandbox {self.off_line}")
        return self.failure

    async def check(self, runner: Runner) -> None:
        if self.ready or self.off:
            return
        async with self._lock:
            if self.ready or self.off or await self.probe(runner) is None or self.off:
                return
            if self.required:
                raise ToolFailure(
                    f"WSL_SANDBOX=on and the sandbox cannot run, so nothing ran: {self.failure}. "
                    "Fix it (see `wslmcp shell --check`), or set WSL_SANDBOX=off and restart the server."
                )
            raise ToolFailure(f"the sandbox could not be probed, so nothing ran: {self.failure}")
